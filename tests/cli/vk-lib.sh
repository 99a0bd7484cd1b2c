# Sourced by the Vulkan tests (144, 148, 149) after lib.sh and rec-lib.sh:
# the loader is pointed at Mesa's lavapipe (software Vulkan) for the
# build's architecture where the machine has it and the caller has not
# chosen a driver; vk_probe PROGRAM skips the test, with the program's
# reason, when it exits 3 (no Vulkan device can be had).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Mesa's own allocations
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ]; then
	arch=$($CC -dumpmachine 2>/dev/null)
	lvp=/usr/share/vulkan/icd.d/lvp_icd.${arch%%-*}.json
	[ -f "$lvp" ] && export VK_ICD_FILENAMES="$lvp"
fi
VK="$PROFEV_BUILD/examples/vk_compute"

# vk_probe PROGRAM ARGS...: runs it outside pfrec; 3 skips, others fail.
vk_probe() {
	"$@" >probe.txt 2>&1
	case $? in
	0) ;;
	3) skip "$(cat probe.txt) (VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-unset}; mesa-vulkan-drivers has lavapipe)" ;;
	*) fail "$1 fails outside pfrec: $(cat probe.txt)" ;;
	esac
}

# vk_example: skips unless make built examples/vk_compute.
vk_example() {
	[ -x "$VK" ] || skip "no $VK: make builds it where <vulkan/vulkan.h> and glslangValidator are (make deps)"
}
