#!/bin/sh
# Running another architecture's programs under qemu-user (make ARCH=aarch64).
#
#   sh tests/emulator.sh setup arm64    mount binfmt_misc and register Debian's
#                                       qemu entry (make deps ARCH=aarch64)
#   sh tests/emulator.sh check PROGRAM  exit 0 if PROGRAM runs when exec'd
#
# The tests exec cross-built commands directly, and pfrec execs the program
# it records: both need the kernel to hand the foreign ELF to qemu, which is
# binfmt_misc's job. It is not mounted by default on Debian 12 (nor in most
# containers), and registering needs root.
set -u
case "${1:-}" in
setup)
	arch=${2:?usage: tests/emulator.sh setup DEB_ARCH}
	case "$arch" in
	arm64) entry=qemu-aarch64 ;;
	*) echo "tests/emulator.sh: no qemu entry known for $arch" >&2; exit 2 ;;
	esac
	dir=/proc/sys/fs/binfmt_misc
	if [ ! -e "$dir/register" ]; then
		echo "mounting binfmt_misc on $dir"
		mount -t binfmt_misc binfmt_misc "$dir" || {
			echo "tests/emulator.sh: cannot mount binfmt_misc (needs root): $arch programs cannot be exec'd" >&2
			exit 1
		}
	fi
	if [ ! -e "$dir/$entry" ]; then
		echo "registering $entry with binfmt_misc"
		update-binfmts --enable "$entry" || { echo "tests/emulator.sh: update-binfmts --enable $entry failed" >&2; exit 1; }
	fi
	grep -qx enabled "$dir/$entry" || { echo "tests/emulator.sh: $dir/$entry is not enabled" >&2; exit 1; }
	echo "$entry is registered with binfmt_misc"
	;;
check)
	prog=${2:?usage: tests/emulator.sh check PROGRAM}
	"$prog" --version >/dev/null 2>&1
	;;
*)
	echo "usage: tests/emulator.sh setup DEB_ARCH | check PROGRAM" >&2
	exit 2
	;;
esac
