# A name given to a zone at run time (Tracy's ZoneName after ZoneScoped,
# profev's PROFEV_ZONE_NAME) renames the zone: in pfdump's listing and
# statistics, in Chrome JSON (X events), folded stacks and Perfetto, whose
# slices trace_processor names so; a name given after a child zone rides on
# the Perfetto slice's end as the argument "name".
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
. "$PROFEV_ROOT/tests/cli/tp-lib.sh"
command -v g++ >/dev/null || skip "g++ not found"

cat >tz.cpp <<'C'
#include <tracy/Tracy.hpp>
#include <cstring>
static volatile int sink;
static void update(const char *name)
{
	ZoneScoped;
	ZoneName(name, strlen(name));
	sink++;
}
static void late(const char *name)
{
	ZoneScopedN("late");
	{
		ZoneScopedN("child");
		sink++;
	}
	ZoneName(name, strlen(name));
}
int main()
{
	const char *names[] = { "player", "enemy", "tree" };
	for (int f = 0; f < 3; f++) {
		for (int i = 0; i < 3; i++)
			update(names[i]);
		FrameMark;
	}
	late("named late");
	return 0;
}
C
g++ -std=c++17 -O1 -Wall -Wextra -Werror $SANFLAGS -DTRACY_ENABLE -I"$PROFEV_ROOT/lib/include" \
	-I"$PROFEV_ROOT/lib/include/tracy" -o tz tz.cpp "$PROFEV_BUILD/libprofev-tracy.a" "$CLIENT_A" -pthread ||
	fail "cannot build the Tracy program"
expect_exit 0 pfrec -q -o tz.bin ./tz

build_prog native <<'C'
#include <profev.h>
#include <string.h>
PROFEV_CATEGORY(app, "application");
int main(void)
{
	const char *names[] = { "alpha", "beta" };
	for (int i = 0; i < 4; i++) {
		PROFEV_ZONE(app, "entity");
		PROFEV_ZONE_NAME(names[i & 1], strlen(names[i & 1]));
	}
	return 0;
}
C
expect_exit 0 pfrec -q -o native.bin ./native

# pfdump: the zone ends under its name, and the statistics count it so.
pfdump tz.bin > list.txt || fail "pfdump tz.bin"
grep -q 'zone_end  *player ' list.txt || { cat list.txt; fail "the listing does not end zones as player"; }
pfdump --stats tz.bin > stats.txt || fail "pfdump --stats tz.bin"
grep -q '^  player  *3 ' stats.txt || { cat stats.txt; fail "--stats does not count 3 zones named player"; }
grep -q '^  named late  *1 ' stats.txt || { cat stats.txt; fail "--stats does not count the zone named late"; }
! grep -q '^  update  ' stats.txt || fail "--stats still counts zones under update"
pfdump --stats native.bin > nstats.txt || fail "pfdump --stats native.bin"
grep -q '^  alpha  *2 ' nstats.txt && grep -q '^  beta  *2 ' nstats.txt ||
	{ cat nstats.txt; fail "--stats does not count alpha and beta"; }
! grep -q '^  entity  ' nstats.txt || fail "--stats still counts zones under entity"

# Chrome JSON and folded stacks.
expect_exit 0 pfconv -q to chrome -o tz.json tz.bin
for n in player enemy tree "named late"; do
	[ "$(grep -o "\"name\":\"$n\"" tz.json | wc -l)" -ge 1 ] || fail "tz.json has no zone named $n"
done
lacks tz.json '"name":"update"'
expect_exit 0 pfconv -q to chrome -o native.json native.bin
# (a zone is an X event, or a B and E pair where zones touch at one tick,
# as under qemu's coarse counter)
zones_named() {
	python3 -c 'import json, sys
print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") in ("X", "B") and e.get("name") == sys.argv[2]))' "$1" "$2"
}
[ "$(zones_named native.json alpha)" = 2 ] || fail "native.json lacks 2 zones named alpha"
lacks native.json '"name":"entity"'
expect_exit 0 pfconv -q to folded -o tz.folded tz.bin
grep -q ';player [0-9]' tz.folded && grep -q ';named late [0-9]' tz.folded || { cat tz.folded; fail "folded names"; }
lacks tz.folded ';update'

# Perfetto, as trace_processor reads it.
tp_need
expect_exit 0 pfconv -q to perfetto -o tz.pftrace tz.bin
[ "$(tp_value tz.pftrace "select count(*) from slice where name = 'player'")" = 3 ] ||
	fail "trace_processor finds no 3 slices named player"
[ "$(tp_value tz.pftrace "select count(*) from slice where name = 'update'")" = 0 ] ||
	fail "trace_processor still finds slices named update"
[ "$(tp_value tz.pftrace "select display_value from args join slice using (arg_set_id)
	where slice.name = 'late' and key = 'debug.name'")" = "named late" ] ||
	fail "the late name is not the argument name of the slice late"
expect_exit 0 pfconv -q to perfetto -o native.pftrace native.bin
[ "$(tp_value native.pftrace "select count(*) from slice where name = 'beta'")" = 2 ] ||
	fail "trace_processor finds no 2 slices named beta"
