/*
 * wire.h - the stream between the client runtime and pfrec (formats/wire.md).
 *
 * Shared by lib/client/ (the writer side, inside the traced program) and
 * lib/rec/ (the reader side, in pfrec). Everything is little-endian and
 * every message starts with the same 16-byte header; event records inside
 * an EVENTS message are multiples of 16 bytes so that a thread's ring never
 * has to split one.
 */
#ifndef PROFEV_WIRE_H
#define PROFEV_WIRE_H

#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PFW_MAGIC 0x31574650u /* "PFW1" read as a little-endian u32 */
#define PFW_VERSION 1u

/** Message header: 16 bytes, then len bytes of body. */
struct pfw_header {
	uint32_t magic; /* PFW_MAGIC */
	uint16_t type;  /* enum pfw_msg */
	uint16_t flags; /* zero; readers ignore it */
	uint32_t len;   /* body bytes after the header */
	uint32_t tid;   /* thread the message is about, 0 if none */
};

/** Upper bound on a message body; a longer len is a corrupt stream. */
#define PFW_MAX_BODY (64u << 20)

enum pfw_msg {
	PFW_HELLO = 1,       /* struct pfw_hello; always the first message */
	PFW_STRING = 2,      /* u32 id, then the string's bytes */
	PFW_CATEGORY = 3,    /* struct pfw_category, then name, then description */
	PFW_THREAD = 4,      /* tid: a thread starts; body: its name (may be empty) */
	PFW_EVENTS = 5,      /* tid: records of that thread, in order */
	PFW_SYNC = 6,        /* struct pfw_sync: a later calibration point */
	PFW_THREAD_EXIT = 7, /* tid: the thread ended; no more EVENTS for it */
	PFW_BYE = 8,         /* struct pfw_bye; the program is exiting normally */
	PFW_MODULE = 9,      /* struct pfw_module, build-id, path: a loaded module */
	PFW_RING = 10,       /* tid: struct pfw_ring; the thread's ring is shared */
	PFW_RING_DATA = 11,  /* tid: struct pfw_ring_data; its records up to pos */
	PFW_SITE = 12,       /* struct pfw_site, name, function, file: a call site */
	PFW_IMAGES = 16,     /* struct pfw_images: the frame-image slots in the shared file */
	PFW_CRASH = 24,      /* tid: struct pfw_crash, then a callstack: the thread crashed */
	PFW_GPU_CONTEXT = 30, /* tid: the maker; struct pfw_gpu_context, then the name */
	PFW_GPU_CALIBRATION = 31, /* struct pfw_gpu_calibration */
	PFW_GPU_ZONES = 32,  /* struct pfw_gpu_zones, then n struct pfw_gpu_zone */
	PFW_GPU_LOST = 33,   /* struct pfw_gpu_lost */
	/* 34..35 reserved for GPU */
	/* On-demand recording (formats/wire.md, "Attaching to a running
	 * program"): the socket's handshake and its end. */
	PFW_ATTACH = 25,     /* pfrec -> client: struct pfw_attach, the request */
	PFW_ATTACHED = 26,   /* client -> pfrec: struct pfw_attached, then a reason if refused */
	PFW_DETACH = 27,     /* pfrec -> client: no body, stop; client -> pfrec: struct pfw_detach, last */
	/* The program asks pfrec --ring for a snapshot (PROFEV_TRIGGER). */
	PFW_TRIGGER = 28,    /* tid: the caller; struct pfw_trigger, then the reason */
	/* 29 reserved for recording windows */
	/* 13..15 and 20..23 reserved for rich events, 17..19 for frame images */
};

#define PFW_MAX_REASON 1024u /* bytes of a trigger's reason */
struct pfw_trigger {
	uint64_t tick;       /* when PROFEV_TRIGGER was called */
	uint32_t reason_len; /* then the reason's bytes, at most PFW_MAX_REASON */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pfw_trigger) == 16, "formats/wire.md: TRIGGER is 16 bytes + reason");

/** A call site that knows where it is: defines string id like STRING, and
 *  tells where the macro that uses it stands. */
struct pfw_site {
	uint32_t id;       /* the string id its records carry */
	uint32_t category; /* category index of its records, 0 = none */
	uint32_t line;
	uint32_t name_len; /* then name_len bytes of name */
	uint32_t func_len; /* then the function's name */
	uint32_t file_len; /* then the file's path (__FILE__) */
};
_Static_assert(sizeof(struct pfw_site) == 24, "formats/wire.md: SITE is 24 bytes + data");

enum pfw_clock {
	PFW_CLOCK_TSC = 1,       /* ticks are the x86 time-stamp counter */
	PFW_CLOCK_MONOTONIC = 2, /* ticks are CLOCK_MONOTONIC nanoseconds */
	PFW_CLOCK_CNTVCT = 3,    /* ticks are the arm64 virtual counter */
};

enum pfw_hello_flags {
	PFW_HELLO_DROP = 1u << 0, /* client drops events when the pipe is slow */
};

struct pfw_hello {
	uint32_t version;     /* PFW_VERSION */
	uint32_t pid;
	uint32_t clock;       /* enum pfw_clock */
	uint32_t flags;       /* enum pfw_hello_flags */
	double ticks_per_ns;  /* first estimate; PFW_SYNC refines it */
	uint64_t tick0;       /* tick value at mono0 */
	uint64_t mono0;       /* CLOCK_MONOTONIC ns */
	int64_t real0;        /* CLOCK_REALTIME ns at the same moment */
	uint32_t ring_bytes;  /* per-thread buffer size */
	uint32_t age_us;      /* flush thread period: the most a SIGKILL loses */
};

_Static_assert(sizeof(struct pfw_hello) == 56, "formats/wire.md: HELLO is 56 bytes");

struct pfw_category {
	uint32_t index;    /* the value records carry in their category field */
	uint32_t enabled;  /* 1 if enabled for this recording */
	uint32_t name_len; /* name bytes follow, then the description */
	uint32_t reserved;
};

struct pfw_sync {
	uint64_t tick;
	uint64_t mono; /* CLOCK_MONOTONIC ns read with tick */
};

struct pfw_bye {
	uint64_t lost; /* events the client dropped and could not report */
};

/** A crash signal caught, sent after the crash handler's last flush;
 *  a callstack (as in records) follows: the faulting thread's, from the
 *  signal's context, its first pc exact. */
struct pfw_crash {
	uint32_t signal;   /* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT */
	int32_t code;      /* si_code */
	uint64_t addr;     /* si_addr of a fault, 0 for a signal sent */
	uint64_t tick;     /* when the handler ran */
};
_Static_assert(sizeof(struct pfw_crash) == 24, "formats/wire.md: CRASH is 24 bytes + a callstack");

/* GPU contexts and zones (formats/wire.md, "GPU"). */
#define PFW_GPU_MAX_CONTEXTS 256u
#define PFW_GPU_MAX_NAME 1024u
struct pfw_gpu_context {
	uint32_t ctx;       /* 0..255 */
	uint32_t kind;      /* 1 manual, 2 OpenGL, 3 Vulkan */
	double period_ns;   /* ns per GPU tick */
	uint32_t name_len;  /* then the name's bytes (at most 1024) */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pfw_gpu_context) == 24, "formats/wire.md: GPU_CONTEXT is 24 bytes + name");

struct pfw_gpu_calibration {
	uint32_t ctx;
	uint32_t error_ns;  /* how far apart the two readings may be */
	uint64_t gpu;       /* GPU ticks */
	uint64_t mono;      /* CLOCK_MONOTONIC ns read with them */
};
_Static_assert(sizeof(struct pfw_gpu_calibration) == 24, "formats/wire.md: GPU_CALIBRATION is 24 bytes");

struct pfw_gpu_zones {
	uint32_t ctx;
	uint32_t n;         /* zones that follow, at most PFW_GPU_ZONES_MAX */
};
struct pfw_gpu_zone {
	uint64_t tick;      /* client ticks when its begin was recorded */
	uint64_t gpu_begin, gpu_end; /* GPU ticks */
	uint32_t name;      /* string id (a site's) */
	uint32_t tid;       /* the thread that recorded it */
};
_Static_assert(sizeof(struct pfw_gpu_zone) == 32, "formats/wire.md: a GPU zone is 32 bytes");
#define PFW_GPU_ZONES_MAX 2000u /* a message stays under pfrec's 64 KiB */

struct pfw_gpu_lost {
	uint32_t ctx;
	uint32_t reserved;
	uint64_t count;     /* more zones lost: query ring full, queue full */
};
_Static_assert(sizeof(struct pfw_gpu_lost) == 16, "formats/wire.md: GPU_LOST is 16 bytes");
/*
 * On-demand recording: a program that opted in (PROFEV_ON_DEMAND=1,
 * profev_listen()) listens on the abstract Unix socket "\0profev-PID"
 * (PFW_SOCKET_PREFIX and the pid in decimal). pfrec connects and sends
 * PFW_ATTACH; the client answers PFW_ATTACHED with the shared file as
 * SCM_RIGHTS, then the socket carries the stream from HELLO on.
 */
#define PFW_SOCKET_PREFIX "profev-"

struct pfw_attach {
	uint32_t version;    /* PFW_VERSION */
	uint32_t flags;      /* PFW_HELLO_DROP; other bits 0 */
	uint32_t reserved[2];
};
_Static_assert(sizeof(struct pfw_attach) == 16, "formats/wire.md: ATTACH is 16 bytes");

enum pfw_attach_status {
	PFW_ATTACH_OK = 0,
	PFW_ATTACH_REFUSED = 1,  /* not the program's user nor root */
	PFW_ATTACH_BUSY = 2,     /* another pfrec is attached */
	PFW_ATTACH_BAD = 3,      /* a request of another version, or malformed */
	PFW_ATTACH_FAILED = 4,   /* the client could not start (no memory, no thread) */
};

struct pfw_attached {
	uint32_t version;    /* PFW_VERSION */
	uint32_t status;     /* enum pfw_attach_status; a text follows unless OK */
	uint32_t pid;
	uint32_t reserved;
	uint64_t tick;       /* when recording began, in the client's ticks */
	uint64_t frames;     /* default frame marks made before it */
};
_Static_assert(sizeof(struct pfw_attached) == 32, "formats/wire.md: ATTACHED is 32 bytes");

struct pfw_detach {
	uint64_t tick;       /* when recording ended */
	uint64_t frames;     /* default frame marks made before it */
};
_Static_assert(sizeof(struct pfw_detach) == 16, "formats/wire.md: DETACH is 16 bytes");

/** A module (the program or a shared object), as dl_iterate_phdr sees it. */
struct pfw_module {
	uint64_t load_bias;    /* runtime address minus ELF virtual address */
	uint64_t vaddr_lo;     /* lowest PT_LOAD virtual address */
	uint64_t vaddr_hi;     /* end of the highest PT_LOAD (p_vaddr + p_memsz) */
	uint32_t build_id_len; /* GNU build-id bytes that follow (0..64) */
	uint32_t path_len;     /* then the path's bytes */
};

_Static_assert(sizeof(struct pfw_module) == 32, "formats/wire.md: MODULE is 32 bytes + data");

#define PFW_MAX_BUILD_ID 64u

/*
 * Shared rings. When pfrec passes PROFEV_SHM, a memory file, the client
 * places thread rings in it: a 4096-byte control page, then the ring.
 * pfrec maps the same pages and reads records where the program wrote
 * them; the pipe carries only where they end (PFW_RING_DATA).
 */
#define PFW_RING_CTL 4096u

/** PFW_RING body: the ring of thread tid lives at offset in the file. */
struct pfw_ring {
	uint64_t offset; /* of the control page; a multiple of 4096 */
	uint32_t size;   /* ring bytes after the control page; a power of two */
	uint32_t start;  /* ring offset of the first record (0 but after an attach) */
	uint64_t base;   /* the ring's address in the program */
};
_Static_assert(sizeof(struct pfw_ring) == 24, "formats/wire.md: RING is 24 bytes");

/* Offset in the control page of the u64 address, in the program, where the
 * thread's published records end: read after the program died unannounced
 * (SIGKILL), to keep what it wrote after the last PFW_RING_DATA. */
#define PFW_RING_POS 64u

/** PFW_RING_DATA body: records of the thread end at pos in its ring. */
struct pfw_ring_data {
	uint32_t pos;    /* 0..size, a multiple of 16 */
	uint32_t reserved;
};
_Static_assert(sizeof(struct pfw_ring_data) == 8, "formats/wire.md: RING_DATA is 8 bytes");

/** The start of a control page, written by both sides. */
struct pfw_ring_ctl {
	uint32_t read;    /* pfrec: records before this offset are consumed */
	uint32_t waiting; /* client: 1 while a producer sleeps on read (futex) */
	uint32_t stop;    /* pfrec: 1 once it reads no more (output failed,
			   * stream corrupt): the client stops recording */
};

/* How long a producer sleeps for room before it checks that pfrec is still
 * there (formats/wire.md, "Liveness"). */
#define PFW_WAIT_NS 10000000

/**
 * pfrec gives up on this ring: sets stop and wakes a producer that sleeps
 * for room, which then stops recording instead of waiting for a reader
 * that will never come.
 */
static inline void pfw_ring_stop(struct pfw_ring_ctl *c)
{
	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->waiting, 0, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &c->read, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/**
 * The consumer's step: records before pos are consumed. Wakes a producer
 * that sleeps for room. The store and the exchange are sequentially
 * consistent, as is the producer's "set waiting, then check read", so one
 * of the two always sees the other.
 */
static inline void pfw_ring_consumed(struct pfw_ring_ctl *c, uint32_t pos)
{
	__atomic_store_n(&c->read, pos, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&c->waiting, 0, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &c->read, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/*
 * Frame images. At its first image the client places a control page and
 * `slots` slots of `slot_bytes` in the shared file and sends PFW_IMAGES.
 * A thread copies an image into a free slot (state FREE -> BUSY) and
 * writes a FRAME_IMAGE record naming it; pfrec encodes the pixels where
 * they are, sets the slot FREE, bumps gen and wakes a waiting client the
 * way rings do (pfw_ring_consumed).
 */
#define PFW_IMAGE_SLOTS 4u
#define PFW_IMAGE_MAX_SIDE 4096u
#define PFW_IMAGE_MAX_PIXELS (4096u * 1024u)
#define PFW_IMAGE_SLOT_BYTES (PFW_IMAGE_MAX_PIXELS * 4u)

struct pfw_images {
	uint64_t offset;     /* of the control page, a multiple of 4096; slots follow it */
	uint32_t slots;      /* 1..64 */
	uint32_t slot_bytes; /* a multiple of 4096 */
};
_Static_assert(sizeof(struct pfw_images) == 16, "formats/wire.md: IMAGES is 16 bytes");

enum pfw_slot_state {
	PFW_SLOT_FREE = 0,
	PFW_SLOT_BUSY = 1,   /* the client fills it or pfrec has yet to encode it */
};

/** The start of the images' control page, written by both sides. */
struct pfw_image_ctl {
	uint32_t gen;        /* pfrec: bumped whenever it frees a slot */
	uint32_t waiting;    /* client: 1 while a thread sleeps for a slot (futex on gen) */
	uint32_t stop;       /* pfrec: 1 once it reads no more, as in rings */
	uint32_t reserved[13];
	uint32_t state[64];  /* enum pfw_slot_state, per slot */
};

/** pfrec frees slot i and wakes a client waiting for one. */
static inline void pfw_slot_freed(struct pfw_image_ctl *c, uint32_t i)
{
	__atomic_store_n(&c->state[i], PFW_SLOT_FREE, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&c->waiting, 0, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &c->gen, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/** pfrec gives up: a thread waiting for a slot stops recording (as
 *  pfw_ring_stop). */
static inline void pfw_images_stop(struct pfw_image_ctl *c)
{
	__atomic_store_n(&c->stop, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&c->waiting, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&c->gen, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &c->gen, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
}

/*
 * Records of an EVENTS message. Every record starts with 16 bytes:
 *   u64 ts   ticks (0 for PAD)
 *   u64 word type | flags << 8 | category << 16 | arg << 32
 * arg is a string id for fixed records and a byte length for variable ones.
 */
enum pfw_rec {
	PFW_R_FRAME_MARK = 1,  /* arg: frame set name id, 0 = default */
	PFW_R_ZONE_BEGIN = 2,  /* arg: name id */
	PFW_R_ZONE_END = 3,    /* arg: name id or 0 (innermost open zone) */
	PFW_R_COUNTER = 4,     /* arg: name id; + f64 value + 8 zero bytes */
	PFW_R_INSTANT = 5,     /* arg: name id */
	PFW_R_MESSAGE = 6,     /* arg: text length; text follows */
	PFW_R_THREAD_NAME = 7, /* arg: name length; name follows */
	PFW_R_MEM_ALLOC = 8,   /* arg: pool name id, 0 = default; + u64 addr + u64 size */
	PFW_R_MEM_FREE = 9,    /* arg: pool name id, 0 = default; + u64 addr + 8 zero bytes */
	PFW_R_FRAME_IMAGE = 10, /* flags: PFW_RF_FLIP; arg: slot; + u32 width, u32 height,
	                           u64 frames ago (32 bytes) */
	PFW_R_LOST = 11,       /* + u64 count of events dropped before ts + 8 zero bytes */
	PFW_R_ZONE_DYN = 16,   /* zone begin, arg: name length; name follows */
	/* 17..31: records followed by a callstack (below); 20..31 reserved */
	PFW_R_ZONE_BEGIN_S = 17, /* ZONE_BEGIN + callstack */
	PFW_R_MEM_ALLOC_S = 18,  /* MEM_ALLOC (32 bytes) + callstack */
	PFW_R_MEM_FREE_S = 19,   /* MEM_FREE (32 bytes) + callstack */
	/* 12..15: records without a time; u64 value where ts would be */
	PFW_R_ARG = 12,        /* arg: key id; flags: enum pfw_arg_kind (| PFW_RF_POINT); ts: the value */
	PFW_R_ARG_STR = 13,    /* arg: key id; ts: length; the string follows */
	PFW_R_FLOW_OUT = 14,   /* ts: flow id */
	PFW_R_FLOW_IN = 15,    /* ts: flow id */
	/* 32..47: more rich events */
	PFW_R_ASYNC_BEGIN = 32,  /* arg: span name id; + u64 span id + 8 zero bytes */
	PFW_R_ASYNC_END = 33,    /* as ASYNC_BEGIN */
	PFW_R_LOCK_WAIT = 34,    /* arg: lock name id; + u64 lock + 8 zero bytes */
	PFW_R_LOCK_ACQUIRED = 35, /* + u64 lock + 8 zero bytes */
	PFW_R_LOCK_RELEASED = 36, /* + u64 lock + 8 zero bytes */
	PFW_R_FRAME_START = 37,  /* arg: frame set name id */
	PFW_R_FRAME_END = 38,    /* arg: frame set name id */
	PFW_R_MESSAGE_AT = 39,   /* arg: text length; + u64 site id + 8 zero bytes, text */
	PFW_R_IMAGE_LOST = 48,   /* + u64 images dropped (--drop), u64 images refused (32 bytes) */
	/* 49..51 reserved for frame images */
	PFW_R_PAD = 255,       /* arg: bytes to skip, this header included */
};

/* The kind of an ARG record's value, in its flags byte. */
enum pfw_arg_kind {
	PFW_AK_INT = 0,    /* int64, two's complement */
	PFW_AK_UINT = 1,
	PFW_AK_DOUBLE = 2, /* the double's bits */
	PFW_AK_BOOL = 3,   /* 0 or 1 */
	PFW_AK_PTR = 4,
};

/* Flags of a record's word (bits 8..15). */
enum pfw_rec_flags {
	PFW_RF_SECURE = 1u << 0,  /* memory records: from a SECURE macro */
	PFW_RF_FLIP = 1u << 0,    /* FRAME_IMAGE: rows are bottom-up */
	PFW_RF_TRUNCATED = 1u << 0, /* ARG_STR: the program's string was longer */
	PFW_RF_ZONE_NAME = 1u << 6, /* ARG_STR: the open zone's name from here on */
	PFW_RF_POINT = 1u << 7,   /* ARG, ARG_STR: of the thread's next instant or
	                             message, not of its open zone */
};

#define PFW_MAX_ARG_STR 1024u  /* longest string of an ARG_STR record */

#define PFW_REC_HEAD 16u
#define PFW_REC_LONG 32u       /* COUNTER, LOST, MEM_ALLOC, MEM_FREE */
#define PFW_MAX_TEXT 4080u     /* longest text of a variable record */

/*
 * A callstack, at the end of a record of type 17..31: a u64 whose low 16
 * bits are the frame count n, and whose bit 16 says that the first pc is
 * the exact address of an instruction (else every pc is a return address);
 * then n u64 program counters, innermost first; then 8 zero bytes if n is
 * even, so that the record stays a multiple of 16 bytes.
 */
#define PFW_MAX_FRAMES 62u
#define PFW_STACK_EXACT (1ull << 16)

/** Bytes taken by a callstack of n frames. */
static inline uint32_t pfw_stack_size(uint32_t n)
{
	return (8u + 8u * n + 15u) & ~15u;
}

/** Bytes taken by a variable record carrying len bytes. */
static inline uint32_t pfw_var_size(uint32_t len)
{
	return PFW_REC_HEAD + ((len + 15u) & ~15u);
}

static inline uint64_t pfw_word(unsigned type, unsigned category, uint32_t arg)
{
	return (uint64_t)type | (uint64_t)category << 16 | (uint64_t)arg << 32;
}

#endif
