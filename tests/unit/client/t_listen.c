/* On-demand recording (lib/client/listen.c, lib/rec/attach.c): a child
 * that calls profev_listen() runs threads that record zones, frames and
 * names all the time, some starting and ending as it goes; the parent
 * attaches to it three times with the recorder library, detaches after a
 * moment, and between times throws bytes at its socket. Each trace must
 * hold its attach and detach, frames numbered from the child's first,
 * balanced zones and named threads; the child ends with its own status.
 * Under TSan (make SAN=thread tsan-test) this is the client's race test. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check.h"
#include "profev.h"
#include "profev_record.h"
#include "profev_trace.h"

PROFEV_CATEGORY(work, "work");

/* The program runs until the test is done with it (SIGUSR1), or this long. */
#define RUN_MS 120000

static volatile sig_atomic_t child_stop;

static void on_usr1(int sig)
{
	(void)sig;
	child_stop = 1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- the program attached to --------------------------------------- */

static void *worker(void *arg)
{
	char name[16];
	snprintf(name, sizeof name, "worker %d", (int)(intptr_t)arg);
	profev_thread_name(name);
	for (int i = 0; i < 200; i++) {
		PROFEV_ZONE(work, "job");
		PROFEV_ARG_INT("i", i);
		{
			PROFEV_ZONE(work, "inner");
			PROFEV_COUNTER(work, "n", i);
		}
		sleep_ms(1);
	}
	return NULL;
}

static int child(void)
{
	signal(SIGUSR1, on_usr1);
	if (profev_listen() != 0)
		return 90;
	profev_thread_name("main");
	uint64_t end = now_ms() + RUN_MS;
	int k = 0;
	while (!child_stop && now_ms() < end) {
		/* Threads come and go, attached or not. */
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(k * 2 + i));
		for (int f = 0; f < 50 && !child_stop && now_ms() < end; f++) {
			PROFEV_ZONE(work, "frame");
			sleep_ms(2);
			PROFEV_FRAME_MARK();
		}
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		k++;
	}
	return 5;
}

/* ---- the recorder ------------------------------------------------------ */

struct detacher {
	struct profev_recorder *r;
	int ms;
	uint64_t events; /* written so far, from the progress callback */
};

static void on_progress(void *ctx, const struct profev_record_stats *s)
{
	__atomic_store_n(&((struct detacher *)ctx)->events, s->events, __ATOMIC_RELAXED);
}

/* Detaches after ms, and once the trace holds enough to check: on a loaded
 * machine the attach itself may take most of ms (60 s at the most). */
static void *detach_later(void *arg)
{
	struct detacher *d = arg;
	sleep_ms(d->ms);
	for (int waited = 0; __atomic_load_n(&d->events, __ATOMIC_RELAXED) < 1000 && waited < 60000; waited += 20)
		sleep_ms(20);
	profev_recorder_signal(d->r, SIGINT);
	return NULL;
}

/* Attach for ms, then check the trace. */
static void attach_once(pid_t pid, int ms)
{
	char path[] = "/tmp/t_listen.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	struct detacher d = { NULL, ms, 0 };
	struct profev_record_opts o = { 0 };
	o.out_fd = fd;
	o.attach_pid = pid;
	o.progress = on_progress;
	o.progress_ns = 20000000;
	o.ctx = &d;
	struct profev_error err = { 0 };
	struct profev_recorder *r = profev_recorder_start(&o, &err);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "attach: %s\n", err.message);
		close(fd);
		unlink(path);
		return;
	}
	d.r = r;
	pthread_t t;
	pthread_create(&t, NULL, detach_later, &d);
	struct profev_record_result res;
	CHECK_EQ(profev_recorder_run(r, &res), 0);
	pthread_join(t, NULL);
	CHECK_EQ(res.detached, 1);
	profev_recorder_free(r);
	close(fd);

	FILE *f = fopen(path, "rb");
	struct profev_reader *rd = f ? profev_reader_new(f, &err) : NULL;
	CHECK(rd != NULL);
	if (!rd) {
		unlink(path);
		return;
	}
	struct profev_event ev;
	struct profev_event_info in;
	long begins = 0, ends = 0, before = 0, after = 0, marks = 0, attach = 0, detach = 0;
	long workers = 0;
	uint64_t first_frame = 0, frames_before = 0, frames_after = 0, last_frame = 0;
	while (profev_reader_next_event(rd, &ev, &in) == 1) {
		switch (ev.type) {
		case PROFEV_EV_ZONE_BEGIN: begins++; break;
		case PROFEV_EV_ZONE_END: ends++; break;
		case PROFEV_EV_ZONE_BEFORE: before++; break;
		case PROFEV_EV_ZONE_AFTER: after++; break;
		case PROFEV_EV_ATTACH: attach++; frames_before = ev.payload; break;
		case PROFEV_EV_DETACH: detach++; frames_after = ev.payload; break;
		case PROFEV_EV_FRAME_MARK:
			if (!marks++)
				first_frame = ev.frame;
			last_frame = ev.frame;
			break;
		default: break;
		}
		if (in.thread && strncmp(in.thread, "worker ", 7) == 0)
			workers++;
	}
	CHECK_EQ(attach, 1);
	CHECK_EQ(detach, 1);
	CHECK(marks > 10);
	CHECK_EQ_U64(first_frame, frames_before);
	CHECK_EQ_U64(last_frame + 1, frames_after);
	CHECK(begins > 100);
	CHECK_EQ(begins + before, ends + after);
	CHECK(workers > 0);
	profev_reader_free(rd);
	fclose(f);
	unlink(path);
}

/* Bytes that are no request, then a request of another version. */
static void poke(pid_t pid)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "profev-%d", (int)pid);
	for (int round = 0; round < 2; round++) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		CHECK(connect(fd, (struct sockaddr *)&a,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) == 0);
		unsigned char junk[100];
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (unsigned char)(i * 37 + (size_t)round);
		if (round == 1) {
			memcpy(junk, "PFW1\x19\0\0\0\x10\0\0\0\0\0\0\0\x07\0\0\0", 20);
		}
		(void)!send(fd, junk, round ? 32 : sizeof junk, MSG_NOSIGNAL);
		char answer[256];
		ssize_t k = recv(fd, answer, sizeof answer, 0);
		CHECK(k > 48);
		close(fd);
	}
}

/* Until the program listens (it lists in /proc/net/unix), 60 s at the
 * most: under qemu on a loaded machine its start takes seconds. */
static int wait_listening(pid_t pid)
{
	for (int waited = 0; waited < 60000; waited += 20) {
		struct profev_attachable *v = NULL;
		struct profev_error err = { 0 };
		long n = profev_attachable(&v, &err);
		int found = 0;
		for (long i = 0; i < n; i++)
			found |= v[i].pid == pid;
		free(v);
		if (found)
			return 1;
		sleep_ms(20);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return child();
	pid_t pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(99);
	}
	CHECK(pid > 0);
	CHECK(wait_listening(pid));
	poke(pid);
	attach_once(pid, 500);
	poke(pid);
	attach_once(pid, 300);
	sleep_ms(200);
	attach_once(pid, 600);
	kill(pid, SIGUSR1);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 5);
	return CHECK_DONE();
}
