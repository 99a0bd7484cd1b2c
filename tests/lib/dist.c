/* Traces whose zone times come from known distributions; see dist.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "profev_trace.h"
#include "synth.h"
#include "dist.h"

/* The generator's state: one trace at a time. */
static uint64_t rng;

static double uniform(void) /* (0, 1) */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 0x2545F4914F6CDD1Dull) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static uint64_t lognormal_ns(double median_us, double sigma)
{
	return (uint64_t)llround(median_us * 1000 * exp(sigma * normal()));
}

static int has(const char *changes, const char *what)
{
	size_t n = strlen(what);
	for (const char *p = changes; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && memcmp(p, what, n) == 0)
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

int dist_changes_valid(const char *changes)
{
	static const char *const known[] = { "slow", "tail", "site", "swap", "alloc" };
	for (const char *p = changes; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p), k = 0;
		while (k < 5 && !(strlen(known[k]) == len && memcmp(p, known[k], len) == 0))
			k++;
		if (k == 5)
			return 0;
		p = end ? end + 1 : p + len;
	}
	return 1;
}

int dist_write(int fd, uint64_t seed, uint64_t frames, const char *changes, struct profev_error *err)
{
	rng = seed * 0x9E3779B97F4A7C15ull + 0x1234567;
	for (int i = 0; i < 8; i++)
		uniform();
	int slow = has(changes, "slow"), tail = has(changes, "tail"), site = has(changes, "site");
	int swap = has(changes, "swap"), alloc = has(changes, "alloc");
	struct profev_writer *w = profev_writer_new(fd, NULL, err);
	if (!w)
		return err->code ? err->code : PROFEV_E_NOMEM;
	const uint64_t t0 = 1000000;
	struct profev_meta m = { .program = "./dist", .pid = 1, .host = "test", .mono_start_ns = t0,
				 .clock = "monotonic", .recorder = "mkdist" };
	int rc = profev_writer_meta(w, &m);
	rc |= profev_writer_thread(w, 1, 1, "main");
	static const uint8_t bid[4] = { 1, 2, 3, 4 };
	struct profev_module mod = { "/usr/bin/dist", bid, 4, 0x400000, 0x10000 };
	rc |= profev_writer_module(w, &mod) != 0;
	struct profev_frame f[2] = { { 0, PROFEV_FRAMEF_RETURN, 0x1234 }, { 0, PROFEV_FRAMEF_RETURN, 0x1000 } };
	uint32_t stack = profev_writer_stack(w, f, 2);
	uint32_t cat = profev_writer_cstring(w, "test");
	uint32_t steady = profev_writer_cstring(w, "steady"), bimodal = profev_writer_cstring(w, "bimodal");
	uint32_t noisy = profev_writer_cstring(w, "noisy"), legacy = profev_writer_cstring(w, swap ? "shiny" : "legacy");
	uint32_t rare = profev_writer_cstring(w, "rare");
	struct profev_srcloc mesh_loc = { 0, cat, profev_writer_cstring(w, "load_mesh"),
					  profev_writer_cstring(w, "assets.c"), 10 };
	struct profev_srcloc tex_loc = mesh_loc;
	tex_loc.function = profev_writer_cstring(w, "load_texture");
	tex_loc.line = 42;
	uint32_t mesh = profev_writer_site(w, "load", 4, &mesh_loc);
	uint32_t texture = profev_writer_site(w, "load", 4, &tex_loc);
	rc |= !stack || !mesh || !texture;
	uint64_t t = t0, frame_no = 1;
	struct profev_event e;
#define EMIT(type, ts_, name_, payload_) \
	(e = synth_event((type), (ts_), 1, (name_), (payload_)), e.frame = frame_no, profev_writer_event(w, &e))
	for (uint64_t i = 0; i < frames && !rc; i++, frame_no++) {
		rc |= EMIT(PROFEV_EV_FRAME_MARK, t, 0, 0);
		struct { uint32_t name; uint64_t ns; } z[7];
		unsigned nz = 0;
		uint64_t d = lognormal_ns(200, 0.2);
		z[nz].name = steady, z[nz++].ns = slow ? (uint64_t)llround((double)d * 1.10) : d;
		double u = uniform();
		if (!tail)
			d = u < 0.97 ? lognormal_ns(100, 0.05) : lognormal_ns(1000, 0.05);
		else
			d = u < 0.985 ? lognormal_ns(97.12, 0.05) : lognormal_ns(2089, 0.05);
		z[nz].name = bimodal, z[nz++].ns = d;
		z[nz].name = noisy, z[nz++].ns = 50000 + (uint64_t)llround(-50000 * log(uniform()));
		z[nz].name = mesh, z[nz++].ns = lognormal_ns(120, 0.1);
		d = lognormal_ns(80, 0.1);
		z[nz].name = texture, z[nz++].ns = site ? (uint64_t)llround((double)d * 1.3) : d;
		z[nz].name = legacy, z[nz++].ns = 30000;
		if (i % 100 == 50)
			z[nz].name = rare, z[nz++].ns = 40000;
		for (unsigned k = 0; k < nz; k++) {
			rc |= EMIT(PROFEV_EV_ZONE_BEGIN, t, z[k].name, cat);
			t += z[k].ns;
			rc |= EMIT(PROFEV_EV_ZONE_END, t, z[k].name, cat);
		}
		e = synth_event(PROFEV_EV_MEM_ALLOC, t, 1, 0, alloc ? 512 : 256);
		e.addr = 0x7f0000001000ull;
		e.stack = stack;
		rc |= profev_writer_event(w, &e);
		e = synth_event(PROFEV_EV_MEM_FREE, t + 1000, 1, 0, 0);
		e.addr = 0x7f0000001000ull;
		rc |= profev_writer_event(w, &e);
		t += 100000;
	}
	rc |= EMIT(PROFEV_EV_FRAME_MARK, t, 0, 0);
	struct profev_meta end = { .exit_kind = PROFEV_EXIT_EXITED, .end_ns = t + 1000 };
	rc |= profev_writer_meta(w, &end);
	rc |= profev_writer_close(w);
	if (rc)
		*err = *profev_writer_error(w);
	profev_writer_free(w);
	return rc ? (err->code ? err->code : PROFEV_E_IO) : 0;
}
