/*
 * ring.c - per-thread buffers: registration, the slow path of the macros
 * (new thread, buffer full, wrap, records other than 16 bytes) and the
 * records that never take the fast path (text, arguments, dynamic names).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "client.h"

/* A thread without a ring points here: pos == end sends it to the slow path. */
#define no_ring profev__no_ring
PROFEV_API struct profev__ring no_ring;
PROFEV_API __thread struct profev__ring *profev__tls
	__attribute__((tls_model("initial-exec"))) = &no_ring;

static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/*
 * A stack overflow can only be handled on another stack: each recording
 * thread that has no alternate signal stack gets one, so the crash handler
 * runs (and chains to the program's handler) even then.
 */
#define ALT_STACK (64u << 10)
static __thread void *alt_stack;

static void alt_stack_add(void)
{
	stack_t old;
	if (alt_stack || sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return;
	stack_t st = { .ss_sp = malloc(ALT_STACK), .ss_size = ALT_STACK, .ss_flags = 0 };
	if (st.ss_sp && sigaltstack(&st, NULL) == 0)
		alt_stack = st.ss_sp;
	else
		free(st.ss_sp);
}

static void alt_stack_remove(void)
{
	stack_t cur;
	if (!alt_stack || sigaltstack(NULL, &cur) < 0 || cur.ss_sp != alt_stack)
		return;
	if (cur.ss_flags & SS_ONSTACK)
		return; /* exiting from a handler on it: leave it */
	stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	if (sigaltstack(&off, NULL) == 0) {
		free(alt_stack);
		alt_stack = NULL;
	}
}

/* The exit_key destructor: the ring's owner thread exits. The ring is
 * left to the flush thread, which sends the rest and frees it. */
static void ring_retire(void *arg)
{
	struct ring *r = arg;
	in_client++;
	alt_stack_remove();
	in_client--;
	profev__tls = &no_ring;
	ATOMIC_STORE(&r->state, RING_EXITED);
	flush_kick();
}

/* In a forked child: the ring belongs to the parent's stream (and may be
 * shared with pfrec), so this thread goes back to the slow path, which
 * records nothing once the client is inactive (init.c's own fork hook,
 * registered before this one, has made it so). */
static void ring_detach(void)
{
	profev__tls = &no_ring;
}

static void make_key(void)
{
	pthread_key_create(&exit_key, ring_retire);
	pthread_atfork(NULL, NULL, ring_detach);
}

/* The owner's stack, for the unwinder's bounds checks. */
static void stack_bounds(struct ring *r)
{
	pthread_attr_t a;
	void *lo;
	size_t size;
	r->stack_lo = r->stack_hi = 0;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &lo, &size) == 0) {
		r->stack_lo = (uint64_t)(uintptr_t)lo;
		r->stack_hi = (uint64_t)(uintptr_t)lo + size;
	}
	pthread_attr_destroy(&a);
	thread_stack_lo = r->stack_lo;
	thread_stack_hi = r->stack_hi;
}

static struct ring *ring_register(void)
{
	/* The constructor normally started the runtime; an event from another
	 * library's constructor can come first. (init.c records nothing, so
	 * this is never reached from inside client_init.) */
	if (!ATOMIC_LOAD(&cl.active)) {
		client_init();
		if (!ATOMIC_LOAD(&cl.active))
			return NULL;
	}
	in_client++;
	pthread_once(&key_once, make_key);
	struct ring *r = ring_take();
	if (!r) {
		in_client--;
		return NULL;
	}
	/* The ring is RING_FREE, which the flush thread passes over: it is
	 * this thread's alone until the release store of RING_ACTIVE. A
	 * recycled shared ring was read to its end and pfrec heard that its
	 * thread exited: nobody else writes it until it is announced. */
	r->tid = client_gettid();
	stack_bounds(r);
	memset(r->name, 0, sizeof r->name);
	pthread_getname_np(pthread_self(), r->name, sizeof r->name);
	pthread_mutex_lock(&names_lock);
	memcpy(r->label, thread_label, thread_label_len);
	r->label_len = thread_label_len;
	pthread_mutex_unlock(&names_lock);
	__atomic_store_n(&r->dropped, 0, __ATOMIC_RELAXED);
	r->ctl->pub.end = NULL;
	ATOMIC_STORE(&r->ctl->pub.pos, r->base);
	r->sent = 0;
	ATOMIC_STORE(&r->ctl->shared.read, 0);
	ATOMIC_STORE(&r->announced, 0);
	ATOMIC_STORE(&r->state, RING_ACTIVE);
	pthread_setspecific(exit_key, r);
	alt_stack_add();
	flush_announce(r);
	profev__tls = &r->ctl->pub;
	in_client--;
	return r;
}

/*
 * The owner waits for room: it says so in ctl->waiting and sleeps on
 * ctl->read, which the consumer changes and then wakes it (see
 * pfw_ring_consumed). The program must never hang because of pfrec: a
 * consumer that said it reads no more (ctl->stop), or that died (the pipe
 * has no reader; each sleep is bounded so that this is seen), ends the
 * recording and the owner runs on.
 */
static void ring_wait(struct ring *r)
{
	int saved = errno;
	struct pfw_ring_ctl *c = &r->ctl->shared;
	uint32_t seen = ATOMIC_LOAD(&c->read);
	__atomic_store_n(&c->waiting, 1, __ATOMIC_SEQ_CST);
	flush_kick();
	if (__atomic_load_n(&c->read, __ATOMIC_SEQ_CST) == seen && ATOMIC_LOAD(&cl.active) &&
	    !__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
		struct timespec ts = { 0, PFW_WAIT_NS };
		if (syscall(SYS_futex, &c->read, FUTEX_WAIT, seen, &ts, NULL, 0) < 0 &&
		    errno == ETIMEDOUT && __atomic_load_n(&c->read, __ATOMIC_SEQ_CST) == seen &&
		    recorder_gone())
			recording_stop();
	}
	if (__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST))
		recording_stop();
	errno = saved;
}

/*
 * Room for n contiguous bytes at the owner's position, or NULL. Sets the
 * fast path's end: at the limit tail allows, or earlier at the half-full
 * mark so that the flush thread is woken before the ring fills.
 */
static unsigned char *reserve(struct ring *r, uint32_t n)
{
	uint32_t size = r->size;
	uint32_t w = (uint32_t)(ATOMIC_LOAD(&r->ctl->pub.pos) - r->base);
	uint32_t t = ATOMIC_LOAD(&r->ctl->shared.read);
	uint32_t lim;

	if (w == size) {
		w = 0;
		ATOMIC_STORE(&r->ctl->pub.pos, r->base);
	}
	if (w >= t) {
		lim = t == 0 ? size - 16 : size;
		if (w + n > lim) {
			if (t == 0)
				goto full;
			if (w < size) {
				uint64_t *pad = (uint64_t *)(void *)(r->base + w);
				pad[0] = 0;
				pad[1] = pfw_word(PFW_R_PAD, 0, size - w);
			}
			w = 0;
			ATOMIC_STORE(&r->ctl->pub.pos, r->base);
			lim = t - 16;
			if (n > lim)
				goto full;
		}
	} else {
		lim = t - 16;
		if (w + n > lim)
			goto full;
	}
	uint32_t used = (w - t) & (size - 1), half = size / 2;
	if (used + n >= half)
		flush_kick();
	else if (lim > w + (half - used))
		lim = w + (half - used);
	r->ctl->pub.end = cl.tsc ? r->base + lim : NULL;
	return r->base + w;
full:
	r->ctl->pub.end = NULL;
	return NULL;
}

/* Room for a record of n bytes, after a LOST record if events were dropped.
 * Waits for the flush thread unless --drop; NULL when the event is dropped. */
static unsigned char *acquire(uint32_t n)
{
	struct profev__ring *pub = profev__tls;
	if (in_client) {
		if (pub != &no_ring)
			dropped_add(ring_of(pub));
		return NULL;
	}
	struct ring *r = pub == &no_ring ? ring_register() : ring_of(pub);
	if (!r)
		return NULL;
	for (;;) {
		if (!ATOMIC_LOAD(&cl.active)) {
			r->ctl->pub.end = NULL;
			return NULL;
		}
		uint64_t dropped = __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
		uint32_t lost = dropped ? PFW_REC_LONG : 0;
		unsigned char *p = reserve(r, n + lost);
		if (p) {
			if (lost) {
				uint64_t *q = (uint64_t *)(void *)p;
				q[0] = client_ticks();
				q[1] = pfw_word(PFW_R_LOST, 0, 0);
				q[2] = dropped;
				q[3] = 0;
				__atomic_store_n(&r->dropped, 0, __ATOMIC_RELAXED);
				p += PFW_REC_LONG;
			}
			return p;
		}
		if (cl.drop) {
			dropped_add(r);
			flush_kick();
			return NULL;
		}
		ring_wait(r);
	}
}

static void publish(unsigned char *end)
{
	ATOMIC_STORE(&profev__tls->pos, end); /* the ring's ctl->pub */
}

struct ring *ring_self(void)
{
	struct profev__ring *pub = profev__tls;
	return pub == &no_ring ? NULL : ring_of(pub);
}

unsigned char *rec_acquire(uint32_t n)
{
	return acquire(n);
}

void rec_publish(unsigned char *end)
{
	publish(end);
}

void profev__emit_mem_slow(uint64_t word, uint64_t addr, uint64_t size)
{
	unsigned char *p = acquire(PFW_REC_LONG);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = word;
	q[2] = addr;
	q[3] = size;
	publish(p + PFW_REC_LONG);
}

void profev__emit_slow(uint64_t word, uint64_t extra, unsigned size)
{
	unsigned char *p = acquire(size);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = word;
	if (size == PFW_REC_LONG) {
		q[2] = extra;
		q[3] = 0;
	}
	publish(p + size);
}

void profev__emit_val_slow(uint64_t word, uint64_t value)
{
	unsigned char *p = acquire(PFW_REC_HEAD);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = value;
	q[1] = word;
	publish(p + PFW_REC_HEAD);
}

void profev__emit_arg_slow(struct profev_site *s, uint64_t value)
{
	uint64_t w = profev__word(s);
	if (w)
		profev__emit_val_slow(w, value);
}

void profev__arg_str(struct profev_site *s, const char *str, size_t len)
{
	uint64_t w = profev__word(s);
	if (!w)
		return;
	if (!str)
		len = 0;
	if (len > PFW_MAX_ARG_STR) {
		len = PFW_MAX_ARG_STR;
		w |= (uint64_t)PFW_RF_TRUNCATED << 8;
	}
	uint32_t size = pfw_var_size((uint32_t)len);
	unsigned char *p = acquire(size);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = len;
	q[1] = w;
	if (len)
		memcpy(p + PFW_REC_HEAD, str, len);
	memset(p + PFW_REC_HEAD + len, 0, size - PFW_REC_HEAD - len);
	publish(p + size);
}

void profev__arg_cstr(struct profev_site *s, const char *str)
{
	/* Only the bytes kept are read, plus one to know the string was longer. */
	profev__arg_str(s, str, str ? strnlen(str, PFW_MAX_ARG_STR + 1) : 0);
}

/* A MESSAGE_AT record: a message that names its call site. */
void profev__message_at(struct profev_site *s, const char *fmt, ...)
{
	char buf[PFW_MAX_TEXT + 1];
	uint64_t w = profev__word(s);
	if (!w)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	uint32_t len = (size_t)n < PFW_MAX_TEXT ? (uint32_t)n : PFW_MAX_TEXT;
	uint32_t size = PFW_REC_HEAD + pfw_var_size(len);
	unsigned char *p = acquire(size);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = (w & 0xffffffffull) | (uint64_t)len << 32;
	q[2] = w >> 32;
	q[3] = 0;
	memcpy(p + PFW_REC_LONG, buf, len);
	memset(p + PFW_REC_LONG + len, 0, size - PFW_REC_LONG - len);
	publish(p + size);
}

static void emit_var(unsigned type, unsigned category, const void *data, size_t len)
{
	if (len > PFW_MAX_TEXT)
		len = PFW_MAX_TEXT;
	uint32_t size = pfw_var_size((uint32_t)len);
	unsigned char *p = acquire(size);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = pfw_word(type, category, (uint32_t)len);
	memcpy(p + PFW_REC_HEAD, data, len);
	memset(p + PFW_REC_HEAD + len, 0, size - PFW_REC_HEAD - len);
	publish(p + size);
}

uint64_t profev__zone_dyn(struct profev_category *c, const char *name, size_t len)
{
	emit_var(PFW_R_ZONE_DYN, c->index, name, len);
	return c->end_word;
}

void profev__message(struct profev_category *c, const char *fmt, ...)
{
	char buf[PFW_MAX_TEXT + 1];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	emit_var(PFW_R_MESSAGE, c->index, buf, (size_t)n < PFW_MAX_TEXT ? (size_t)n : PFW_MAX_TEXT);
}

void profev_app_info(const char *text, size_t len)
{
	if (text && ATOMIC_LOAD(&cl.active) && profev__on(&profev__app_info))
		emit_var(PFW_R_MESSAGE, profev__app_info.index, text, len);
}

void profev_program_name(const char *name)
{
	if (name && ATOMIC_LOAD(&cl.active) && profev__on(&profev__program_name))
		emit_var(PFW_R_MESSAGE, profev__program_name.index, name, strlen(name));
}

/* On demand: the name is kept for the THREAD message of each attach. */
static void label_keep(const char *name)
{
	size_t n = strnlen(name, sizeof thread_label);
	memcpy(thread_label, name, n);
	thread_label_len = (uint32_t)n;
	struct ring *r = ring_self();
	if (r) {
		pthread_mutex_lock(&names_lock);
		memcpy(r->label, name, n);
		r->label_len = (uint32_t)n;
		pthread_mutex_unlock(&names_lock);
	}
}

void profev_thread_name(const char *name)
{
	if (name && ATOMIC_LOAD(&cl.ondemand))
		label_keep(name);
	if (!name || !ATOMIC_LOAD(&cl.active))
		return;
	emit_var(PFW_R_THREAD_NAME, 0, name, strlen(name));
}
