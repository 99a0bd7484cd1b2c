# A library loaded with dlopen after the client started: its frames land
# in a module of its own, reported when its first pc was captured, with
# its path and GNU build-id, and the offsets resolve in the library file.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
cat >cb.c <<'C'
void lib_call(void (*f)(void));
void lib_call(void (*f)(void))
{
	f();
	__asm__ __volatile__("");
}
C
$CC -O1 -fPIC -shared -Wl,--build-id=sha1 $SANFLAGS -o libcb.so cb.c || fail "cannot build libcb.so"
build_prog host <<'C'
#include <dlfcn.h>
#include <profev.h>
#include <stdio.h>
PROFEV_CATEGORY(app, "application");
void callback(void);
__attribute__((noinline)) void callback(void)
{
	PROFEV_ALLOC_S((void *)0x1000, 16, 8);
	PROFEV_ZONE_S(app, "in callback", 8);
}
int main(void)
{
	void *h = dlopen("./libcb.so", RTLD_NOW);
	if (!h)
		return 3;
	void (*call)(void (*)(void)) = (void (*)(void (*)(void)))dlsym(h, "lib_call");
	call(callback);
	return 0;
}
C
build_reader modules <<'C'
#include <stdio.h>
#include "profev_trace.h"
/* Prints "index path build-id" per module, then "stack module offset" for
 * the frames of each event. */
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	struct profev_error err;
	struct profev_reader *r = f ? profev_reader_new(f, &err) : NULL;
	if (!r)
		return 1;
	struct profev_event ev;
	while (profev_reader_next_event(r, &ev, NULL) == 1) {
		unsigned n;
		const struct profev_frame *fr = profev_reader_stack(r, ev.stack, &n);
		for (unsigned i = 0; fr && i < n; i++)
			printf("frame %u %u %u 0x%llx\n", i, fr[i].module, fr[i].flags,
			       (unsigned long long)fr[i].offset);
	}
	for (unsigned i = 0; i < profev_reader_module_count(r); i++) {
		const struct profev_module *m = profev_reader_module(r, i);
		printf("module %u %s ", i, m->path);
		for (unsigned k = 0; k < m->build_id_len; k++)
			printf("%02x", m->build_id[k]);
		printf("\n");
	}
	profev_reader_free(r);
	fclose(f);
	return 0;
}
C
expect_exit 0 pfrec -q -o host.bin ./host
./modules host.bin >mods.txt || fail "cannot read host.bin"
id=$(readelf -n libcb.so | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "libcb.so has no build-id"
grep -q "^module [0-9]* \./libcb\.so $id\$" mods.txt || { cat mods.txt; fail "libcb.so missing or with another build-id"; }
lib=$(sed -n 's|^module \([0-9]*\) \./libcb\.so .*|\1|p' mods.txt)
hostid=$(readelf -n host | sed -n 's/.*Build ID: *//p')
grep -q "^module [0-9]* $PWD/host $hostid\$" mods.txt || { cat mods.txt; fail "the program's module"; }
prog=$(sed -n "s|^module \([0-9]*\) $PWD/host .*|\1|p" mods.txt)
# Both events: callback (program), lib_call (library), main (program).
[ "$(grep -c "^frame 1 $lib 1 " mods.txt)" -eq 2 ] || { cat mods.txt; fail "frame #1 is not in libcb.so"; }
for f in $(sed -n "s/^frame 0 $prog 1 //p" mods.txt); do
	[ "$(fn_at host "$f")" = callback ] || fail "frame #0 is $(fn_at host "$f")"
done
for f in $(sed -n "s/^frame 1 $lib 1 //p" mods.txt); do
	[ "$(fn_at libcb.so "$f")" = lib_call ] || fail "frame #1 is $(fn_at libcb.so "$f")"
done
for f in $(sed -n "s/^frame 2 $prog 1 //p" mods.txt); do
	[ "$(fn_at host "$f")" = main ] || fail "frame #2 is $(fn_at host "$f")"
done
[ "$(grep -c "^frame 0 $prog 1 " mods.txt)" -eq 2 ] || fail "frame #0 count"
[ "$(grep -c "^frame 2 $prog 1 " mods.txt)" -eq 2 ] || fail "frame #2 count"
