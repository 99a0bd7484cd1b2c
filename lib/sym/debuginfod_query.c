/*
 * sym/debuginfod_query.c - one query to the debuginfod servers through
 * libdebuginfod: the servers and limits set in the environment it reads,
 * progress reported and the limits checked as data comes, redirects
 * counted from its verbose log, and what went wrong told in a warning
 * that names the server, the build-id and the cause (cut short at N
 * bytes, too many redirects, over the size or time limit and the limit's
 * source). A miss libdebuginfod remembered for a broken transfer is
 * forgotten, so that the next run asks again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sym/debuginfod_internal.h"
#include "sym/sym_internal.h"

/* libdebuginfod's functions, once a client has begun */
static const struct dfd_lib *lib;

/* The server part of a download URL (before "/buildid/"). */
static const char *server_of(struct profev_debuginfod *d, const char *url)
{
	const char *b = url ? strstr(url, "/buildid/") : NULL;
	if (!url)
		return NULL;
	snprintf(d->server, sizeof(d->server), "%.*s", (int)(b ? b - url : (long)strlen(url)), url);
	return d->server;
}

/* The redirects the log shows since it was last read ("header HTTP/1.1
 * 302 Found" lines, written as the headers come). */
static void count_redirects(struct profev_debuginfod *d)
{
	char buf[4096];
	ssize_t n;
	while ((n = pread(d->log_fd, buf, sizeof(buf) - 1, d->log_seen)) > 0) {
		buf[n] = '\0';
		char *end = strrchr(buf, '\n');
		if (!end)
			break;  /* a line still being written, or longer than buf */
		*end = '\0';
		d->log_seen += end + 1 - buf;
		for (char *l = buf; (l = strstr(l, "header HTTP/")); l++) {
			const char *sp = strchr(l, ' ');
			sp = sp ? strchr(sp + 1, ' ') : NULL;
			if (sp && sp[1] == '3')
				d->redirects++;
		}
	}
}

/*
 * libdebuginfod calls this while it waits (every second at least) and as
 * data comes: a non-zero return ends the query, its partial file removed.
 * The limits are enforced here (debuginfod_limits.c).
 */
static int progress_cb(debuginfod_client *c, long a, long b)
{
	struct profev_debuginfod *d = lib->get_user_data(c);
	if (!d)
		return 0;
	/* Before a server answers, a and b count the waits, not bytes. */
	const char *url = lib->get_url(c);
	if (url) {
		d->cur.server = server_of(d, url);
		d->cur.done = a > 0 ? a : 0;
		d->cur.total = b > 0 ? b : 0;
		d->got = d->cur.done;
	}
	if (d->progress)
		d->progress(d->progress_ctx, &d->cur);
	if (d->log_fd >= 0)
		count_redirects(d);
	return limits_check(d, url != NULL) != END_NONE;
}

/* Begin d's client. 0, or -1 with msg set the first time (empty after). */
static int load(struct profev_debuginfod *d, char *msg, size_t cap)
{
	msg[0] = '\0';
	if (d->client)
		return 0;
	if (d->load_failed)
		return -1;
	d->load_failed = 1;
	const char *why;
	if (!(lib = dfd_lib_load(&why))) {
		snprintf(msg, cap, "%s: no debuginfod server asked", why);
		return -1;
	}
	if (!(d->client = lib->begin())) {
		snprintf(msg, cap, "debuginfod_begin() failed: no debuginfod server asked");
		return -1;
	}
	lib->set_user_data(d->client, d);
	lib->set_progressfn(d->client, progress_cb);
	if (lib->set_verbose_fd && (d->log_fd = memfd_create("profev-debuginfod", MFD_CLOEXEC)) >= 0)
		lib->set_verbose_fd(d->client, d->log_fd);
	d->load_failed = 0;
	return 0;
}

/*
 * What libdebuginfod told its verbose log about the query just made, for
 * what its answer leaves out: a "not found" (-ENOENT) is its answer both
 * to a 404 and to a transfer that broke (a body cut short), and it
 * remembers both as a miss. The log names the cause ("server response
 * Transferred a partial file", "url 0 The requested URL returned error:
 * 404", "transfer closed with N bytes remaining to read", the headers).
 * Its text is elfutils' (0.179 and later), not a promise: a log that says
 * nothing known leaves the answer as libdebuginfod gave it (a remembered
 * miss asks no server and logs no response).
 */
struct query_log {
	int broken;           /* a transfer failed, not by a 404 */
	char why[160];        /* that failure, as curl says it */
	long long length;     /* the last Content-Length announced, -1 none */
	long long remaining;  /* bytes a cut transfer lacked, -1 unknown */
	int max_time;         /* DEBUGINFOD_MAXTIME ended it */
};

static void query_log(struct profev_debuginfod *d, struct query_log *q)
{
	memset(q, 0, sizeof(*q));
	q->length = q->remaining = -1;
	if (d->log_fd < 0)
		return;
	off_t n = lseek(d->log_fd, 0, SEEK_END);
	/* the head of a log a server made long with headers is enough */
	size_t cap = n > 0 ? (size_t)(n < 1 << 20 ? n : 1 << 20) : 0;
	char *buf = cap ? malloc(cap + 1) : NULL;
	ssize_t got = buf ? pread(d->log_fd, buf, cap, 0) : -1;
	if (got > 0) {
		buf[got] = '\0';
		for (char *line = buf, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			const char *v;
			long long x;
			if (strncmp(line, "server response ", 16) == 0) {
				v = line + 16;
				if (strcmp(v, "HTTP response code said error") != 0 && !q->broken) {
					q->broken = 1;
					snprintf(q->why, sizeof(q->why), "%s", v);
				}
			} else if (strstr(line, "returned error: ") && !strstr(line, "error: 404") &&
				   !q->broken) {
				q->broken = 1;
				snprintf(q->why, sizeof(q->why), "%s", strstr(line, "returned error: ") + 9);
			} else if ((v = strstr(line, "transfer closed with ")) &&
				   sscanf(v, "transfer closed with %lld bytes remaining", &x) == 1) {
				q->remaining = x;
			} else if (strncmp(line, "Timeout with max time", 21) == 0) {
				q->max_time = 1;
			} else if (strncasecmp(line, "header content-length:", 22) == 0 &&
				   sscanf(line + 22, "%lld", &x) == 1) {
				q->length = x;
			}
		}
	}
	free(buf);
	if (ftruncate(d->log_fd, 0) == 0)
		lseek(d->log_fd, 0, SEEK_SET);
}

/* An environment variable set for a query, and what it was. */
struct env_save {
	const char *name;
	const char *value;   /* NULL: left alone */
	char *old;
	int had, set;
};

/* -1 when out of memory (nothing then changed). */
static int env_set(struct env_save *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		e[i].set = 0;
		if (!e[i].value)
			continue;
		const char *o = getenv(e[i].name);
		e[i].had = o != NULL;
		e[i].old = o ? strdup(o) : NULL;
		if ((o && !e[i].old) || setenv(e[i].name, e[i].value, 1) != 0) {
			free(e[i].old);
			while (i-- > 0)
				if (e[i].set) {
					if (e[i].had)
						setenv(e[i].name, e[i].old, 1);
					else
						unsetenv(e[i].name);
					free(e[i].old);
				}
			return -1;
		}
		e[i].set = 1;
	}
	return 0;
}

static void env_restore(struct env_save *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!e[i].set)
			continue;
		if (e[i].had)
			setenv(e[i].name, e[i].old, 1);
		else
			unsetenv(e[i].name);
		free(e[i].old);
	}
}

int dfd_query(struct profev_debuginfod *d, const char *mod, const char *what, const char *hex,
	      const uint8_t *id, unsigned idlen, int negative, struct profev_debuginfo *di,
	      char **path, char **server)
{
	char msg[512];
	if (load(d, msg, sizeof(msg)) < 0)
		return msg[0] ? debuginfo_warn(di, "'%s': %s", mod, msg) : 0;
	/* libdebuginfod reads its settings from the environment, at each
	 * query: the servers, and the limits as a second line of defence
	 * (MAXSIZE refuses an announced length at once) */
	char size[32], secs[32];
	snprintf(size, sizeof(size), "%llu", d->max_size);
	snprintf(secs, sizeof(secs), "%u", (unsigned)(d->budget - d->spent + 1));
	struct env_save env[] = {
		{ URLS_ENV, d->set_env ? d->urls : NULL }, { "DEBUGINFOD_MAXSIZE", size },
		{ "DEBUGINFOD_MAXTIME", secs },
	};
	if (env_set(env, 3) < 0)
		return PROFEV_E_NOMEM;
	d->cur = (struct profev_debuginfod_progress){ mod, hex, NULL, 0, 0, 0 };
	limits_start(d);
	d->log_seen = 0;
	char *p = NULL;
	int fd = lib->find_debuginfo(d->client, id, (int)idlen, &p);
	d->spent += dfd_now() - d->t0;
	const char *url = lib->get_url(d->client);
	const char *srv = fd >= 0 && url ? server_of(d, url) : NULL;
	env_restore(env, 3);
	if (d->progress) {
		d->cur.server = srv;
		d->cur.finished = 1;
		d->progress(d->progress_ctx, &d->cur);
	}
	struct query_log q;
	query_log(d, &q);
	if (fd >= 0) {
		close(fd);
		*path = p;
		if (srv && !(*server = strdup(srv)))
			return PROFEV_E_NOMEM;
		return p ? 1 : PROFEV_E_NOMEM;
	}
	free(p);
	const char *s = strchr(d->urls, ' ') ? "servers" : "server";
	/* libdebuginfod remembers more than a 404 as a miss (an empty
	 * file): a broken or ended transfer is not one, the next run asks
	 * again */
	if (fd != -ENOENT || q.broken || d->ended != END_NONE)
		cache_forget_miss(d, hex);
	if (d->ended == END_STOP)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: download from debuginfod %s '%s' stopped by a signal",
				   mod, what, hex, s, d->urls);
	/* an announced length over the limit ends the transfer at once,
	 * here or in libdebuginfod (DEBUGINFOD_MAXSIZE), whichever sees it
	 * first; a body without one is cut off where it passes the limit */
	long long announced = (unsigned long long)d->cur.total > d->max_size ? d->cur.total
			      : fd == -EFBIG ? q.length : -1;
	if (announced > 0)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' announced %lld bytes, over the size limit of %llu bytes (%s): not fetched",
				   mod, what, hex, s, d->urls, announced, d->max_size, d->size_from);
	if (d->ended == END_SIZE || fd == -EFBIG)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' sent more than the size limit of %llu bytes (%s): cut off at %lld bytes, nothing kept",
				   mod, what, hex, s, d->urls, d->max_size, d->size_from, d->got);
	if (d->ended == END_TIME || (fd == -ETIME && q.max_time))
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' took more than the time limit of %u s (%s): given up after %lld bytes, nothing kept",
				   mod, what, hex, s, d->urls, d->max_time, d->time_from, d->got);
	if (d->ended == END_BUDGET)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s': given up after %lld bytes, the time budget of this run's downloads (%.0f s, twice the time limit of %s) is spent",
				   mod, what, hex, s, d->urls, d->got, d->budget, d->time_from);
	if (d->ended == END_REDIRECTS)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s': too many redirects (more than %d): given up",
				   mod, what, hex, s, d->urls, MAX_REDIRECTS);
	if (fd == -ENOENT && q.broken) {
		if (q.remaining >= 0 && q.length >= q.remaining)
			return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' cut the file short at %lld of %lld bytes (not kept: asked again next time)",
					   mod, what, hex, s, d->urls, q.length - q.remaining, q.length);
		return debuginfo_warn(di, "'%s': %sbuild-id %s: unable to fetch from debuginfod %s '%s': %s (not remembered as missing: asked again next time)",
				   mod, what, hex, s, d->urls, q.why[0] ? q.why : "the transfer failed");
	}
	if (fd == -ENOENT)
		return debuginfo_warn(di, "'%s': %sbuild-id %s not found on debuginfod %s '%s'%s", mod, what,
				   hex, s, d->urls,
				   negative ? " (a miss the debuginfod cache remembers from an earlier query)" : "");
	if (fd == -ETIME || fd == -ETIMEDOUT) {
		/* one wait per run, not one per module */
		snprintf(d->timed_out, sizeof(d->timed_out), "%s", mod);
		const char *t = getenv("DEBUGINFOD_TIMEOUT");
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' timed out (DEBUGINFOD_TIMEOUT%s%s)",
				   mod, what, hex, s, d->urls, t && *t ? "=" : "", t && *t ? t : " unset: 90 s");
	}
	return debuginfo_warn(di, "'%s': %sbuild-id %s: unable to fetch from debuginfod %s '%s': %s", mod,
			   what, hex, s, d->urls, strerror(fd < 0 ? -fd : EIO));
}

void dfd_query_end(struct profev_debuginfod *d)
{
	if (d->client)
		lib->end(d->client);
	d->client = NULL;
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = -1;
}
