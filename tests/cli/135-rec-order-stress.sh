# Memory ordering under load: 24 threads each record 3,000 rounds of a
# zone begin, a counter whose value is the round number, a message naming
# the thread and round, and the zone's end, while the flush thread and pfrec
# drain their rings and new threads keep starting. Every event must arrive,
# intact, and in its thread's order: on a weakly ordered machine (aarch64,
# here under qemu-user, whose translated code reorders as the hardware may)
# a store seen before the record it publishes shows up as a torn or
# missing record.
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
build_prog stress <<'C'
#include <pthread.h>
#include <stdio.h>
#include <profev.h>

PROFEV_CATEGORY(stress, "stress");
#define THREADS 24
#define ROUNDS 3000

static void *worker(void *arg)
{
	int k = (int)(long)arg;
	char name[32];
	snprintf(name, sizeof name, "w%02d", k);
	profev_thread_name(name);
	for (int i = 0; i < ROUNDS; i++) {
		PROFEV_ZONE_BEGIN(stress, "round");
		PROFEV_COUNTER(stress, "seq", (double)i);
		if (i % 100 == 0)
			PROFEV_MESSAGE(stress, "w%02d round %d", k, i);
		PROFEV_ZONE_END(stress);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	/* Two waves, so that rings are handed over while others are full. */
	for (int wave = 0; wave < 2; wave++) {
		for (int i = 0; i < THREADS / 2; i++)
			pthread_create(&t[wave * THREADS / 2 + i], NULL, worker, (void *)(long)(wave * THREADS / 2 + i));
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
expect_exit 0 pfrec -q -o s.bin ./stress
expect_exit 0 pfdump --stats s.bin
contains out.txt "lost events:  0"
pfdump --jsonl s.bin > s.jsonl || fail "pfdump --jsonl failed"
python3 - s.jsonl <<'PY' || fail "events missing, torn or out of order (above)"
import json, sys
threads = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    name = e.get("thread", "")
    if not name.startswith("w"):
        continue
    threads.setdefault(name, []).append(e)
bad = []
if len(threads) != 24:
    bad.append(f"{len(threads)} worker threads, expected 24")
for name, evs in sorted(threads.items()):
    want = 0
    state = "begin"
    msgs = 0
    for e in evs:
        t = e["type"]
        if t == "thread_name":
            continue
        if t == "message":
            if e.get("text") != f"{name} round {want}" or state != "end":
                bad.append(f"{name}: message {e.get('text')!r} at round {want}")
            msgs += 1
            continue
        if state == "begin" and t == "zone_begin" and e.get("name") == "round":
            state = "counter"
        elif state == "counter" and t == "counter" and e.get("name") == "seq":
            if e["value"] != want:
                bad.append(f"{name}: counter {e['value']} where round {want} was due")
                break
            state = "end"
        elif state == "end" and t == "zone_end":
            state = "begin"
            want += 1
        else:
            bad.append(f"{name}: {t} {e.get('name')!r} at round {want}, expecting {state}")
            break
    if want != 3000 or msgs != 30:
        bad.append(f"{name}: {want} whole rounds and {msgs} messages, expected 3000 and 30")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
PY
