/*
 * pfrec's engine (lib/rec), shared by its files: the recorder's state and
 * the functions one file calls in another. The calls run one way:
 *
 *   recorder.c      start, the poll loop, the end, the sampler's host
 *   child.c         the program: fork, exec, its pipe and shared file
 *   attach.c        or a running program's socket (--attach), --list
 *   messages.c      the pipe's stream: messages, and EVENTS bodies
 *   window.c        an attached recording's start and end as events
 *   shared_rings.c  the threads' rings in the shared file
 *   decode.c        event records into trace events
 *   gpu.c           GPU contexts, calibrations and zones
 *   definitions.c   strings, sites, categories and modules
 *   clock.c         the client's clock and its calibration
 *   threads.c       the thread table and each thread's open zones
 *   failures.c      warnings, a failed writer, a corrupt stream
 *   module_map.c    modules by address range (both halves)
 *   limits.c        --duration and --max-size: when recording stops
 *   open_zones.c    the zones open when a window ends, as ZONE_AFTER events
 *   triggers.c      --ring: triggers, --after, --min-interval
 *   snapshot.c      --ring: a snapshot of the ring as a trace of its own
 *   ring_store.c    --ring: the newest chunks (ring_store.h)
 *
 * and the kernel's view (perf_sample.h), through perf_event_open:
 *
 *   perf_open.c     opening the events and their rings, the sampler's end
 *   perf_drain.c    reading the rings, handing events over in time order
 *   perf_records.c  the kernel's records into trace events
 *   perf_tasks.c    the sampled processes, their mappings, threads and files
 *
 * Memory is bounded by the read buffer, the live threads' zone stacks and
 * the name tables: never by the length of the recording. Not installed.
 */
#ifndef PROFEV_REC_INTERNAL_H
#define PROFEV_REC_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "trace/trace_internal.h"
#include "profev_record.h"
#include "common/u64_map.h"
#include "rec/dwarf_unwind.h"
#include "rec/elf_file.h"
#include "rec/module_map.h"
#include "rec/perf_sample.h"
#include "rec/rec_images.h"
#include "wire/wire.h"

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
#define MAX_MODULES 4096          /* the client reports at most 1024 */

/* A thread of the client's. */
struct thr {
	uint32_t tid;
	uint32_t ring_size;         /* its ring in the shared file, 0 if none */
	uint32_t ring_read;         /* where the next records start */
	unsigned char *ring_map;    /* control page, then the ring */
	uint64_t ring_base;         /* the ring's address in the program */
	uint64_t last_ns;           /* keeps each thread's timestamps monotonic */
	uint32_t depth;
	uint32_t stack_cap;         /* entries of stack, grown up to MAX_DEPTH */
	uint32_t *stack;            /* open zones below depth: name, category id */
};

/* The thread table's index: tid + 1 (u64_map keys are not 0) to the
 * thread's place in the table. */
struct thr_entry {
	uint64_t key;
	uint64_t pos;
};

struct perf_sampler;

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
	uint64_t cats_matched;      /* items of o.categories that named one, by position */
	char cats_unmatched[256];   /* those that did not, once the run ended */
	/* The thread table, in the order threads arrived (the order the
	 * rings are drained in at the end). An entry stays when its thread
	 * exits (NULL), so that distinct threads are counted. */
	struct thr **thr;
	uint32_t nthr, capthr;
	struct u64_map thr_index;   /* of struct thr_entry */
	uint32_t live_threads;
	uint32_t threads_seen;
	uint64_t exited_ns;         /* the latest event time of the threads that exited */
	uint32_t max_name;          /* the highest writer string id seen */
	uint64_t name_bytes;        /* bytes of the distinct strings */
	uint32_t overflow_name;     /* past the name caps: every new name's id */

	struct module_map mods;     /* the client's modules */

	struct perf_sampler *sampler; /* --sample, --sched; NULL if refused */

	int stopped;                /* enum profev_record_stop: a limit was reached */
	/* --ring */
	struct ring_store *ring;    /* NULL unless --ring */
	volatile sig_atomic_t snap_asked; /* profev_recorder_snapshot() */
	int snap_pending;           /* a snapshot waits until snap_due */
	uint64_t snap_due, last_snap_ns;
	uint64_t snap_first_due;    /* the waiting one's, before triggers moved it */
	uint32_t snap_seq;          /* snapshots written (or tried) */
	uint64_t ring_flushed;      /* when the writer last made its chunks */
	/* --attach (attach.c, window.c) */
	int attached;               /* recording a running program */
	volatile sig_atomic_t detach_asked; /* profev_recorder_signal() */
	int detach_sent;            /* DETACH written to the socket */
	uint64_t detach_deadline;   /* then the socket is closed, ns */
	int detached;               /* the client's DETACH arrived */
	int window_open;            /* the attach event was written */
	uint64_t attach_tick;       /* client ticks when recording began */
	uint64_t window_ns;         /* its time in the trace */
	char *attach_argv[2];       /* the program's path, for the metadata */

	uint64_t mono_start, events;
	uint64_t marks;             /* default frame marks so far */
	uint64_t mark_ts[64];       /* the latest of them, by mark number % 64 */
	uint32_t mark_tid[64];      /* and their threads */
};

static inline uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- failures.c ---- */
#define rec_warn profev__rec_warn
#define writer_failed profev__rec_writer_failed
#define stream_corrupt profev__rec_stream_corrupt

/* A warning through the options' warn callback, if any. */
void rec_warn(struct profev_recorder *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The trace cannot be written: keep draining the program, report at the
 * end. @return -1. */
int writer_failed(struct profev_recorder *r);
/* The client stream cannot be read on: warn once, read and discard. */
void stream_corrupt(struct profev_recorder *r, const char *what);

/* ---- threads.c ---- */
#define thread_find profev__rec_thread_find
#define thread_get profev__rec_thread_get
#define thread_retire profev__rec_thread_retire
#define threads_free profev__rec_threads_free
#define zone_stack_grow profev__rec_zone_stack_grow
#define ring_unmap profev__rec_ring_unmap

/* The live thread tid, or NULL. */
static inline struct thr *thread_find(const struct profev_recorder *r, uint32_t tid)
{
	const struct thr_entry *e = u64_map_find(&r->thr_index, (uint64_t)tid + 1);
	return e ? r->thr[e->pos] : NULL;
}

/* The live thread tid, created if new, its name (name_len bytes, not
 * terminated) or any new thread written to the trace. NULL when the stream
 * was given up (caps, memory) or the trace cannot be written. */
struct thr *thread_get(struct profev_recorder *r, uint32_t tid, const char *name,
		       size_t name_len);
/* The client says tid ended: its latest time is kept, its state freed; its
 * entry stays. */
void thread_retire(struct profev_recorder *r, uint32_t tid);
/* Every thread's state and the table. */
void threads_free(struct profev_recorder *r);
/* Room for the name of zone number depth + 1 of t (up to MAX_DEPTH); the
 * names above a failed growth are lost, not wrong: new entries are 0. */
void zone_stack_grow(struct thr *t);
/* Unmaps t's shared ring, if it has one. */
void ring_unmap(struct thr *t);

/* ---- clock.c ---- */
#define set_rate profev__rec_set_rate
#define clock_hello profev__rec_clock_hello
#define clock_sync profev__rec_clock_sync
#define early_tick_ns profev__rec_early_tick_ns
#define tick_to_ns profev__rec_tick_to_ns

/* The tick length for ticks_per_ns, if plausible (else unchanged). */
void set_rate(struct profev_recorder *r, double ticks_per_ns);
/* PFW_HELLO: the client's version and clock. 0, or -1 if malformed, of
 * another version, or if the trace cannot be written (r->bad is then set). */
int clock_hello(struct profev_recorder *r, const unsigned char *b, uint32_t len);
/* PFW_SYNC: a later calibration point. */
void clock_sync(struct profev_recorder *r, const unsigned char *b, uint32_t len);
/* A tick before tick0 (another CPU's counter may lag a little). */
uint64_t early_tick_ns(const struct profev_recorder *r, uint64_t tick);
/* The trace time of a tick, not held to any thread's previous event (a
 * message about a moment may overtake the thread's records). */
uint64_t tick_to_ns(const struct profev_recorder *r, uint64_t tick);

/* ---- definitions.c ---- */
#define name_id profev__rec_name_id
#define def_string profev__rec_def_string
#define def_site profev__rec_def_site
#define def_category profev__rec_def_category
#define def_module profev__rec_def_module

#define categories_unmatched profev__rec_categories_unmatched

/* Fills r->cats_unmatched: the items of o.categories (the first 64) that
 * named no category the program defined. */
void categories_unmatched(struct profev_recorder *r);
/* The writer's id of a name, interned, or OVERFLOW_NAME's past the caps.
 * 0 if the trace cannot be written. */
uint32_t name_id(struct profev_recorder *r, const char *s, size_t len);
/* The definition messages. 0, or -1 if malformed or if the trace cannot
 * be written (r->bad is then set). def_string with s NULL only makes room
 * for id. */
int def_string(struct profev_recorder *r, uint32_t id, const char *s, size_t len);
int def_site(struct profev_recorder *r, const unsigned char *b, uint32_t len);
int def_category(struct profev_recorder *r, const unsigned char *b, uint32_t len);
int def_module(struct profev_recorder *r, const unsigned char *b, uint32_t len);

static inline uint32_t map_string(const struct profev_recorder *r, uint32_t id)
{
	return id < r->nstrings ? r->strings[id] : 0;
}

static inline uint32_t map_cat(const struct profev_recorder *r, unsigned index)
{
	return index < r->ncats ? r->cats[index] : 0;
}

/* ---- decode.c ---- */
#define emit_event profev__rec_emit_event
#define decode_record profev__rec_decode_record
#define decode_plain_run profev__rec_decode_plain_run
#define decode_ring_span profev__rec_decode_ring_span
#define decode_crash profev__rec_decode_crash

/* Writes ev, numbering its frame. 0, or -1 when the writer failed. */
int emit_event(struct profev_recorder *r, struct profev_event *ev);
/*
 * The record at p of the current thread (r->cur), avail bytes of its
 * message available. @return its size, 0 if it is not complete yet, -1 if
 * it is malformed, -2 if the trace could not be written (or the stream was
 * given up).
 */
long decode_record(struct profev_recorder *r, const unsigned char *p, uint32_t avail);
/* The records a tight loop produces (zones, instants, default frame
 * marks), as many as follow each other in [p, p + avail): @return bytes
 * decoded. Everything else goes through decode_record(). */
uint32_t decode_plain_run(struct profev_recorder *r, const unsigned char *p, uint32_t avail);
/* Records of the current thread in [p, p + len), a whole number of them:
 * a ring's records never cross its end. 0, or -1 (stream marked bad). */
int decode_ring_span(struct profev_recorder *r, const unsigned char *p, uint32_t len);
/* PFW_CRASH of thread tid: a crash event with its callstack. 0, -1 if
 * malformed, -2 if the trace could not be written (or the stream was given
 * up). */
int decode_crash(struct profev_recorder *r, uint32_t tid, const unsigned char *b, uint32_t len);

/* ---- gpu.c ---- */
#define decode_gpu profev__rec_decode_gpu
/* A PFW_GPU_* message: 0, -1 if malformed, -2 if the trace could not be
 * written. */
int decode_gpu(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b);

/* ---- shared_rings.c ---- */
#define ring_attach profev__rec_ring_attach
#define ring_data profev__rec_ring_data
#define rings_drain profev__rec_rings_drain
#define rings_stop profev__rec_rings_stop

/* PFW_RING: map the thread's ring from the shared file. 0 or -1. */
int ring_attach(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b);
/* PFW_RING_DATA: the thread's records up to the position it names. 0, -1
 * if malformed, -2 when the stream was given up. */
int ring_data(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b);
/* The stream has ended: what threads published after their last
 * PFW_RING_DATA. */
void rings_drain(struct profev_recorder *r);
/* Tells every thread with a ring, and the image slots, that nobody reads. */
void rings_stop(struct profev_recorder *r);

/* ---- window.c ---- */
#define window_begin profev__rec_window_begin
#define window_end profev__rec_window_end

/* After HELLO of an attached recording: the attach event (34), on the
 * program's main thread, with the frames made before. 0, or -2 if the
 * trace could not be written. */
int window_begin(struct profev_recorder *r);
/* The recording ends with a detach at tick (0: now, the client did not
 * say) after frames default frame marks: a zone-after event (33) for each
 * zone still open, innermost first, then the detach event (35). Once. 0
 * or -2. */
int window_end(struct profev_recorder *r, uint64_t tick, uint64_t frames);

/* ---- messages.c ---- */
#define decode_stream profev__rec_decode_stream

/* Decode what r->buf holds; leaves an incomplete message or record in it. */
void decode_stream(struct profev_recorder *r);

/* ---- open_zones.c ---- */
#define open_zones_each profev__rec_open_zones_each
#define open_zones_emit profev__rec_open_zones_emit

/* fn for each zone open on a live thread, innermost first, as a ZONE_AFTER
 * at ts (or the thread's last time if later). 0 or fn's first non-zero. */
int open_zones_each(struct profev_recorder *r, uint64_t ts,
		    int (*fn)(void *ctx, struct profev_event *ev), void *ctx);
/* The same into the trace. 0 or -1 when the writer failed. */
int open_zones_emit(struct profev_recorder *r, uint64_t ts);

/* ---- triggers.c, snapshot.c ---- */
#define trigger profev__rec_trigger
#define trigger_message profev__rec_trigger_message
#define triggers_poll profev__rec_triggers_poll
#define triggers_timeout profev__rec_triggers_timeout
#define triggers_end profev__rec_triggers_end
#define snapshot_write profev__rec_snapshot_write

/* A trigger at now by thread tid (0: the program's pid): its event, and
 * with --ring a snapshot scheduled (--after), or the one that waits made
 * to end later, or none within --min-interval of the last (said). */
void trigger(struct profev_recorder *r, const char *reason, uint32_t tid, uint64_t now);
/* PFW_TRIGGER of thread tid (PROFEV_TRIGGER): trigger() at its time. 0,
 * -1 if malformed, -2 if the trace could not be written. */
int trigger_message(struct profev_recorder *r, uint32_t tid, const unsigned char *b, uint32_t len);
/* Each turn of the loop: SIGUSR1's request, a snapshot that is due, the
 * ring trimmed. */
void triggers_poll(struct profev_recorder *r, uint64_t now);
/* The poll timeout that wakes the loop for a snapshot due. */
int triggers_timeout(const struct profev_recorder *r, uint64_t now, int timeout_ms);
/* pfrec's end: the last snapshot (reason "exit", "crash"...) unless
 * --ring-discard-at-exit; one that waits is written now. */
void triggers_end(struct profev_recorder *r, const char *reason, const struct profev_meta *exit_meta);
/* Writes the ring as snapshot number snap_seq + 1 (its path in path):
 * with exit_meta, the program's end; without, zones open now end as
 * ZONE_AFTER. 0, or -1 after a warning. */
int snapshot_write(struct profev_recorder *r, const struct profev_meta *exit_meta, char *path, size_t path_len);

/* ---- limits.c ---- */
#define limits_timeout profev__rec_limits_timeout
#define limits_reached profev__rec_limits_reached

/* The poll timeout (ms) that wakes the loop when --duration ends. */
int limits_timeout(const struct profev_recorder *r, uint64_t now, int timeout_ms);
/* The limit reached at now (enum profev_record_stop), or 0. */
int limits_reached(const struct profev_recorder *r, uint64_t now);

/* ---- child.c ---- */
#define child_fork profev__rec_child_fork
#define child_release profev__rec_child_release

/* The pipes that hold the program between fork and exec. */
struct child_pipes {
	int errfd;                  /* exec's errno, or EOF when it succeeded */
	int gofd;                   /* closing it lets the program exec; -1 none */
};

/* Fork the program of r->o with the client's pipe (r->rfd) and shared
 * file (r->shm_fd); it waits before its exec, when perf events are wanted,
 * until child_release. 0, or <0 with err set when no process could be
 * started. */
int child_fork(struct profev_recorder *r, struct child_pipes *c, struct profev_error *err);
/* Lets the program exec and learns whether it could (r->nostart_errno;
 * a program that could not is reaped). */
void child_release(struct profev_recorder *r, struct child_pipes *c);

/* ---- attach.c ---- */
#define attach_connect profev__rec_attach_connect
#define attach_detach profev__rec_attach_detach

/* Connect to r->o.attach_pid's socket and ask for a recording: r->rfd,
 * r->shm_fd, r->pid, r->marks, r->attach_tick and r->attach_argv set.
 * 0, or <0 with err set (no such program, not listening, refused). */
int attach_connect(struct profev_recorder *r, struct profev_error *err);
/* Ask the client to end the recording (once); the stream then ends. */
void attach_detach(struct profev_recorder *r);

/* ==== the kernel's samples and switches (perf_*.c) ==== */

#define PERF_MAX_FRAMES 127       /* the kernel's default perf_event_max_stack */

/* The user registers a sample copies for DWARF unwinding (asm/perf_regs.h),
 * which the kernel writes in ascending bit order; the rules followed need
 * no other. On another architecture no stack is copied. */
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define PERF_REGS_MASK ((1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) | \
			(1ull << PERF_REG_X86_IP))
#define PERF_NREGS 3
static inline struct dwarf_regs perf_regs_of(const uint64_t *v)
{
	return (struct dwarf_regs){ .ip = v[2], .sp = v[1], .fp = v[0], .arch = CFI_X86_64 };
}
#elif defined(__aarch64__)
#include <asm/perf_regs.h>
#define PERF_REGS_MASK ((1ull << PERF_REG_ARM64_X29) | (1ull << PERF_REG_ARM64_LR) | \
			(1ull << PERF_REG_ARM64_SP) | (1ull << PERF_REG_ARM64_PC))
#define PERF_NREGS 4
static inline struct dwarf_regs perf_regs_of(const uint64_t *v)
{
	return (struct dwarf_regs){ .ip = v[3], .sp = v[2], .fp = v[0], .lr = v[1],
				    .arch = CFI_AARCH64 };
}
#endif
#define MAX_PROCS 1024
#define MAX_MODS_PER_PROC 4096
#define MAX_FILES 4096            /* files whose headers are cached */

/* A process of the program's, keyed by pid + 1: its executable mappings. */
struct perf_process {
	uint64_t key;
	struct module_map mods;       /* module_range.file: in files */
};

/* A module as written to the trace: the same file at the same place is
 * written once, whichever process maps it. */
struct written_module {
	uint64_t path_hash, bias, size;
	uint32_t index;
};

/* A file mappings were seen of: its ELF headers, read once. */
struct module_file {
	uint64_t path_hash;
	struct elf_file elf;
	int ok;
	int32_t tables;               /* the unwinder's, -1 none, -2 not loaded */
	char *path;
};

/* A thread of the program's as the kernel reports it, keyed by tid + 1. */
struct perf_task {
	uint64_t key;
	uint32_t tid, pid;
	int named;
	int on_cpu;                   /* its last switch was in */
	char comm[16];
};

/* One CPU's event and ring. */
struct perf_ring {
	int fd;
	unsigned char *map;           /* control page, then the data */
	size_t data_size;
	uint64_t head;                /* data_head when this drain began */
};

struct perf_sampler {
	struct perf_sample_opts o;
	struct perf_sample_host h;
	uint32_t pid;
	size_t page;
	struct perf_ring *rings;
	int nrings;
	uint32_t asked_ring_bytes;    /* o.ring_bytes before the locked-memory limit cut it */
	unsigned char rec[1u << 16];  /* a record that wraps the ring's end */
	struct dwarf_unwinder *uw;    /* NULL without stack copies */
	const struct perf_process *walking; /* the process of the sample unwound */

	struct u64_map processes;     /* of struct perf_process */
	struct written_module *wmods;
	uint32_t nwmods, capwmods;
	struct module_file *files;
	uint32_t nfiles, capfiles;
	struct u64_map tasks;         /* of struct perf_task */

	struct profev_event *pending; /* events not handed over yet, not in order */
	uint32_t npending, cappending;
	uint64_t emitted_ts;          /* the latest event handed over */
	int failed;

	struct perf_sample_counts n;
};

/* ---- perf_tasks.c ---- */
#define process_find profev__perf_process_find
#define process_get profev__perf_process_get
#define process_drop profev__perf_process_drop
#define process_fork profev__perf_process_fork
#define module_file_get profev__perf_module_file_get
#define module_written profev__perf_module_written
#define dwarf_tables_of profev__perf_dwarf_tables_of
#define task_get profev__perf_task_get
#define task_first_seen profev__perf_task_first_seen
#define perf_tables_free profev__perf_tables_free

static inline struct perf_process *process_find(const struct perf_sampler *s, uint32_t pid)
{
	return u64_map_find(&s->processes, (uint64_t)pid + 1);
}

/* The process pid, added if new (NULL past MAX_PROCS or without memory).
 * Other processes' entries may move. */
struct perf_process *process_get(struct perf_sampler *s, uint32_t pid);
/* The process ended. */
void process_drop(struct perf_sampler *s, uint32_t pid);
/* A forked process starts with its parent's mappings. */
void process_fork(struct perf_sampler *s, uint32_t parent, uint32_t child);
/* The file at path, its headers read the first time; NULL past MAX_FILES
 * or without memory. */
const struct module_file *module_file_get(struct perf_sampler *s, const char *path);
/* The writer's index of the module, writing it the first time. <0 on error. */
int64_t module_written(struct perf_sampler *s, const char *path, uint64_t bias, uint64_t size,
		       const uint8_t *kernel_id, uint32_t kernel_id_len, const struct module_file *f);
/* dwarf_unwind's callback: the module of pc in the process walked
 * (s->walking), its tables loaded the first time. */
int dwarf_tables_of(void *ctx, uint64_t pc, int32_t *tables, uint64_t *bias);

static inline struct perf_task *task_find(const struct perf_sampler *s, uint32_t tid)
{
	return u64_map_find(&s->tasks, (uint64_t)tid + 1);
}

/* The thread tid, added if new (NULL without memory). Other threads'
 * entries may move. */
struct perf_task *task_get(struct perf_sampler *s, uint32_t tid, uint32_t pid);
/* The first event of a thread names it, with the name the kernel knows,
 * for the program that has no client to name it. */
void task_first_seen(struct perf_sampler *s, uint32_t tid, uint32_t pid);
/* The processes, files and threads. */
void perf_tables_free(struct perf_sampler *s);

/* ---- perf_records.c ---- */
#define perf_record_decode profev__perf_record_decode

/* One of the kernel's records (size bytes at rec, whole), if it is
 * side-band (mappings, names, forks) or not, as sideband asks: tables
 * updated, events added to s->pending. 0, or <0 when the writer failed or
 * memory ran out. */
int perf_record_decode(struct perf_sampler *s, const unsigned char *rec, uint32_t size,
		       int sideband);

#endif
