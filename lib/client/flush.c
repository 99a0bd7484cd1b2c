/*
 * flush.c - the flush thread, which moves what threads wrote to the pipe,
 * and the crash handlers, which do the same one last time before the
 * program's own handler or the default action runs, then send the crash
 * with the callstack of the thread it stopped.
 *
 * The flush thread writes to the pipe while the program runs (it has every
 * signal blocked, so a dead pfrec gives it EPIPE, never SIGPIPE); a thread
 * announcing its shared ring at its first event (flush_announce) and a
 * crash handler may too, holding the same pipe lock. The flush thread wakes
 * every age_us (2 ms), when a ring passes half full, when a thread exits
 * and when a producer waits for room. A SIGKILL loses nothing of a shared
 * ring (pfrec reads on to the owner's position in the control page), and
 * at most the last age_us of events of a private one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "client.h"
#include "common/write_all.h"

static pthread_t flusher;
static int running;
static pthread_mutex_t fl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fl_cond;    /* wakes the flush thread */
static int kicked, stopping;
static uint32_t pipe_owner;       /* tid holding the pipe, 0 if none */

int pipe_lock(int from_signal)
{
	uint32_t me = client_gettid();
	for (unsigned i = 0;; i++) {
		uint32_t expect = 0;
		if (__atomic_compare_exchange_n(&pipe_owner, &expect, me, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return 0;
		/* A crash inside our own write: the stream may be mid-message. */
		if (expect == me)
			return -1;
		if (from_signal && i > 2000)
			return -1;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

void pipe_unlock(void)
{
	__atomic_store_n(&pipe_owner, 0, __ATOMIC_RELEASE);
}

/* The pipe, read under the pipe lock: at_exit() takes the lock to set it to
 * -1, so a writer never writes to a descriptor closed or reused since. */
static int pipe_fd(void)
{
	return __atomic_load_n(&cl.fd, __ATOMIC_RELAXED);
}

static int send_msg(uint16_t type, uint32_t tid, const void *body, uint32_t len)
{
	struct pfw_header h = { PFW_MAGIC, type, 0, len, tid };
	struct iovec iov[2] = { { &h, sizeof h }, { (void *)body, len } };
	return writev_all(pipe_fd(), iov, len ? 2 : 1, NULL);
}

#define BATCH 64
struct pending {
	struct ring *r;
	int state;
	uint32_t w, t;
};
/* Used under the pipe lock only. */
static struct pending pend[BATCH];
static struct pfw_header hdrs[BATCH * 4];
static struct pfw_ring ring_msgs[BATCH];
static struct pfw_ring_data data_msgs[BATCH];
static struct iovec iov[BATCH * 7 + 1];
static unsigned char *dbuf;
static size_t dcap;
static char names[BATCH][sizeof ((struct ring *)0)->label + 1];

/* The name a THREAD message gives r: on demand, the one the program gave
 * with profev_thread_name() (copied into names[i] under names_lock, which
 * a signal handler does not take), else the one it had at registration. */
static const char *thread_name_of(struct ring *r, int i, int from_signal)
{
	if (!cl.ondemand || from_signal)
		return r->name;
	pthread_mutex_lock(&names_lock);
	uint32_t n = r->label_len;
	memcpy(names[i], r->label, n);
	pthread_mutex_unlock(&names_lock);
	if (!n)
		return r->name;
	names[i][n] = 0;
	return names[i];
}

static int collect(struct ring **cursor, int from_signal)
{
	int np = 0;
	struct ring *r = *cursor;
	for (; r && np < BATCH; r = r->next) {
		int st = ATOMIC_LOAD(&r->state);
		if (st == RING_FREE)
			continue;
		if (st == RING_DRAINING) {
			if (!from_signal && ATOMIC_LOAD(&r->ctl->shared.read) == r->sent)
				ring_recycle(r);
			continue;
		}
		uint32_t w = (uint32_t)(ATOMIC_LOAD(&r->ctl->pub.pos) - r->base);
		if (w == r->sent && ATOMIC_LOAD(&r->announced) && st == RING_ACTIVE)
			continue;
		pend[np++] = (struct pending){ r, st, w, r->sent };
	}
	*cursor = r;
	return np;
}

static int hello_sent;

/* Under the pipe lock: whoever writes first (usually the flush thread, but
 * a crash can come sooner) starts the stream with PFW_HELLO. */
static int send_hello(void)
{
	if (hello_sent)
		return 0;
	struct pfw_hello h = {
		PFW_VERSION, cl.pid, cl.tsc ? (uint32_t)cl.tsc : PFW_CLOCK_MONOTONIC,
		cl.drop ? PFW_HELLO_DROP : 0, calib_rate, calib_tick0, calib_mono0, calib_real0,
		cl.ring_bytes, cl.age_us,
	};
	if (send_msg(PFW_HELLO, 0, &h, sizeof h) < 0)
		return -1;
	hello_sent = 1;
	return 0;
}

int flush_pass(int from_signal)
{
	if (pipe_lock(from_signal) < 0)
		return -1;
	if (send_hello() < 0) {
		pipe_unlock();
		return -1;
	}
	int rc = 0;
	struct ring *cursor = ATOMIC_LOAD(&all_rings);
	do {
		int np = collect(&cursor, from_signal);
		/* Definitions are taken after the positions were read: any record
		 * below those positions used an id queued before. */
		size_t dn = defs_take(&dbuf, &dcap, from_signal);
		int ni = 0, nh = 0;
		if (dn)
			iov[ni++] = (struct iovec){ dbuf, dn };
		for (int i = 0; i < np; i++) {
			struct pending *p = &pend[i];
			struct ring *r = p->r;
			if (!ATOMIC_LOAD(&r->announced)) {
				const char *name = thread_name_of(r, i, from_signal);
				uint32_t len = (uint32_t)strnlen(name, sizeof names[i]);
				hdrs[nh] = (struct pfw_header){ PFW_MAGIC, PFW_THREAD, 0, len, r->tid };
				iov[ni++] = (struct iovec){ &hdrs[nh++], sizeof(struct pfw_header) };
				if (len)
					iov[ni++] = (struct iovec){ (void *)name, len };
				if (ring_shared(r)) {
					ring_msgs[i] = (struct pfw_ring){ r->shm_off, r->size, r->sent,
									(uint64_t)(uintptr_t)r->base };
					hdrs[nh] = (struct pfw_header){ PFW_MAGIC, PFW_RING, 0,
									sizeof ring_msgs[i], r->tid };
					iov[ni++] = (struct iovec){ &hdrs[nh++], sizeof(struct pfw_header) };
					iov[ni++] = (struct iovec){ &ring_msgs[i], sizeof ring_msgs[i] };
				}
			}
			if (p->w != p->t && ring_shared(r)) {
				data_msgs[i] = (struct pfw_ring_data){ p->w, 0 };
				hdrs[nh] = (struct pfw_header){ PFW_MAGIC, PFW_RING_DATA, 0, sizeof data_msgs[i],
								r->tid };
				iov[ni++] = (struct iovec){ &hdrs[nh++], sizeof(struct pfw_header) };
				iov[ni++] = (struct iovec){ &data_msgs[i], sizeof data_msgs[i] };
			} else if (p->w != p->t) {
				uint32_t len = p->w > p->t ? p->w - p->t : r->size - p->t + p->w;
				hdrs[nh] = (struct pfw_header){ PFW_MAGIC, PFW_EVENTS, 0, len, r->tid };
				iov[ni++] = (struct iovec){ &hdrs[nh++], sizeof(struct pfw_header) };
				if (p->w > p->t) {
					iov[ni++] = (struct iovec){ r->base + p->t, p->w - p->t };
				} else {
					iov[ni++] = (struct iovec){ r->base + p->t, r->size - p->t };
					iov[ni++] = (struct iovec){ r->base, p->w };
				}
			}
			if (p->state == RING_EXITED) {
				hdrs[nh] = (struct pfw_header){ PFW_MAGIC, PFW_THREAD_EXIT, 0, 0, r->tid };
				iov[ni++] = (struct iovec){ &hdrs[nh++], sizeof(struct pfw_header) };
			}
		}
		if (ni && writev_all(pipe_fd(), iov, ni, NULL) < 0) {
			rc = -1;
			break;
		}
		for (int i = 0; i < np; i++) {
			struct ring *r = pend[i].r;
			r->sent = pend[i].w;
			ATOMIC_STORE(&r->announced, 1);
			if (!ring_shared(r))
				pfw_ring_consumed(&r->ctl->shared, pend[i].w);
			if (pend[i].state == RING_EXITED && !from_signal) {
				if (ring_shared(r))
					ATOMIC_STORE(&r->state, RING_DRAINING);
				else
					ring_recycle(r);
			}
		}
	} while (cursor);
	pipe_unlock();
	return rc;
}

/*
 * A thread's first event: the thread announces its shared ring itself
 * (with HELLO and the definitions queued so far, which its records use),
 * so that a program killed before the flush thread's next pass (SIGKILL
 * right after a burst, or a flush thread that load keeps off the CPU)
 * loses none of the ring's records. This is the slow path of ring
 * registration, once per thread; the macros' fast path never comes here.
 * It may wait for the pipe like a producer waits for room, so not in drop
 * mode, where producers never wait: there the flush thread announces it.
 * SIGPIPE is blocked for the write, as in the flush thread, and one that
 * the write raised is taken back.
 */
void flush_announce(struct ring *r)
{
	if (!ring_shared(r) || cl.drop || !ATOMIC_LOAD(&cl.active))
		return;
	sigset_t pipe_only, old;
	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	if (pthread_sigmask(SIG_BLOCK, &pipe_only, &old) != 0)
		return;
	sigset_t pending;
	int had_pipe = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	if (pipe_lock(0) == 0) {
		int rc = send_hello();
		if (rc == 0 && !ATOMIC_LOAD(&r->announced)) {
			/* Under the pipe lock, as in flush_pass(): the flush
			 * thread's collect() sees announced only after this. */
			size_t dn = defs_take(&dbuf, &dcap, 0);
			uint32_t len = (uint32_t)strnlen(r->name, sizeof r->name);
			struct pfw_header th = { PFW_MAGIC, PFW_THREAD, 0, len, r->tid };
			struct pfw_ring rm = { r->shm_off, r->size, r->sent, (uint64_t)(uintptr_t)r->base };
			struct pfw_header rh = { PFW_MAGIC, PFW_RING, 0, sizeof rm, r->tid };
			struct iovec v[5];
			int n = 0;
			if (dn)
				v[n++] = (struct iovec){ dbuf, dn };
			v[n++] = (struct iovec){ &th, sizeof th };
			if (len)
				v[n++] = (struct iovec){ r->name, len };
			v[n++] = (struct iovec){ &rh, sizeof rh };
			v[n++] = (struct iovec){ &rm, sizeof rm };
			rc = writev_all(pipe_fd(), v, n, NULL);
			if (rc == 0)
				ATOMIC_STORE(&r->announced, 1);
		}
		pipe_unlock();
		if (rc < 0)
			recording_stop(); /* pfrec is gone, as the flush thread would find */
	}
	if (!had_pipe && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE)) {
		struct timespec zero = { 0, 0 };
		sigtimedwait(&pipe_only, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int send_sync(void)
{
	struct pfw_sync s;
	int rc = 0;
	clock_pair(&s.tick, &s.mono);
	if (pipe_lock(0) == 0) {
		rc = send_msg(PFW_SYNC, 0, &s, sizeof s);
		pipe_unlock();
	}
	return rc;
}

/* pfrec is gone, or reads no more: stop producing rather than wait for a
 * reader forever. The program runs on, unrecorded. */
void recording_stop(void)
{
	if (!__atomic_exchange_n(&cl.active, 0, __ATOMIC_ACQ_REL))
		return;
	categories_disable_all();
	flush_kick();
}

/*
 * The pipe's read end is closed: pfrec died (a SIGKILL closes it too) or
 * gave up. A write would say so with EPIPE, but a flush thread with nothing
 * new to send, behind a full ring, writes nothing; poll() tells anyway.
 */
int recorder_gone(void)
{
	struct pollfd p = { __atomic_load_n(&cl.fd, __ATOMIC_RELAXED), POLLOUT, 0 };
	if (p.fd < 0)
		return 0;
	int saved = errno;
	int k = poll(&p, 1, 0);
	errno = saved;
	return k == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

static void *flush_main(void *arg)
{
	(void)arg;
	int ok = 1;
	uint64_t next_sync = mono_ns() + 20000000;
	while (ok) {
		int stop = __atomic_load_n(&stopping, __ATOMIC_ACQUIRE);
		if (flush_pass(0) < 0 || recorder_gone()) {
			recording_stop();
			ok = 0;
		}
		uint64_t now = mono_ns();
		if (ok && now >= next_sync) {
			if (send_sync() < 0) {
				recording_stop();
				ok = 0;
			}
			next_sync = now + 250000000;
		}
		/* A producer found pfrec gone (ring_wait) and stopped recording. */
		if (!ATOMIC_LOAD(&cl.active))
			ok = 0;
		pthread_mutex_lock(&fl_lock);
		if (stop || !ok) {
			pthread_mutex_unlock(&fl_lock);
			break;
		}
		if (!kicked && !stopping) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += (long)cl.age_us * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&fl_cond, &fl_lock, &ts);
		}
		__atomic_store_n(&kicked, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&fl_lock);
	}
	if (ok) {
		send_sync();
		struct pfw_bye b = { __atomic_load_n(&cl.lost_unreported, __ATOMIC_RELAXED) };
		for (struct ring *r = ATOMIC_LOAD(&all_rings); r; r = r->next)
			if (ATOMIC_LOAD(&r->state) != RING_FREE)
				b.lost += __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
		pipe_lock(0);
		send_msg(PFW_BYE, 0, &b, sizeof b);
		pipe_unlock();
	}
	return NULL;
}

void flush_session(void)
{
	hello_sent = 0;
	__atomic_store_n(&cl.lost_unreported, 0, __ATOMIC_RELAXED);
	for (struct ring *r = ATOMIC_LOAD(&all_rings); r; r = r->next) {
		int st = ATOMIC_LOAD(&r->state);
		if (st == RING_EXITED || st == RING_DRAINING) {
			/* Its thread ended while nobody was attached, or the
			 * last recording ended before pfrec read it all. */
			ring_recycle(r);
			continue;
		}
		if (st != RING_ACTIVE)
			continue;
		/* The owner writes on: what it wrote before now belongs to
		 * no recording. The next one starts where it is. */
		uint32_t w = (uint32_t)(ATOMIC_LOAD(&r->ctl->pub.pos) - r->base);
		r->sent = w;
		ATOMIC_STORE(&r->announced, 0);
		__atomic_store_n(&r->ctl->shared.stop, 0, __ATOMIC_SEQ_CST);
		pfw_ring_consumed(&r->ctl->shared, w);
	}
	struct pfw_image_ctl *c = ATOMIC_LOAD(&img_ctl_shared);
	if (c) {
		for (uint32_t i = 0; i < PFW_IMAGE_SLOTS; i++)
			__atomic_store_n(&c->state[i], PFW_SLOT_FREE, __ATOMIC_SEQ_CST);
		__atomic_store_n(&c->stop, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&c->gen, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &c->gen, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
	}
}

int flush_start(void)
{
	__atomic_store_n(&stopping, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&kicked, 0, __ATOMIC_RELAXED);
	static int cond_made;
	if (!cond_made) {
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&fl_cond, &ca);
		pthread_condattr_destroy(&ca);
		cond_made = 1;
	}

	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&flusher, NULL, flush_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -1;
	pthread_setname_np(flusher, "profev-flush");
	running = 1;
	return 0;
}

void flush_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&fl_lock);
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&fl_cond);
	pthread_mutex_unlock(&fl_lock);
	pthread_join(flusher, NULL);
	running = 0;
}

/* In a forked child: the parent's flush thread is not ours to join. */
void flush_forget(void)
{
	running = 0;
}

void flush_kick(void)
{
	if (__atomic_load_n(&kicked, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&fl_lock);
	__atomic_store_n(&kicked, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&fl_cond);
	pthread_mutex_unlock(&fl_lock);
}

/* ---- crash signals ---------------------------------------------------- */

static const int crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NCRASH (int)(sizeof crash_sigs / sizeof crash_sigs[0])
static struct sigaction old_actions[NCRASH];
static int in_crash;

/* A CRASH message (formats/wire.md): the signal, and the callstack of the
 * thread it stopped, from its context. */
struct crash_msg {
	struct pfw_header h;
	struct pfw_crash c;
	uint64_t stack[2 + PFW_MAX_FRAMES]; /* head, pcs, padding */
};

/* Taken before the last flush, which may take a while (pfrec reading), so
 * that the crash's time is the crash's; sent after it, so that the
 * thread's records come first. */
static void crash_capture(struct crash_msg *m, int sig, const siginfo_t *si, void *uc)
{
	uint64_t pc[PFW_MAX_FRAMES];
	unsigned n = unwind_context(uc, thread_stack_lo, thread_stack_hi, pc, PFW_MAX_FRAMES);
	m->c = (struct pfw_crash){ (uint32_t)sig, si->si_code,
				   si->si_code > 0 ? (uint64_t)(uintptr_t)si->si_addr : 0, client_ticks() };
	m->h = (struct pfw_header){ PFW_MAGIC, PFW_CRASH, 0,
				    (uint32_t)sizeof m->c + pfw_stack_size(n), client_gettid() };
	m->stack[0] = n | (n ? PFW_STACK_EXACT : 0);
	memcpy(m->stack + 1, pc, 8u * n);
	m->stack[1 + n] = 0; /* the padding of an even n */
}

static void crash_send(struct crash_msg *m)
{
	if (pipe_lock(1) < 0)
		return;
	struct iovec v = { m, sizeof m->h + m->h.len };
	writev_all(pipe_fd(), &v, 1, NULL);
	pipe_unlock();
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, i = 0;
	while (i < NCRASH - 1 && crash_sigs[i] != sig)
		i++;
	if (ATOMIC_LOAD(&cl.active) && !__atomic_exchange_n(&in_crash, 1, __ATOMIC_ACQUIRE)) {
		struct crash_msg m;
		crash_capture(&m, sig, si, uc);
		if (flush_pass(1) == 0)
			crash_send(&m);
		__atomic_store_n(&in_crash, 0, __ATOMIC_RELEASE);
	}
	struct sigaction *o = &old_actions[i];
	if (o->sa_flags & SA_SIGINFO) {
		if (o->sa_sigaction) {
			errno = saved;
			o->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN) {
		errno = saved;
		o->sa_handler(sig);
		return;
	}
	/* Chain to the default action: a fault repeats when the instruction
	 * restarts; a signal that was sent is sent again, and arrives as soon
	 * as this handler returns. */
	sigaction(sig, o, NULL);
	if (si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
	errno = saved;
}

void crash_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPIPE);
	for (int i = 0; i < NCRASH; i++)
		sigaction(crash_sigs[i], &sa, &old_actions[i]);
}
