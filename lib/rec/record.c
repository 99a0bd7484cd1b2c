/*
 * record.c - pfrec's engine: start the program with the client's pipe,
 * decode the wire stream (formats/wire.md) as it arrives and write the
 * trace. Memory is bounded by the read buffer, the live threads' zone
 * stacks and the name tables: never by the length of the recording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "trace/trace_internal.h"
#include "profev_record.h"
#include "rec/rec_images.h"
#include "wire/wire.h"
#include "rec/perf_sample.h"
#include "rec/elf_file.h"

#define READ_BUF (1u << 20)
#define MAX_DEPTH 1024          /* zone names kept per thread for ZONE_END */
/* Per recording: more is a broken or hostile client, and memory must stay
 * bounded. Past the thread caps pfrec stops recording (the program runs
 * on); past the name caps new names are recorded as OVERFLOW_NAME. */
#define MAX_LIVE_THREADS 65536u   /* threads started and not exited */
#define MAX_THREADS (1u << 20)    /* distinct thread ids */
#define MAX_NAMES (1u << 20)      /* distinct strings in the trace */
#define MAX_NAME_BYTES (64u << 20)
#define OVERFLOW_NAME "(too many names)"
#define FIXED_BATCH 256         /* records decoded before the writer codes them */

/* The plain records keep their type number in the trace. */
_Static_assert((int)PFW_R_ZONE_BEGIN == (int)PROFEV_EV_ZONE_BEGIN &&
		       (int)PFW_R_ZONE_END == (int)PROFEV_EV_ZONE_END &&
		       (int)PFW_R_INSTANT == (int)PROFEV_EV_INSTANT &&
		       (int)PFW_R_FRAME_MARK == (int)PROFEV_EV_FRAME_MARK,
	       "wire and trace types of zones, instants and frame marks");
#define MAX_DEF_BODY (64u << 10) /* longest non-EVENTS message: names fit */
#define LINGER_NS 200000000ull  /* stream left open by a grandchild after exit */

/* A module the client reported, by absolute address range. */
struct mod {
	uint64_t lo, hi;            /* hi excluded */
	uint64_t bias;
	uint32_t index;             /* the writer's module index */
};

#define MAX_MODULES 4096        /* the client reports at most 1024 */

struct thr {
	uint32_t tid;
	uint32_t ring_size;         /* its ring in the shared file, 0 if none */
	uint32_t ring_read;         /* where the next records start */
	unsigned char *ring_map;    /* control page, then the ring */
	uint64_t ring_base;         /* the ring's address in the program */
	uint64_t last_ns;           /* keeps each thread's timestamps monotonic */
	uint32_t depth;
	uint32_t stack_cap;         /* entries of stack, grown up to MAX_DEPTH */
	uint32_t *stack;            /* names of open zones, below depth */
};

/* The thread table: entries start with the tid (for tid_index) and stay
 * when the thread exits (t = NULL), so that no lookup is a scan. */
struct thr_ref {
	uint32_t tid;
	struct thr *t;
};

struct profev_recorder {
	struct profev_record_opts o;
	struct profev_error err;
	struct profev_writer *w;
	pid_t pid;
	volatile sig_atomic_t reaped;
	int rfd, pidfd;
	int shm_fd;                 /* the rings' memory file, -1 for pipe only */
	uint64_t ring_bytes;        /* bytes of records read from shared rings */
	int nostart_errno;
	int status;

	/* stream decoding */
	unsigned char *buf;
	size_t len, off;            /* bytes in buf; bytes of buf consumed */
	uint64_t wire_off;          /* stream offset of buf[0] */
	int in_events;              /* inside an EVENTS body */
	uint32_t body_left;         /* its bytes not yet decoded */
	struct thr *cur;            /* its thread */
	int bad;                    /* stream unreadable: read and discard */

	/* the client */
	int hello;
	int clock_unreliable;       /* no plausible calibration yet */
	struct pfw_hello h;
	double ns_per_tick;
	uint64_t ns_whole, ns_frac; /* ns_per_tick in 64.64 fixed point */
	uint64_t lost;
	uint64_t dropped_args;      /* arguments and flow marks with no zone open */
	struct rec_images img;      /* frame images */
	uint32_t *strings;          /* client string id -> writer id */
	uint32_t nstrings;
	uint32_t *cats;             /* category index -> writer id of its name */
	uint32_t ncats;
	struct thr_ref *thr;
	uint32_t nthr, capthr;
	struct tid_index thr_index;
	uint32_t live_threads;
	uint32_t threads_seen;
	uint64_t exited_ns;         /* the latest event time of the threads that exited */
	uint32_t max_name;          /* the highest writer string id seen */
	uint64_t name_bytes;        /* bytes of the distinct strings */
	uint32_t overflow_name;     /* past the name caps: every new name's id */

	struct mod *mods;           /* sorted by lo, no two overlapping */
	uint32_t nmods;

	struct perf_sampler *sampler; /* --sample, --sched; NULL if refused */

	uint64_t mono_start, events;
	uint64_t marks;             /* default frame marks so far */
	uint64_t mark_ts[64];       /* the latest of them, by mark number % 64 */
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void warn(struct profev_recorder *r, const char *fmt, ...)
{
	if (!r->o.warn)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->o.warn(r->o.ctx, msg);
}

/* The trace cannot be written: keep draining the program, report at the end. */
static int writer_failed(struct profev_recorder *r)
{
	if (r->err.code == PROFEV_OK) {
		const struct profev_error *we = profev_writer_error(r->w);
		err_set(&r->err, we->code ? we->code : PROFEV_E_IO, "%s",
			we->message[0] ? we->message : profev_strerror(we->code));
	}
	r->bad = 1;
	return -1;
}

static void stream_corrupt(struct profev_recorder *r, const char *what)
{
	if (!r->bad)
		warn(r, "client stream at byte %llu: %s; the rest of it is ignored",
		     (unsigned long long)(r->wire_off + r->off), what);
	r->bad = 1;
}

/* ---- threads ---------------------------------------------------------- */

static uint32_t *thread_slot(struct profev_recorder *r, uint32_t tid)
{
	return tid_index_slot(&r->thr_index, r->thr, sizeof *r->thr, tid);
}

static struct thr *thread_find(struct profev_recorder *r, uint32_t tid)
{
	uint32_t s = *thread_slot(r, tid);
	return s ? r->thr[s - 1].t : NULL;
}

/* A new live thread tid, or NULL with the stream given up (caps, memory). */
static struct thr *thread_new(struct profev_recorder *r, uint32_t tid)
{
	uint32_t *slot = thread_slot(r, tid);
	char why[96];
	if (r->live_threads >= MAX_LIVE_THREADS || (!*slot && r->nthr >= MAX_THREADS)) {
		snprintf(why, sizeof why, "more than %u threads %s; stopped recording",
			 r->live_threads >= MAX_LIVE_THREADS ? MAX_LIVE_THREADS : MAX_THREADS,
			 r->live_threads >= MAX_LIVE_THREADS ? "alive at once" : "in one recording");
		stream_corrupt(r, why);
		return NULL;
	}
	struct thr *t = calloc(1, sizeof *t);
	if (!t || (!*slot && array_grow((void **)&r->thr, &r->capthr, sizeof *r->thr, r->nthr + 1))) {
		free(t);
		stream_corrupt(r, "out of memory for threads");
		return NULL;
	}
	t->tid = tid;
	if (*slot) {
		r->thr[*slot - 1].t = t; /* a thread id the kernel gave out again */
	} else {
		r->thr[r->nthr] = (struct thr_ref){ tid, t };
		*slot = ++r->nthr;
		if (tid_index_added(&r->thr_index, r->thr, sizeof *r->thr, r->nthr)) {
			stream_corrupt(r, "out of memory for threads");
			return NULL;
		}
	}
	r->live_threads++;
	r->threads_seen++;
	return t;
}

/* Room for the name of zone number depth + 1 of t (up to MAX_DEPTH); the
 * names above a failed growth are lost, not wrong: new entries are 0. */
static void stack_grow(struct thr *t)
{
	uint32_t cap = t->stack_cap ? t->stack_cap * 2 : 16;
	if (cap > MAX_DEPTH)
		cap = MAX_DEPTH;
	uint32_t *s = realloc(t->stack, cap * sizeof *s);
	if (!s)
		return;
	memset(s + t->stack_cap, 0, (cap - t->stack_cap) * sizeof *s);
	t->stack = s;
	t->stack_cap = cap;
}

static inline void zone_push(struct thr *t, uint32_t name)
{
	if (unlikely(t->depth >= t->stack_cap) && t->depth < MAX_DEPTH)
		stack_grow(t);
	if (t->depth++ < t->stack_cap)
		t->stack[t->depth - 1] = name;
}

static struct thr *thread_get(struct profev_recorder *r, uint32_t tid, const char *name,
			      size_t name_len)
{
	struct thr *t = thread_find(r, tid);
	if (t && !name)
		return t;
	if (!t && !(t = thread_new(r, tid)))
		return NULL;
	char nm[PFW_MAX_TEXT + 1];
	if (name) {
		memcpy(nm, name, name_len);
		nm[name_len] = 0;
	}
	if (profev_writer_thread(r->w, tid, r->h.pid, name && name_len ? nm : NULL) < 0) {
		writer_failed(r);
		return NULL;
	}
	return t;
}

static void ring_unmap(struct thr *t)
{
	if (t->ring_map)
		munmap(t->ring_map, PFW_RING_CTL + (size_t)t->ring_size);
	t->ring_map = NULL;
	t->ring_size = 0;
}

static void thread_free(struct thr *t)
{
	if (!t)
		return;
	ring_unmap(t);
	free(t->stack);
	free(t);
}

static void thread_exit(struct profev_recorder *r, uint32_t tid)
{
	uint32_t s = *thread_slot(r, tid);
	struct thr *t = s ? r->thr[s - 1].t : NULL;
	if (!t)
		return;
	if (r->cur == t)
		r->cur = NULL;
	if (t->last_ns > r->exited_ns)
		r->exited_ns = t->last_ns;
	thread_free(t);
	r->thr[s - 1].t = NULL;
	r->live_threads--;
}

/*
 * The writer's id of a name, interned. Names are bounded per recording
 * (a client may redefine its string ids, or name every zone anew): past
 * MAX_NAMES distinct names or MAX_NAME_BYTES of them, every new name is
 * OVERFLOW_NAME. 0 if the trace cannot be written.
 */
static uint32_t name_id(struct profev_recorder *r, const char *s, size_t len)
{
	if (r->overflow_name)
		return r->overflow_name;
	uint32_t id = profev_writer_string(r->w, s, len);
	if (id > r->max_name) { /* the writer numbers new strings in order */
		r->max_name = id;
		r->name_bytes += len;
		if (id >= MAX_NAMES || r->name_bytes >= MAX_NAME_BYTES) {
			r->overflow_name = profev_writer_string(r->w, OVERFLOW_NAME, strlen(OVERFLOW_NAME));
			warn(r, "more than %u names or %u MiB of them; further names are recorded "
				"as '%s'", MAX_NAMES, MAX_NAME_BYTES >> 20, OVERFLOW_NAME);
			if (!r->overflow_name)
				return 0;
		}
	}
	return id;
}

/* ---- definitions -------------------------------------------------------- */

static int def_string(struct profev_recorder *r, uint32_t id, const char *s, size_t len)
{
	/* Ids count call sites: a larger one is a corrupt stream, not a reason
	 * to grow the map. */
	if (id == 0 || id > (1u << 22))
		return -1;
	if (id >= r->nstrings) {
		uint32_t n = r->nstrings ? r->nstrings : 256;
		while (n <= id)
			n *= 2;
		uint32_t *m = realloc(r->strings, n * sizeof *m);
		if (!m)
			return -1;
		memset(m + r->nstrings, 0, (n - r->nstrings) * sizeof *m);
		r->strings = m;
		r->nstrings = n;
	}
	if (!s)
		return 0;
	uint32_t wid = name_id(r, s, len);
	if (!wid)
		return writer_failed(r);
	r->strings[id] = wid;
	return 0;
}

/* PFW_SITE: a string id of the client's that is a call site's name; the
 * trace gives each site an id of its own with its source location. */
static int def_site(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_site ps;
	if (len < sizeof ps)
		return -1;
	memcpy(&ps, b, sizeof ps);
	if (ps.name_len > len - sizeof ps || ps.func_len > len - sizeof ps - ps.name_len ||
	    ps.file_len != len - sizeof ps - ps.name_len - ps.func_len || ps.id == 0 ||
	    ps.id > (1u << 22))
		return -1;
	const char *name = (const char *)b + sizeof ps;
	struct profev_srcloc loc = { 0, 0, 0, 0, ps.line };
	loc.category = ps.category < r->ncats ? r->cats[ps.category] : 0;
	if ((ps.func_len && !(loc.function = profev_writer_string(r->w, name + ps.name_len,
								   ps.func_len))) ||
	    (ps.file_len && !(loc.file = profev_writer_string(r->w, name + ps.name_len + ps.func_len,
							       ps.file_len))))
		return writer_failed(r);
	if (def_string(r, ps.id, NULL, 0) < 0) /* makes room for the id */
		return -1;
	uint32_t wid = profev_writer_site(r->w, name, ps.name_len, &loc);
	if (!wid)
		return writer_failed(r);
	r->strings[ps.id] = wid;
	return 0;
}

static inline uint32_t map_string(const struct profev_recorder *r, uint32_t id)
{
	return id < r->nstrings ? r->strings[id] : 0;
}

static inline uint32_t map_cat(const struct profev_recorder *r, unsigned index)
{
	return index < r->ncats ? r->cats[index] : 0;
}

static int def_category(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_category c;
	if (len < sizeof c)
		return -1;
	memcpy(&c, b, sizeof c);
	if (c.index > UINT16_MAX || c.name_len > len - sizeof c)
		return -1;
	if (c.index >= r->ncats) {
		uint32_t n = c.index + 16;
		uint32_t *m = realloc(r->cats, n * sizeof *m);
		if (!m)
			return -1;
		memset(m + r->ncats, 0, (n - r->ncats) * sizeof *m);
		r->cats = m;
		r->ncats = n;
	}
	uint32_t wid = name_id(r, (const char *)b + sizeof c, c.name_len);
	if (!wid)
		return writer_failed(r);
	r->cats[c.index] = wid;
	return 0;
}

/*
 * The module's executable segment, from its file if the file is the one
 * the client mapped (the same build-id): Perfetto's mappings start there.
 * The client sends only the range of its load segments.
 */
static void module_exec(struct profev_module *pm)
{
	struct elf_file f;
	if (!pm->build_id_len || pm->path[0] != '/' || elf_file_read(pm->path, &f) ||
	    f.build_id_len != pm->build_id_len || memcmp(f.build_id, pm->build_id, f.build_id_len))
		return;
	const struct elf_segment *x = elf_file_exec(&f);
	if (x && x->memsz) {
		pm->exec_vaddr = x->vaddr;
		pm->exec_offset = x->offset;
		pm->exec_size = x->memsz;
	}
}

/*
 * A module replaces whatever it overlaps: the address space was reused
 * after a dlclose, and pcs from now on belong to the new module.
 */
static int def_module(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_module m;
	if (len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	/* The build-id is checked against the body before the path is checked
	 * against what follows it: the subtraction cannot wrap. */
	if (m.build_id_len > PFW_MAX_BUILD_ID || m.build_id_len > len - sizeof m ||
	    m.path_len > len - sizeof m - m.build_id_len ||
	    m.vaddr_lo >= m.vaddr_hi || m.load_bias + m.vaddr_lo < m.load_bias ||
	    m.load_bias + m.vaddr_hi < m.load_bias + m.vaddr_lo || m.path_len >= 4096)
		return -1;
	if (r->nmods == MAX_MODULES)
		return 0;
	char path[4096];
	memcpy(path, b + sizeof m + m.build_id_len, m.path_len);
	path[m.path_len] = 0;
	struct profev_module pm = { path, m.build_id_len ? b + sizeof m : NULL, m.build_id_len,
				    m.load_bias, m.vaddr_hi - m.vaddr_lo, 0, 0, 0 };
	module_exec(&pm);
	int index = profev_writer_module(r->w, &pm);
	if (index < 0)
		return writer_failed(r);
	struct mod *n = realloc(r->mods, (r->nmods + 1) * sizeof *n);
	if (!n)
		return -1;
	r->mods = n;
	struct mod add = { m.load_bias + m.vaddr_lo, m.load_bias + m.vaddr_hi, m.load_bias,
			   (uint32_t)index };
	uint32_t k = 0, out = 0;
	for (uint32_t i = 0; i < r->nmods; i++) {
		if (n[i].hi <= add.lo || n[i].lo >= add.hi)
			n[out++] = n[i];
	}
	r->nmods = out;
	while (k < r->nmods && n[k].lo < add.lo)
		k++;
	memmove(n + k + 1, n + k, (r->nmods - k) * sizeof *n);
	n[k] = add;
	r->nmods++;
	return 0;
}

static const struct mod *module_of(const struct profev_recorder *r, uint64_t pc)
{
	uint32_t lo = 0, hi = r->nmods;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->mods[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nmods && pc >= r->mods[lo].lo ? &r->mods[lo] : NULL;
}

/*
 * The callstack at p (avail bytes) as a callstack id in *id (0 for an
 * empty stack). @return its size in bytes, 0 if incomplete, -1 if
 * malformed, -2 if the trace could not be written.
 */
static long stack(struct profev_recorder *r, const unsigned char *p, uint32_t avail, uint32_t *id)
{
	if (avail < 8)
		return 0;
	uint64_t head;
	memcpy(&head, p, 8);
	uint32_t n = (uint32_t)(head & 0xffff);
	if (n > PFW_MAX_FRAMES || (head >> 17))
		return -1;
	uint32_t size = pfw_stack_size(n);
	if (size > avail)
		return 0;
	*id = 0;
	if (!n)
		return size;
	struct profev_frame f[PFW_MAX_FRAMES];
	for (uint32_t i = 0; i < n; i++) {
		uint64_t pc;
		memcpy(&pc, p + 8 + 8 * i, 8);
		/* Every frame but an exact innermost one is a return address:
		 * the call it returns from is the byte before. */
		uint32_t flags = i == 0 && (head & PFW_STACK_EXACT) ? 0 : PROFEV_FRAMEF_RETURN;
		const struct mod *m = module_of(r, pc);
		if (m)
			f[i] = (struct profev_frame){ m->index, flags, pc - m->bias };
		else
			f[i] = (struct profev_frame){ 0, flags | PROFEV_FRAMEF_NOMODULE, pc };
	}
	if (!(*id = profev_writer_stack(r->w, f, n)))
		return writer_failed(r), -2;
	return size;
}

/*
 * Counters run between 10 kHz and 1 THz (an arm64 virtual counter at 1 MHz
 * is 0.001 ticks/ns, a TSC at 5 GHz 5): a rate outside [1e-4, 1e3] is not a
 * calibration but a corrupt or hostile client, and would make the tick's
 * length infinite or zero.
 */
static int plausible_rate(double ticks_per_ns)
{
	return ticks_per_ns >= 1e-4 && ticks_per_ns <= 1e3;
}

static void set_rate(struct profev_recorder *r, double ticks_per_ns)
{
	if (!plausible_rate(ticks_per_ns))
		return;
	r->ns_per_tick = 1.0 / ticks_per_ns;
	/* An integer multiply per event instead of two conversions and a
	 * double multiply, at the same precision. */
	double whole = r->ns_per_tick < 1e9 ? (double)(uint64_t)r->ns_per_tick : 1e9;
	r->ns_whole = (uint64_t)whole;
	r->ns_frac = (uint64_t)((r->ns_per_tick - whole) * 18446744073709551616.0);
}

static int meta_clock(struct profev_recorder *r)
{
	struct profev_meta m = { 0 };
	m.ticks_per_ns = 1.0 / r->ns_per_tick;
	m.tick_base = r->h.tick0;
	m.clock = r->h.clock == PFW_CLOCK_MONOTONIC ? "monotonic"
		  : r->h.clock == PFW_CLOCK_TSC ? "tsc" : "cntvct";
	if (r->clock_unreliable)
		m.clock = r->h.clock == PFW_CLOCK_TSC ? "tsc (unreliable calibration)"
						      : "cntvct (unreliable calibration)";
	if (profev_writer_meta(r->w, &m) < 0)
		return writer_failed(r);
	return 0;
}

static int on_hello(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	if (len < sizeof r->h)
		return -1;
	memcpy(&r->h, b, sizeof r->h);
	if (r->h.version != PFW_VERSION) {
		warn(r, "client speaks wire version %u, this pfrec %u", r->h.version, PFW_VERSION);
		return -1;
	}
	r->hello = 1;
	if (r->h.clock == PFW_CLOCK_MONOTONIC) {
		r->h.ticks_per_ns = 1.0; /* nanoseconds whatever the client says */
	} else if (!plausible_rate(r->h.ticks_per_ns)) {
		/* Until a SYNC point gives a plausible rate, a tick counts as a
		 * nanosecond: the order of events stays, their times do not. */
		warn(r, "the client's clock calibration (%g ticks/ns) is not plausible; its "
			"timestamps are unreliable", r->h.ticks_per_ns);
		r->clock_unreliable = 1;
		r->h.ticks_per_ns = 1.0;
	}
	set_rate(r, r->h.ticks_per_ns);
	return meta_clock(r);
}

static void on_sync(struct profev_recorder *r, const unsigned char *b, uint32_t len)
{
	struct pfw_sync s;
	if (len < sizeof s)
		return;
	memcpy(&s, b, sizeof s);
	/* The longest baseline gives the best rate; later timestamps keep the
	 * first point as origin so the conversion stays one line. */
	if (r->h.clock == PFW_CLOCK_MONOTONIC || s.mono <= r->h.mono0 + 10000000 || s.tick <= r->h.tick0)
		return;
	double rate = (double)(s.tick - r->h.tick0) / (double)(s.mono - r->h.mono0);
	if (!plausible_rate(rate))
		return; /* refused, like an implausible HELLO */
	set_rate(r, rate);
	if (r->clock_unreliable) {
		r->clock_unreliable = 0;
		warn(r, "a later calibration point gives %g ticks/ns; timestamps from then on "
			"are reliable", rate);
	}
}

/* ---- events ------------------------------------------------------------- */

/* A tick before tick0 (another CPU's counter may lag a little). */
static uint64_t early_tick_ns(const struct profev_recorder *r, uint64_t tick)
{
	int64_t d = (int64_t)(tick - r->h.tick0);
	int64_t ns = (int64_t)r->h.mono0 + (int64_t)((double)d * r->ns_per_tick);
	return ns < 0 ? 0 : (uint64_t)ns;
}

/* mono0 plus d ticks at ns_per_tick = whole + frac / 2^64. */
static inline uint64_t fixed_tick_ns(uint64_t d, uint64_t mono0, uint64_t whole, uint64_t frac)
{
	return mono0 + d * whole + (uint64_t)(((unsigned __int128)d * frac) >> 64);
}

static inline uint64_t tick_ns(struct profev_recorder *r, struct thr *t, uint64_t tick)
{
	uint64_t v = likely(tick >= r->h.tick0)
			     ? fixed_tick_ns(tick - r->h.tick0, r->h.mono0, r->ns_whole, r->ns_frac)
			     : early_tick_ns(r, tick);
	if (v < t->last_ns)
		v = t->last_ns;
	t->last_ns = v;
	return v;
}

/*
 * Frame number of an event: default frame marks before it. Threads arrive
 * in batches, so a mark may come after events it precedes; the latest
 * marks are kept to place those, a mark still in flight cannot be.
 */
static uint64_t frame_of(const struct profev_recorder *r, uint64_t ts)
{
	uint64_t n = r->marks;
	while (n > 0 && r->marks - n < 64 && r->mark_ts[(n - 1) % 64] >= ts)
		n--;
	return n;
}

static int put(struct profev_recorder *r, struct profev_event *ev)
{
	if (ev->type != PROFEV_EV_MEM_ALLOC && ev->type != PROFEV_EV_MEM_FREE &&
	    ev->type != PROFEV_EV_FRAME_IMAGE)
		ev->frame = frame_of(r, ev->ts);
	if (ev->type == PROFEV_EV_FRAME_MARK && ev->name == 0)
		r->mark_ts[r->marks++ % 64] = ev->ts;
	if (profev_writer_event(r->w, ev) < 0)
		return writer_failed(r);
	r->events++;
	return 0;
}

static uint32_t fixed_records(struct profev_recorder *r, const unsigned char *p, uint32_t avail);

/*
 * Decode the record at p (avail bytes available, all of this message).
 * @return its size, 0 if it is not complete yet, -1 if it is malformed.
 */
static long record(struct profev_recorder *r, const unsigned char *p, uint32_t avail)
{
	if (avail < PFW_REC_HEAD)
		return 0;
	uint64_t tick, word;
	memcpy(&tick, p, 8);
	memcpy(&word, p + 8, 8);
	unsigned type = word & 0xff, cat = (word >> 16) & 0xffff;
	uint32_t arg = (uint32_t)(word >> 32);
	struct thr *t = r->cur;
	struct profev_event ev;
	memset(&ev, 0, sizeof ev);
	ev.tid = t->tid;

	switch (type) {
	case PFW_R_PAD:
		if (arg < PFW_REC_HEAD || arg % 16)
			return -1;
		return arg <= avail ? (long)arg : 0;
	case PFW_R_ZONE_BEGIN:
	case PFW_R_ZONE_END:
	case PFW_R_INSTANT: {
		/* Callers try fixed_records() first; this keeps one way of
		 * decoding them should one not. */
		uint32_t n = fixed_records(r, p, avail);
		return r->bad ? -2 : (long)n;
	}
	case PFW_R_FRAME_MARK:
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_FRAME_MARK;
		ev.name = arg ? map_string(r, arg) : 0;
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_COUNTER:
	case PFW_R_LOST: {
		if (avail < PFW_REC_LONG)
			return 0;
		uint64_t extra;
		memcpy(&extra, p + 16, 8);
		ev.ts = tick_ns(r, t, tick);
		if (type == PFW_R_COUNTER) {
			double v;
			memcpy(&v, &extra, 8);
			ev.type = PROFEV_EV_COUNTER;
			ev.name = map_string(r, arg);
			profev_event_set_double(&ev, v);
		} else {
			ev.type = PROFEV_EV_LOST;
			ev.payload = extra;
			r->lost += extra;
		}
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_FRAME_IMAGE:
	case PFW_R_IMAGE_LOST: {
		if (avail < PFW_REC_LONG)
			return 0;
		uint64_t size, extra;
		memcpy(&size, p + 16, 8);
		memcpy(&extra, p + 24, 8);
		if (type == PFW_R_IMAGE_LOST) {
			r->img.lost += size;
			r->img.refused += extra;
			return PFW_REC_LONG;
		}
		/* The image shows frame (frames so far - offset). */
		ev.ts = tick_ns(r, t, tick);
		uint64_t frame = frame_of(r, ev.ts);
		frame = extra < frame ? frame - extra : 0;
		uint32_t id;
		int rc = rec_image(&r->img, r->w, arg, (uint32_t)size, (uint32_t)(size >> 32),
				   (int)((word >> 8) & PFW_RF_FLIP), ev.ts, frame, &id);
		if (rc < 0)
			return writer_failed(r), -2;
		if (rc == 0)
			return PFW_REC_LONG;
		ev.type = PROFEV_EV_FRAME_IMAGE;
		ev.frame = frame;
		ev.payload = id;
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_MEM_ALLOC:
	case PFW_R_MEM_FREE:
	case PFW_R_MEM_ALLOC_S:
	case PFW_R_MEM_FREE_S: {
		if (avail < PFW_REC_LONG)
			return 0;
		long size = PFW_REC_LONG;
		if (type >= PFW_R_MEM_ALLOC_S) {
			long k = stack(r, p + PFW_REC_LONG, avail - PFW_REC_LONG, &ev.stack);
			if (k <= 0)
				return k;
			size += k;
		}
		ev.ts = tick_ns(r, t, tick);
		ev.type = type == PFW_R_MEM_ALLOC || type == PFW_R_MEM_ALLOC_S ? PROFEV_EV_MEM_ALLOC
										: PROFEV_EV_MEM_FREE;
		memcpy(&ev.addr, p + 16, 8);
		if (ev.type == PROFEV_EV_MEM_ALLOC)
			memcpy(&ev.payload, p + 24, 8);
		ev.name = arg ? map_string(r, arg) : 0;
		if ((word >> 8) & PFW_RF_SECURE)
			ev.flags = PROFEV_EVF_SECURE;
		return put(r, &ev) < 0 ? -2 : size;
	}
	case PFW_R_ZONE_BEGIN_S: {
		long k = stack(r, p + PFW_REC_HEAD, avail - PFW_REC_HEAD, &ev.stack);
		if (k <= 0)
			return k;
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_ZONE_BEGIN;
		ev.name = map_string(r, arg);
		ev.payload = map_cat(r, cat);
		zone_push(t, ev.name);
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD + k;
	}
	case PFW_R_ARG:
	case PFW_R_FLOW_OUT:
	case PFW_R_FLOW_IN:
		/* No time: the value stands where ts would; the event belongs to
		 * the zone open before it, or (PFW_RF_POINT) to the instant or
		 * message after it. */
		if (!t->depth && !(type == PFW_R_ARG && (word >> 8) & PFW_RF_POINT)) {
			r->dropped_args++;
			return PFW_REC_HEAD;
		}
		ev.ts = t->last_ns;
		ev.payload = tick;
		if (type == PFW_R_ARG) {
			unsigned kind = (word >> 8) & 0xff & ~PFW_RF_POINT;
			if (kind > PFW_AK_PTR)
				return -1;
			ev.type = (word >> 8) & PFW_RF_POINT ? PROFEV_EV_POINT_ARG : PROFEV_EV_ARG;
			ev.name = map_string(r, arg);
			ev.flags = (uint8_t)(kind << 3);
			if (kind == PFW_AK_DOUBLE)
				ev.flags |= PROFEV_EVF_DOUBLE;
		} else {
			ev.type = type == PFW_R_FLOW_OUT ? PROFEV_EV_FLOW_OUT : PROFEV_EV_FLOW_IN;
		}
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_ARG_STR: {
		if (tick > PFW_MAX_ARG_STR)
			return -1;
		uint32_t size = pfw_var_size((uint32_t)tick);
		if (size > avail)
			return 0;
		int point = (word >> 8) & PFW_RF_POINT;
		if (!t->depth && !point) {
			r->dropped_args++;
			return size;
		}
		uint32_t id = profev_writer_string(r->w, (const char *)p + PFW_REC_HEAD, (size_t)tick);
		if (!id)
			return writer_failed(r), -2;
		ev.ts = t->last_ns;
		ev.type = point ? PROFEV_EV_POINT_ARG : PROFEV_EV_ARG;
		ev.name = map_string(r, arg);
		ev.payload = id;
		ev.flags = PROFEV_AK_STR << 3;
		if ((word >> 8) & PFW_RF_TRUNCATED)
			ev.flags |= PROFEV_EVF_TRUNCATED;
		return put(r, &ev) < 0 ? -2 : (long)size;
	}
	case PFW_R_ASYNC_BEGIN:
	case PFW_R_ASYNC_END:
	case PFW_R_LOCK_WAIT:
	case PFW_R_LOCK_ACQUIRED:
	case PFW_R_LOCK_RELEASED: {
		static const uint8_t types[] = { PROFEV_EV_ASYNC_BEGIN, PROFEV_EV_ASYNC_END,
						 PROFEV_EV_LOCK_WAIT, PROFEV_EV_LOCK_ACQUIRED,
						 PROFEV_EV_LOCK_RELEASED };
		if (avail < PFW_REC_LONG)
			return 0;
		ev.ts = tick_ns(r, t, tick);
		ev.type = types[type - PFW_R_ASYNC_BEGIN];
		ev.name = arg ? map_string(r, arg) : 0;
		memcpy(&ev.payload, p + 16, 8);
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_LONG;
	}
	case PFW_R_FRAME_START:
	case PFW_R_FRAME_END:
		ev.ts = tick_ns(r, t, tick);
		ev.type = type == PFW_R_FRAME_START ? PROFEV_EV_FRAME_START : PROFEV_EV_FRAME_END;
		ev.name = map_string(r, arg);
		return put(r, &ev) < 0 ? -2 : (long)PFW_REC_HEAD;
	case PFW_R_MESSAGE_AT: {
		if (arg > PFW_MAX_TEXT)
			return -1;
		uint32_t size = PFW_REC_HEAD + pfw_var_size(arg);
		if (size > avail)
			return 0;
		uint64_t site;
		memcpy(&site, p + 16, 8);
		ev.ts = tick_ns(r, t, tick);
		ev.type = PROFEV_EV_MESSAGE;
		ev.name = site <= UINT32_MAX ? map_string(r, (uint32_t)site) : 0;
		ev.payload = map_cat(r, cat);
		ev.frame = frame_of(r, ev.ts);
		if (profev_writer_message(r->w, &ev, (const char *)p + PFW_REC_LONG, arg) < 0)
			return writer_failed(r), -2;
		r->events++;
		return size;
	}
	case PFW_R_MESSAGE:
	case PFW_R_THREAD_NAME:
	case PFW_R_ZONE_DYN: {
		if (arg > PFW_MAX_TEXT)
			return -1;
		uint32_t size = pfw_var_size(arg);
		if (size > avail)
			return 0;
		const char *text = (const char *)p + PFW_REC_HEAD;
		ev.ts = tick_ns(r, t, tick);
		if (type == PFW_R_MESSAGE) {
			ev.type = PROFEV_EV_MESSAGE;
			ev.payload = map_cat(r, cat);
			ev.frame = frame_of(r, ev.ts);
			if (profev_writer_message(r->w, &ev, text, arg) < 0)
				return writer_failed(r), -2;
			r->events++;
			return size;
		}
		uint32_t id = name_id(r, text, arg);
		if (!id)
			return writer_failed(r), -2;
		if (type == PFW_R_THREAD_NAME) {
			if (!thread_get(r, t->tid, text, arg))
				return -2;
			ev.type = PROFEV_EV_THREAD_NAME;
		} else {
			ev.type = PROFEV_EV_ZONE_BEGIN;
			ev.payload = map_cat(r, cat);
			zone_push(t, id);
		}
		ev.name = id;
		return put(r, &ev) < 0 ? -2 : (long)size;
	}
	default:
		return -1;
	}
}

/*
 * Records of the current thread in [p, p + len), a whole number of them:
 * a ring's records never cross its end. 0, or -1 (stream marked bad).
 */
static int records(struct profev_recorder *r, const unsigned char *p, uint32_t len)
{
	uint32_t off = 0;
	while (off < len && !r->bad) {
		off += fixed_records(r, p + off, len - off);
		if (off == len || r->bad)
			break;
		long n = record(r, p + off, len - off);
		if (n <= 0) {
			if (n != -2)
				stream_corrupt(r, n == 0 ? "record crosses the end of its ring"
							 : "malformed event record");
			return -1;
		}
		off += (uint32_t)n;
	}
	return r->bad ? -1 : 0;
}

/* PFW_RING: map the thread's ring from the shared file. */
static int ring_map(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	struct pfw_ring m;
	struct stat st;
	if (r->shm_fd < 0 || h->len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.offset % PFW_RING_CTL || m.size < (16u << 10) || m.size > (64u << 20) ||
	    (m.size & (m.size - 1)) || fstat(r->shm_fd, &st) < 0 ||
	    m.offset + PFW_RING_CTL + m.size > (uint64_t)st.st_size)
		return -1;
	struct thr *t = thread_get(r, h->tid, NULL, 0);
	if (!t)
		return -1;
	ring_unmap(t);
	void *p = mmap(NULL, PFW_RING_CTL + (size_t)m.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->shm_fd, (off_t)m.offset);
	if (p == MAP_FAILED)
		return -1;
	t->ring_map = p;
	t->ring_size = m.size;
	t->ring_base = m.base;
	t->ring_read = 0;
	return 0;
}

/* Records of t's ring from where we stopped up to pos, which is valid.
 * 0, or -1 (stream marked bad). */
static int ring_consume(struct profev_recorder *r, struct thr *t, uint32_t pos)
{
	const unsigned char *ring = t->ring_map + PFW_RING_CTL;
	uint32_t from = t->ring_read;
	r->cur = t;
	if (pos < from) {
		if (records(r, ring + from, t->ring_size - from) < 0)
			return -1;
		r->ring_bytes += t->ring_size - from;
		from = 0;
	}
	if (records(r, ring + from, pos - from) < 0)
		return -1;
	r->ring_bytes += pos - from;
	t->ring_read = pos;
	pfw_ring_consumed((struct pfw_ring_ctl *)(void *)t->ring_map, pos);
	return 0;
}

/*
 * The stream has ended: keep what threads published in their shared rings
 * after the last PFW_RING_DATA, which is all a SIGKILL leaves. Names that
 * the program first used in those last moments may never have been sent:
 * their events stay, unnamed.
 */
static void rings_drain(struct profev_recorder *r)
{
	for (uint32_t i = 0; i < r->nthr && !r->bad; i++) {
		struct thr *t = r->thr[i].t;
		if (!t || !t->ring_map)
			continue;
		uint64_t end = __atomic_load_n((uint64_t *)(void *)(t->ring_map + PFW_RING_POS),
					       __ATOMIC_ACQUIRE);
		uint64_t pos = end - t->ring_base;
		if (end < t->ring_base || pos > t->ring_size || pos % 16 || pos == t->ring_read)
			continue;
		ring_consume(r, t, (uint32_t)pos);
	}
}

/* PFW_RING_DATA: the thread's records from where we stopped up to pos. */
static int ring_data(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	struct pfw_ring_data d;
	struct thr *t = thread_find(r, h->tid);
	if (!t || !t->ring_map || h->len < sizeof d)
		return -1;
	memcpy(&d, b, sizeof d);
	if (d.pos > t->ring_size || d.pos % 16)
		return -1;
	return ring_consume(r, t, d.pos) < 0 ? -2 : 0;
}

/*
 * Events the client dropped that no LOST record in a ring places: those of
 * threads whose ring was still full when they ended or when the program
 * exited (a pfrec that read nothing meanwhile). They are placed at the end,
 * on the program's main thread, after every event read so far, so that the
 * trace marks them as it marks the others.
 */
static int bye_lost(struct profev_recorder *r, uint64_t lost)
{
	if (!lost)
		return 0;
	r->lost += lost;
	uint64_t ts = r->exited_ns;
	for (uint32_t i = 0; i < r->nthr; i++)
		if (r->thr[i].t && r->thr[i].t->last_ns > ts)
			ts = r->thr[i].t->last_ns;
	struct thr *t = thread_find(r, r->h.pid);
	if (t && t->last_ns < ts)
		t->last_ns = ts;
	struct profev_event ev = { 0 };
	ev.ts = ts;
	ev.tid = r->h.pid;
	ev.type = PROFEV_EV_LOST;
	ev.payload = lost;
	return put(r, &ev) < 0 ? -2 : 0;
}

/* A whole non-EVENTS message. */
static int message(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	if (!r->hello && h->type != PFW_HELLO)
		return -1;
	switch (h->type) {
	case PFW_HELLO:
		return on_hello(r, b, h->len);
	case PFW_SITE:
		return def_site(r, b, h->len);
	case PFW_STRING:
		if (h->len < 4)
			return -1;
		uint32_t id;
		memcpy(&id, b, 4);
		return def_string(r, id, (const char *)b + 4, h->len - 4);
	case PFW_CATEGORY:
		return def_category(r, b, h->len);
	case PFW_THREAD:
		if (h->len > PFW_MAX_TEXT)
			return -1;
		return thread_get(r, h->tid, (const char *)b, h->len) ? 0 : -1;
	case PFW_SYNC:
		on_sync(r, b, h->len);
		return 0;
	case PFW_THREAD_EXIT:
		thread_exit(r, h->tid);
		return 0;
	case PFW_MODULE:
		return def_module(r, b, h->len);
	case PFW_RING:
		return ring_map(r, h, b);
	case PFW_RING_DATA:
		return ring_data(r, h, b);
	case PFW_IMAGES:
		return rec_images_map(&r->img, r->shm_fd, b, h->len);
	case PFW_BYE:
		if (h->len >= sizeof(struct pfw_bye)) {
			struct pfw_bye bye;
			memcpy(&bye, b, sizeof bye);
			return bye_lost(r, bye.lost);
		}
		return 0;
	default:
		return 0; /* unknown messages are skipped: newer clients may add some */
	}
}

/*
 * The records a tight loop produces (zones, instants, default frame marks),
 * as many as follow each other in [p, p + avail): @return bytes decoded.
 * Everything else goes through record().
 */
static uint32_t fixed_records(struct profev_recorder *r, const unsigned char *p, uint32_t avail)
{
	struct thr *t = r->cur;
	struct plain_event ev[FIXED_BATCH];
	/* What the loop reads lives in locals: its stores could alias it. */
	const uint64_t tick0 = r->h.tick0, mono0 = r->h.mono0;
	const uint64_t whole = r->ns_whole, frac = r->ns_frac, marks = r->marks;
	const uint64_t last_mark = marks ? r->mark_ts[(marks - 1) % 64] : 0;
	const uint32_t *strings = r->strings, *cats = r->cats;
	const uint32_t nstrings = r->nstrings, ncats = r->ncats;
	uint32_t *stack = t->stack, scap = t->stack_cap;
	uint64_t last = t->last_ns, frame = marks;
	uint32_t depth = t->depth, off = 0;
	for (int more = 1; more;) {
		uint64_t next_frame = frame;
		uint32_t room = (avail - off) / PFW_REC_HEAD;
		const unsigned char *rec = p + off;
		const unsigned char *end = rec + PFW_REC_HEAD * (room < FIXED_BATCH ? room : FIXED_BATCH);
		struct plain_event *e = ev;
		for (; rec < end; rec += PFW_REC_HEAD, e++) {
			uint64_t tick, word;
			memcpy(&tick, rec, 8);
			memcpy(&word, rec + 8, 8);
			const unsigned type = word & 0xff, cat = (word >> 16) & 0xffff;
			const uint32_t arg = (uint32_t)(word >> 32);
			if (type - PFW_R_ZONE_BEGIN > PFW_R_INSTANT - PFW_R_ZONE_BEGIN || type == PFW_R_COUNTER)
				break;
			uint64_t ts = likely(tick >= tick0) ? fixed_tick_ns(tick - tick0, mono0, whole, frac)
							    : early_tick_ns(r, tick);
			ts = ts < last ? last : ts;
			/* Events before the latest default frame mark belong to an
			 * earlier frame: they end the batch, which has one frame. */
			if (unlikely(marks && ts <= last_mark)) {
				next_frame = frame_of(r, ts);
				if (next_frame != frame)
					break;
			} else if (unlikely(frame != marks)) {
				next_frame = marks;
				break;
			}
			last = ts;
			uint32_t name = arg < nstrings ? strings[arg] : 0;
			if (type == PFW_R_ZONE_BEGIN) {
				if (unlikely(depth >= scap) && depth < MAX_DEPTH) {
					stack_grow(t);
					stack = t->stack;
					scap = t->stack_cap;
				}
				if (depth++ < scap)
					stack[depth - 1] = name;
			} else if (type == PFW_R_ZONE_END && depth) {
				if (depth-- <= scap && !arg)
					name = stack[depth];
			}
			*e = (struct plain_event){ ts, name, cat < ncats ? cats[cat] : 0, type, 0 };
		}
		uint32_t n = (uint32_t)(e - ev);
		off += n * PFW_REC_HEAD;
		more = n == FIXED_BATCH || next_frame != frame;
		if (n && writer_add_plain(r->w, t->tid, frame, ev, n) < 0) {
			writer_failed(r);
			break;
		}
		r->events += n;
		frame = next_frame;
	}
	t->last_ns = last;
	t->depth = depth;
	return off;
}

/* Decode what buf holds; leaves an incomplete message or record in it. */
static void decode(struct profev_recorder *r)
{
	while (!r->bad) {
		size_t avail = r->len - r->off;
		unsigned char *p = r->buf + r->off;
		if (r->in_events) {
			if (r->body_left == 0) {
				r->in_events = 0;
				continue;
			}
			uint32_t a = avail < r->body_left ? (uint32_t)avail : r->body_left;
			uint32_t fast = fixed_records(r, p, a);
			if (fast) {
				r->off += fast;
				r->body_left -= fast;
				continue;
			}
			if (r->bad)
				break;
			long n = record(r, p, a);
			if (n == 0) {
				if (a == r->body_left)
					stream_corrupt(r, "record crosses the end of its message");
				break;
			}
			if (n < 0) {
				if (n == -1)
					stream_corrupt(r, "malformed event record");
				break;
			}
			r->off += (size_t)n;
			r->body_left -= (uint32_t)n;
			continue;
		}
		if (avail < sizeof(struct pfw_header))
			break;
		struct pfw_header h;
		memcpy(&h, p, sizeof h);
		if (h.magic != PFW_MAGIC || h.len > PFW_MAX_BODY) {
			stream_corrupt(r, "bad message header");
			break;
		}
		if (h.type == PFW_EVENTS) {
			if (!r->hello || h.len % 16) {
				stream_corrupt(r, "events before the client's hello");
				break;
			}
			r->cur = thread_find(r, h.tid);
			if (!r->cur && !(r->cur = thread_get(r, h.tid, NULL, 0)))
				break;
			r->off += sizeof h;
			r->in_events = 1;
			r->body_left = h.len;
			continue;
		}
		if (h.len > MAX_DEF_BODY) {
			stream_corrupt(r, "message too long");
			break;
		}
		if (avail < sizeof h + h.len)
			break;
		int rc = message(r, &h, p + sizeof h);
		if (rc < 0) {
			if (rc == -1)
				stream_corrupt(r, "malformed message");
			break;
		}
		r->off += sizeof h + h.len;
	}
}

/* ---- the program -------------------------------------------------------- */

static void child_exec(const struct profev_record_opts *o, int wfd, int shm_fd, int errfd,
		       int gofd)
{
	char num[16];
	/* pfrec opens the perf events on this process before it lets it exec:
	 * they start at exec. */
	if (gofd >= 0) {
		char c;
		while (read(gofd, &c, 1) < 0 && errno == EINTR)
			;
		close(gofd);
	}
	/* dup() gives a descriptor without close-on-exec: the one the program gets. */
	int fd = dup(wfd);
	int shm = shm_fd >= 0 ? dup(shm_fd) : -1;
	if (shm >= 0) {
		snprintf(num, sizeof num, "%d", shm);
		setenv("PROFEV_SHM", num, 1);
	}
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (fd >= 0) {
		snprintf(num, sizeof num, "%d", fd);
		setenv("PROFEV_FD", num, 1);
	}
	if (o->categories)
		setenv("PROFEV_CATEGORIES", o->categories, 1);
	if (o->drop)
		setenv("PROFEV_DROP", "1", 1);
	if (o->buffer_bytes) {
		snprintf(num, sizeof num, "%u", o->buffer_bytes);
		setenv("PROFEV_BUFFER", num, 1);
	}
	if (o->child_stdout >= 0 && o->child_stdout != STDOUT_FILENO)
		dup2(o->child_stdout, STDOUT_FILENO);
	execvp(o->argv[0], o->argv);
	int e = errno;
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/*
 * The memory file the client puts its rings in, so that records are read
 * where they were written instead of being copied through the pipe twice.
 * It may grow but never shrink: a shrink would fault our mappings. -1 when
 * the system has no memfd; the client then sends records down the pipe.
 */
static int shared_file(void)
{
#ifdef MFD_ALLOW_SEALING
	int fd = memfd_create("profev-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
#else
	return -1;
#endif
}

/* ---- the kernel's samples and switches (perf_sample.c) ---------------- */

static int sampler_emit(void *ctx, struct profev_event *ev)
{
	return put(ctx, ev);
}

/* A thread the kernel saw: named with its comm unless the client told us
 * about it (its name, or none, is the program's choice). */
static void sampler_thread(void *ctx, uint32_t tid, uint32_t pid, const char *comm)
{
	struct profev_recorder *r = ctx;
	if (!thread_find(r, tid) && profev_writer_thread(r->w, tid, pid, comm) < 0)
		writer_failed(r);
}

static void sampler_start(struct profev_recorder *r)
{
	struct perf_sample_opts so = { r->o.sample_hz, r->o.sched, r->o.sample_ring_bytes,
				       r->o.sample_stack_bytes, r->o.sample_fp_chain };
	struct perf_sample_host host = { r->w, sampler_emit, sampler_thread, r };
	char why[200];
	r->sampler = perf_sampler_open(r->pid, &so, &host, why, sizeof why);
	if (!r->sampler) {
		warn(r, "perf_event_open refused: %s; recording without %s", why,
		     r->o.sample_hz && r->o.sched ? "samples and context switches"
		     : r->o.sample_hz ? "samples" : "context switches");
		return;
	}
	uint32_t asked, got = perf_sampler_ring_bytes(r->sampler, &asked);
	if (got < asked)
		warn(r, "sample rings of %u KiB per CPU are past the locked-memory limit "
		     "(perf_event_mlock_kb, ulimit -l); took %u KiB, which may lose samples",
		     asked >> 10, got >> 10);
}

static int start_meta(struct profev_recorder *r)
{
	char host[256] = "";
	gethostname(host, sizeof host - 1);
	uint32_t argc = 0;
	while (r->o.argv[argc])
		argc++;
	struct profev_meta m = { 0 };
	m.program = r->o.argv[0];
	m.argv = (const char *const *)r->o.argv;
	m.argc = argc;
	m.pid = (uint32_t)(r->pid > 0 ? r->pid : 0);
	m.host = host;
	m.wall_start_ns = (int64_t)now_ns(CLOCK_REALTIME);
	m.mono_start_ns = r->mono_start;
	m.recorder = "pfrec " PROFEV_VERSION_STRING;
	return profev_writer_meta(r->w, &m);
}

struct profev_recorder *profev_recorder_start(const struct profev_record_opts *o,
					      struct profev_error *err)
{
	struct profev_error dummy;
	if (!err)
		err = &dummy;
	if (!o || !o->argv || !o->argv[0] || o->out_fd < 0) {
		err_set(err, PROFEV_E_ARG, "no program to record");
		return NULL;
	}
	struct profev_recorder *r = calloc(1, sizeof *r);
	if (!r || !(r->buf = malloc(READ_BUF))) {
		free(r);
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		return NULL;
	}
	r->o = *o;
	r->rfd = r->pidfd = r->shm_fd = -1;
	set_rate(r, 1.0);
	if (tid_index_init(&r->thr_index)) {
		err_set(err, PROFEV_E_NOMEM, "out of memory");
		goto fail;
	}
	/* Chunks are compressed and written beside the thread that decodes the
	 * stream, on the core the program leaves free when it waits for room. */
	struct profev_writer_opts wo = { o->zstd_level, 0, 1 };
	if (!(r->w = profev_writer_new(o->out_fd, &wo, err)))
		goto fail;

	int data[2], errp[2];
	if (pipe2(data, O_CLOEXEC) < 0) {
		err_set(err, PROFEV_E_IO, "unable to create a pipe: %s", strerror(errno));
		goto fail;
	}
	if (pipe2(errp, O_CLOEXEC) < 0) {
		err_set(err, PROFEV_E_IO, "unable to create a pipe: %s", strerror(errno));
		close(data[0]);
		close(data[1]);
		goto fail;
	}
	/* A larger pipe lets the flush thread hand over more per wakeup. */
	fcntl(data[0], F_SETPIPE_SZ, 1 << 20);
	if (!o->pipe_only)
		r->shm_fd = shared_file();
	int go[2] = { -1, -1 };
	if ((o->sample_hz || o->sched) && pipe2(go, O_CLOEXEC) < 0)
		go[0] = go[1] = -1;
	r->mono_start = now_ns(CLOCK_MONOTONIC);
	r->pid = fork();
	if (r->pid == 0) {
		close(data[0]);
		close(errp[0]);
		if (go[1] >= 0)
			close(go[1]);
		child_exec(o, data[1], r->shm_fd, errp[1], go[0]);
	}
	int fork_errno = errno;
	close(data[1]);
	close(errp[1]);
	if (go[0] >= 0)
		close(go[0]);
	if (r->pid > 0 && (o->sample_hz || o->sched))
		sampler_start(r);
	if (go[1] >= 0)
		close(go[1]); /* the program may exec now */
	r->rfd = data[0];
	if (r->pid < 0) {
		close(errp[0]);
		err_set(err, PROFEV_E_IO, "unable to start a process: %s", strerror(fork_errno));
		goto fail;
	}
	int e;
	ssize_t n;
	while ((n = read(errp[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(errp[0]);
	if (n == (ssize_t)sizeof e) {
		r->nostart_errno = e;
		waitpid(r->pid, NULL, 0);
		r->pid = 0;
		r->reaped = 1;
	}
#ifdef SYS_pidfd_open
	if (r->pid > 0)
		r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
#endif
	if (start_meta(r) < 0) {
		*err = *profev_writer_error(r->w);
		profev_recorder_signal(r, SIGKILL);
		if (r->pid > 0)
			waitpid(r->pid, NULL, 0);
		goto fail;
	}
	return r;
fail:
	profev_recorder_free(r);
	return NULL;
}

int profev_recorder_pid(const struct profev_recorder *r)
{
	return r && !r->reaped ? r->pid : 0;
}

void profev_recorder_signal(struct profev_recorder *r, int sig)
{
	if (r && r->pid > 0 && !r->reaped)
		kill(r->pid, sig);
}

const struct profev_error *profev_recorder_error(const struct profev_recorder *r)
{
	return &r->err;
}

static void fill_stats(struct profev_recorder *r, struct profev_record_stats *s)
{
	struct profev_totals t;
	profev_writer_totals(r->w, &t);
	s->events = r->events;
	s->bytes = t.bytes;
	s->wire_bytes = r->wire_off + r->off + r->ring_bytes;
	s->lost = r->lost;
	s->elapsed_ns = now_ns(CLOCK_MONOTONIC) - r->mono_start;
	s->threads = r->threads_seen;
	if (r->sampler) {
		struct perf_sample_counts c;
		perf_sampler_counts(r->sampler, &c);
		s->samples = c.samples;
		s->switches = c.switches;
		s->lost_samples = c.lost;
	}
}

static int try_reap(struct profev_recorder *r, int block)
{
	if (r->reaped)
		return 1;
	pid_t p;
	while ((p = waitpid(r->pid, &r->status, block ? 0 : WNOHANG)) < 0 && errno == EINTR)
		;
	if (p == r->pid || (p < 0 && errno == ECHILD)) {
		r->reaped = 1;
		return 1;
	}
	return 0;
}

/*
 * pfrec reads no more (the trace cannot be written, or the stream is
 * corrupt): tell the client to stop recording rather than let its threads
 * wait for room in rings nobody reads. Each shared ring says so in its
 * control page; closing the pipe tells the flush thread (EPIPE) and any
 * thread that starts later. The program runs on, unrecorded; its status is
 * still collected.
 */
static void release_client(struct profev_recorder *r)
{
	for (uint32_t i = 0; i < r->nthr; i++)
		if (r->thr[i].t && r->thr[i].t->ring_map)
			pfw_ring_stop((struct pfw_ring_ctl *)(void *)r->thr[i].t->ring_map);
	if (r->img.ctl)
		pfw_images_stop(r->img.ctl);
	if (r->rfd >= 0)
		close(r->rfd);
	r->rfd = -1;
	if (r->hello && !r->reaped)
		warn(r, "stopped recording; the program runs on unrecorded");
}

/* Read what the pipe has; 0 at EOF, 1 if data or nothing yet. */
static int read_some(struct profev_recorder *r)
{
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->wire_off += r->off;
		r->off = 0;
	}
	if (r->bad || r->len == READ_BUF) {
		/* A full buffer holds no complete message: only a bad stream does that. */
		if (!r->bad)
			stream_corrupt(r, "message larger than the read buffer");
		r->wire_off += r->len;
		r->len = 0;
	}
	ssize_t n = read(r->rfd, r->buf + r->len, READ_BUF - r->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	r->len += (size_t)n;
	decode(r);
	return 1;
}

int profev_recorder_run(struct profev_recorder *r, struct profev_record_result *res)
{
	memset(res, 0, sizeof *res);
	uint64_t next_progress = now_ns(CLOCK_MONOTONIC) + r->o.progress_ns;
	uint64_t exited_at = 0;
	while (r->rfd >= 0) {
		struct pollfd p[2 + 256] = { { r->rfd, POLLIN, 0 }, { r->pidfd, POLLIN, 0 } };
		int np = r->pidfd >= 0 && !r->reaped ? 2 : 1;
		int timeout = r->o.progress_ns ? (int)(r->o.progress_ns / 1000000) + 1 : 1000;
		if (r->reaped || r->pidfd < 0)
			timeout = 20;
		int nperf = 0;
		if (r->sampler) {
			/* The pollfds after the two: the rings, woken when a
			 * quarter full; the timeout hands held events over. */
			nperf = perf_sampler_pollfds(r->sampler, p + 2, 256);
			if (np == 1)
				p[1].fd = -1;
			if (timeout > 50)
				timeout = 50;
		}
		int k = poll(p, (nfds_t)(nperf ? 2 + nperf : np), timeout);
		if (k < 0 && errno != EINTR)
			break;
		if (r->sampler && !r->bad && perf_sampler_drain(r->sampler, 0) < 0)
			writer_failed(r);
		if (k > 0 && p[0].revents) {
			if (!read_some(r)) {
				close(r->rfd);
				r->rfd = -1;
			} else if (r->bad) {
				release_client(r);
			}
		}
		if ((np == 2 && p[1].revents) || r->pidfd < 0)
			try_reap(r, 0);
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		if (r->reaped && r->rfd >= 0) {
			/* The program is gone but something it started holds the
			 * pipe; do not wait for that process. */
			if (!exited_at)
				exited_at = now;
			if (k > 0 && p[0].revents)
				exited_at = now;
			else if (now - exited_at > LINGER_NS) {
				warn(r, "a process started by the program still holds the trace "
					"stream; stopped reading it");
				close(r->rfd);
				r->rfd = -1;
			}
		}
		if (r->o.progress && r->o.progress_ns && now >= next_progress) {
			fill_stats(r, &res->stats);
			r->o.progress(r->o.ctx, &res->stats);
			next_progress = now + r->o.progress_ns;
		}
	}
	if (r->in_events && r->body_left && !r->bad)
		warn(r, "client stream ends inside a message; its last %u bytes are lost",
		     r->body_left);
	rings_drain(r);
	try_reap(r, 1);
	if (r->sampler && !r->err.code && perf_sampler_drain(r->sampler, 1) < 0)
		writer_failed(r);

	struct profev_meta m = { 0 };
	if (r->nostart_errno) {
		res->exit_kind = PROFEV_EXIT_NOSTART;
		res->exit_code = r->nostart_errno;
		res->status = r->nostart_errno == ENOENT ? 127 : 126;
	} else if (WIFSIGNALED(r->status)) {
		res->exit_kind = PROFEV_EXIT_SIGNALED;
		res->exit_code = WTERMSIG(r->status);
		res->status = 128 + res->exit_code;
	} else {
		res->exit_kind = PROFEV_EXIT_EXITED;
		res->exit_code = WEXITSTATUS(r->status);
		res->status = res->exit_code;
	}
	res->client = r->hello;
	res->sampled = r->sampler != NULL;
	m.exit_kind = res->exit_kind;
	m.exit_code = res->exit_code;
	m.end_ns = now_ns(CLOCK_MONOTONIC);
	m.lost_events = r->lost;
	m.dropped_args = r->dropped_args;
	m.lost_images = r->img.lost;
	m.refused_images = r->img.refused;
	if (r->hello) {
		m.ticks_per_ns = 1.0 / r->ns_per_tick;
		m.tick_base = r->h.tick0;
	}
	int rc = r->err.code ? r->err.code : 0;
	if (!rc && (profev_writer_meta(r->w, &m) < 0 || profev_writer_close(r->w) < 0)) {
		writer_failed(r);
		rc = r->err.code;
	}
	fill_stats(r, &res->stats);
	return rc;
}

void profev_recorder_free(struct profev_recorder *r)
{
	if (!r)
		return;
	profev_writer_free(r->w);
	perf_sampler_free(r->sampler);
	if (r->rfd >= 0)
		close(r->rfd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	for (uint32_t i = 0; i < r->nthr; i++)
		thread_free(r->thr[i].t);
	free(r->thr);
	tid_index_free(&r->thr_index);
	if (r->shm_fd >= 0)
		close(r->shm_fd);
	free(r->strings);
	free(r->cats);
	free(r->mods);
	free(r->buf);
	rec_images_free(&r->img);
	free(r);
}
