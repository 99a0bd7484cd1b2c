/*
 * client.h - internals of the client runtime (lib/client/), shared by its
 * files. Nothing here is API; <profev.h> is.
 *
 * Each thread owns a ring. The owner writes records at pos and publishes pos
 * with a release store. The flush thread (or the exit or crash flush) reads
 * pos and hands the records up to it over: for a ring in the shared file it
 * sends only pos (PFW_RING_DATA) and pfrec reads the records in place; for
 * a private ring it sends the bytes. The consumer then publishes its offset
 * in ctl->read. pos never catches up with read from behind: one 16-byte
 * slot stays free, so pos == read means empty.
 */
#ifndef PROFEV_CLIENT_H
#define PROFEV_CLIENT_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "profev.h"
#include "wire/wire.h"

/* Files of the runtime share these names; in a static link they land in
 * the program's namespace, so the linker sees them under profev__. */
#define cl profev__cl
#define in_client profev__in_client
#define thread_stack_lo profev__thread_stack_lo
#define thread_stack_hi profev__thread_stack_hi
#define calib_mono0 profev__calib_mono0
#define calib_rate profev__calib_rate
#define calib_real0 profev__calib_real0
#define calib_tick0 profev__calib_tick0
#define client_ticks profev__client_ticks
#define clock_init profev__clock_init
#define clock_pair profev__clock_pair
#define mono_ns profev__mono_ns
#define defs_append profev__defs_append
#define defs_take profev__defs_take
#define defs_append_tid profev__defs_append_tid
#define defs_send profev__defs_send
#define defs_pending profev__defs_pending
#define defs_string profev__defs_string
#define categories_disable_all profev__categories_disable_all
#define categories_select profev__categories_select
#define categories_start profev__categories_start
#define category_add profev__category_add
#define category_wanted profev__category_wanted
#define all_rings profev__all_rings
#define reg_lock profev__reg_lock
#define ring_take profev__ring_take
#define ring_recycle profev__ring_recycle
#define shm_extend profev__shm_extend
#define crash_install profev__crash_install
#define flush_announce profev__flush_announce
#define flush_forget profev__flush_forget
#define flush_kick profev__flush_kick
#define flush_pass profev__flush_pass
#define flush_start profev__flush_start
#define flush_stop profev__flush_stop
#define pipe_lock profev__pipe_lock
#define pipe_unlock profev__pipe_unlock
#define recorder_gone profev__recorder_gone
#define recording_stop profev__recording_stop
#define rec_acquire profev__rec_acquire
#define rec_publish profev__rec_publish
#define ring_self profev__ring_self
#define modules_check profev__modules_check
#define modules_init profev__modules_init
#define unwind_fast profev__unwind_fast
#define unwind_context profev__unwind_context
#define client_init profev__client_init
#define defs_replay profev__defs_replay
#define defs_quiet profev__defs_quiet
#define categories_session profev__categories_session
#define categories_announce_all profev__categories_announce_all
#define flush_session profev__flush_session
#define names_lock profev__names_lock
#define thread_label profev__thread_label
#define thread_label_len profev__thread_label_len
#define listen_start profev__listen_start
#define listen_stop profev__listen_stop
#define listen_forget profev__listen_forget
#define img_ctl_shared profev__img_ctl_shared

#define ATOMIC_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ATOMIC_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

enum ring_state {
	RING_FREE = 0,   /* on the free list, no owner */
	RING_ACTIVE = 1, /* owned by a live thread */
	RING_EXITED = 2, /* owner gone: flush the rest, then free */
	RING_DRAINING = 3, /* shared, owner gone, all handed over: free once pfrec read it */
};

struct ring;

/* The start of a ring's control page (formats/wire.md): the consumer's
 * line, then the owner's position, which pfrec reads after a SIGKILL. */
struct ring_ctl {
	struct pfw_ring_ctl shared;
	char consumer_line[PFW_RING_POS - sizeof(struct pfw_ring_ctl)];
	struct profev__ring pub;  /* pos, end: the owner's cache line */
	struct ring *owner;
};
_Static_assert(offsetof(struct ring_ctl, pub) == PFW_RING_POS, "formats/wire.md: control page");

struct ring {
	struct ring_ctl *ctl;     /* in the shared file's control page, or own_ctl */
	unsigned char *base;
	uint32_t size;
	uint32_t tid;
	uint64_t dropped;         /* --drop: events not yet reported as LOST; the
				   * owner counts (dropped_add), the flush thread
				   * reads it at the end: relaxed atomics */
	char name[16];            /* thread name at registration */
	/* On demand: the name profev_thread_name() gave, for THREAD messages
	 * at each attach; written by the owner and read by the flush thread
	 * under names_lock. */
	char label[64];
	uint32_t label_len;
	uint64_t stack_lo, stack_hi; /* the owner's stack, 0 if unknown */
	struct rule *rules;       /* unwind.c's cache, made on first use */

	/* ctl->shared.read is published by the consumer: pfrec for a ring in
	 * the shared file, else the flush thread, which sends the bytes. */
	uint64_t shm_off;         /* the control page's offset in the shared file */
	uint32_t sent;            /* flush thread: records up to here are handed over */
	int state;                /* enum ring_state */
	int announced;            /* PFW_THREAD sent for this owner */
	struct ring *next;        /* the list of every ring ever made */
	struct ring *next_free;
	struct ring_ctl own_ctl __attribute__((aligned(64)));
};

/* One more event dropped; by the ring's owner only, so no read-modify-write
 * instruction is needed: a relaxed load and store (plain movs on x86-64),
 * atomic for the flush thread's read at the end. */
static inline void dropped_add(struct ring *r)
{
	__atomic_store_n(&r->dropped, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

/* The ring whose position a thread's profev__tls points at. */
static inline struct ring *ring_of(struct profev__ring *pub)
{
	return ((struct ring_ctl *)(void *)((char *)pub - offsetof(struct ring_ctl, pub)))->owner;
}

static inline int ring_shared(const struct ring *r)
{
	return r->ctl != &r->own_ctl;
}

/*
 * The files of the runtime, from the bottom up: each calls only the files
 * listed before it (and the inline helpers here), never one listed after
 * it, so that no two call each other.
 */

/* state.c: configuration and state of the runtime, set by init.c. */
struct client {
	int active;               /* recording: events may be produced */
	int unwind_libgcc;        /* PROFEV_UNWIND=libgcc: no fast unwinder */
	int fd;                   /* the pipe to pfrec */
	int shm_fd;               /* the shared file for rings, -1 if none */
	uint64_t shm_end;         /* its size so far (under reg_lock) */
	int drop;                 /* drop instead of waiting */
	int tsc;                  /* ticks come from profev__ticks() inline */
	uint32_t ring_bytes;
	uint32_t age_us;          /* flush thread period */
	uint32_t pid;
	uint64_t lost_unreported; /* dropped after the final flush or in exited threads */
	/* On demand (listen.c): set once, before the listener starts. */
	int ondemand;
	/* On demand: default frame marks made so far, bit 63 set while they
	 * are recorded. One atomic word, so that each mark is either counted
	 * before an attach or recorded after it, never both or neither. */
	uint64_t frames;
};
#define FRAMES_RECORDED (1ull << 63)
/* The frame-image slots' control page, once placed (image.c); flush.c
 * frees them all at an attach. */
extern struct pfw_image_ctl *img_ctl_shared;
/* On demand: the thread's profev_thread_name(), copied into its ring at
 * registration. */
extern __thread char thread_label[64] __attribute__((tls_model("initial-exec")));
extern __thread uint32_t thread_label_len __attribute__((tls_model("initial-exec")));
extern pthread_mutex_t names_lock;        /* struct ring's label */
extern struct client cl;
/* Set while this thread runs client code that may allocate or lock (ring
 * registration, definitions, module scans, unwinding): an event that an
 * allocator hook makes then is dropped instead of re-entering the client. */
extern __thread int in_client __attribute__((tls_model("initial-exec")));
/* This thread's stack, set when its ring is made (ring.c), for the crash
 * handler's unwinding; 0, 0 before the thread records. */
extern __thread uint64_t thread_stack_lo __attribute__((tls_model("initial-exec")));
extern __thread uint64_t thread_stack_hi __attribute__((tls_model("initial-exec")));

/* The kernel's id of the calling thread, as pfrec and perf name threads. */
static inline uint32_t client_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* clock.c */
void clock_init(void);                /* choose the clock (cl.tsc), calibrate */
uint64_t client_ticks(void);          /* the time of a record */
uint64_t mono_ns(void);
void clock_pair(uint64_t *tick, uint64_t *mono);
/* Calibration at start, sent in PFW_HELLO. */
extern uint64_t calib_tick0, calib_mono0;
extern int64_t calib_real0;
extern double calib_rate;

/* defs.c: definitions (STRING, SITE, CATEGORY, MODULE, IMAGES messages),
 * queued for the flush thread, which sends them before the records. */
void defs_append(uint16_t type, const void *a, uint32_t alen, const void *b, uint32_t blen,
		 const void *c, uint32_t clen);
/* The same, about thread tid (PFW_GPU_CONTEXT). */
void defs_append_tid(uint16_t type, uint32_t tid, const void *a, uint32_t alen, const void *b,
		     uint32_t blen, const void *c, uint32_t clen);
/* A message about a moment (PFW_TRIGGER), queued like the definitions but
 * never kept in the on-demand log: each attach sees only its own. */
void defs_send(uint16_t type, uint32_t tid, const void *a, uint32_t alen, const void *b, uint32_t blen);
/* A new string id for len bytes at s, queued. */
uint32_t defs_string(const char *s, uint32_t len);
/* Bytes queued, read without the lock: a bound, not an exact count. */
size_t defs_pending(void);
/* Take the queued definitions; returns bytes. */
size_t defs_take(unsigned char **buf, size_t *cap, int from_signal);
/* On demand, every definition is also kept in a log. defs_replay(): an
 * attach begins, the queue becomes the whole log and definitions are
 * queued from now on; defs_quiet(): the recording ended, they are only
 * logged. Without them (or before the first attach) nothing is queued. */
void defs_replay(void);
void defs_quiet(void);

/* categories.c */
extern struct profev_category profev__app_info, profev__program_name;
void categories_select(const char *list); /* PROFEV_CATEGORIES, NULL: all */
void categories_start(void);          /* the runtime's own categories */
int category_wanted(const char *name);
void category_add(struct profev_category *c); /* register; client_init() has run */
void categories_disable_all(void);     /* on demand, frame marks stay on (counted) */
/* On demand: an attach switches the wanted categories on (1), a detach
 * every one off but frame marks (0). */
void categories_session(int on);
void categories_announce_all(void);   /* on demand: the ones registered before */

/* ring_pool.c */
extern struct ring *all_rings;        /* every ring ever made, newest first */
extern pthread_mutex_t reg_lock;      /* ring list and free list */
/* A ring for a new thread, RING_FREE (the flush thread passes it over)
 * until the caller publishes RING_ACTIVE; NULL on no memory. */
struct ring *ring_take(void);
void ring_recycle(struct ring *r);    /* flush thread: r was consumed to the end */
/* len more bytes of the shared file, mapped: their address and, in *off,
 * their offset in the file; NULL when there is no shared file or no room.
 * Under reg_lock. */
void *shm_extend(size_t len, uint64_t *off);

/* flush.c */
int flush_start(void);
void flush_stop(void);                /* final pass, then the thread ends */
void flush_forget(void);              /* forked child: no flush thread here */
void flush_kick(void);                /* wake the flush thread now */
void recording_stop(void);            /* pfrec is gone: record nothing more */
int recorder_gone(void);              /* the pipe has no reader any more */
int flush_pass(int from_signal);      /* send everything pending; 0 or -1 */
void flush_announce(struct ring *r);  /* a new thread's shared ring, by the thread */
void crash_install(void);
/* On demand, an attach is beginning and the flush thread is not running:
 * HELLO is to be sent again, each live thread's ring announced again from
 * where its owner is now, rings of exited threads reused, image slots
 * freed. Under the pipe lock. */
void flush_session(void);
/* One pipe writer at a time; usable from a signal handler (bounded wait). */
int pipe_lock(int from_signal);
void pipe_unlock(void);

/* modules.c */
void modules_init(void);              /* at start: report every loaded module */
/* Called with the pcs of a capture: reports modules loaded since the last
 * scan when a pc falls outside every known one. Never from a signal. */
void modules_check(const uint64_t *pc, unsigned n);

/* unwind.c: up to depth return addresses from the one equal to `from`, by
 * the cached .eh_frame rules; -1 when _Unwind_Backtrace must do it. */
int unwind_fast(struct ring *r, uint64_t from, unsigned depth, uint64_t *pc);
/* A signal handler's: at most max pcs of the thread the signal stopped,
 * from its ucontext_t, the first the interrupted instruction; only
 * [stack_lo, stack_hi) is read (0, 0: the first pc alone). No allocation,
 * no lock. 0 where this unwinder does not run (not x86-64). */
unsigned unwind_context(const void *context, uint64_t stack_lo, uint64_t stack_hi, uint64_t *pc,
			unsigned max);

/* listen.c: on demand, the socket pfrec attaches through and its thread,
 * which starts and ends each recording. listen_start: once, from init.c,
 * after the runtime is set up; 0 or -1. listen_stop: at exit, the thread
 * ends (a recording under way is left to at_exit's final flush).
 * listen_forget: in a forked child. */
int listen_start(void);
void listen_stop(void);
void listen_forget(void);

/* init.c: the start of the runtime, from the constructor, from the first
 * category registered or from the first thread that records. */
void client_init(void);

/* ring.c */
/* Room for a record of n bytes in this thread's ring (registering the ring
 * on first use), or NULL when the event is not to be recorded; the record
 * becomes visible with rec_publish(its end). */
unsigned char *rec_acquire(uint32_t n);
void rec_publish(unsigned char *end);
struct ring *ring_self(void);         /* this thread's ring, NULL if none yet */

/* image.c, stack.c, gpu.c and trigger.c: entry points of the macros only. */

#endif
