/*
 * sym/debuginfod.c - debug files fetched by build-id from debuginfod
 * servers, through elfutils' libdebuginfod and its cache (shared with gdb,
 * perf and valgrind), for modules whose debug file is not here.
 *
 * libdebuginfod is loaded with dlopen() when a server is first to be
 * asked, not linked: it brings libcurl and the TLS, HTTP/2, SSH and LDAP
 * libraries behind it, and its constructor initializes curl. Linked, every
 * profev command (pfrec included) would pay for that at each start and
 * would not start at all on a machine without them; loaded on demand, it
 * costs nothing unless pfsym has something to fetch, and its absence is a
 * warning. The cache is read here directly, so files downloaded before
 * are found offline and without the library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "profev_sym.h"
#include "sym_internal.h"

#if defined(__has_include)
#if __has_include(<elfutils/debuginfod.h>)
#include <elfutils/debuginfod.h>
#define HAVE_DEBUGINFOD_H 1
#endif
#endif
#ifndef HAVE_DEBUGINFOD_H
/* libdebuginfod.so.1's ABI (elfutils 0.179 and later), for the types only. */
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"
typedef struct debuginfod_client debuginfod_client;
typedef int (*debuginfod_progressfn_t)(debuginfod_client *c, long a, long b);
debuginfod_client *debuginfod_begin(void);
int debuginfod_find_debuginfo(debuginfod_client *c, const unsigned char *id, int len, char **path);
void debuginfod_set_progressfn(debuginfod_client *c, debuginfod_progressfn_t fn);
void debuginfod_set_verbose_fd(debuginfod_client *c, int fd);
void debuginfod_set_user_data(debuginfod_client *c, void *value);
void *debuginfod_get_user_data(debuginfod_client *c);
const char *debuginfod_get_url(debuginfod_client *c);
void debuginfod_end(debuginfod_client *c);
#endif

#define URLS_ENV "DEBUGINFOD_URLS"

/*
 * libdebuginfod, loaded once per process and never unloaded: unloading it
 * unloads libcurl and its TLS library, whose global state (initialized by
 * libdebuginfod's constructor) would be left behind, and curl's global
 * initialization is not meant to run twice.
 */
static struct {
	void *dl;
	int tried;
	char error[384];
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
	__typeof__(debuginfod_end) *end;
	/* optional: where the client says what happened (see query_log()) */
	__typeof__(debuginfod_set_verbose_fd) *set_verbose_fd;
} lib;

/* 0, or -1 with lib.error set. Not thread-safe, as the handles. */
static int lib_load(void)
{
	if (lib.tried)
		return lib.dl ? 0 : -1;
	lib.tried = 1;
	dlerror();
	void *dl = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		const char *e = dlerror();
		snprintf(lib.error, sizeof(lib.error),
			 "unable to load %s (%s; Debian: apt-get install libdebuginfod1)",
			 DEBUGINFOD_SONAME, e ? e : "not found");
		return -1;
	}
	static const char *const names[] = { "begin", "find_debuginfo", "set_progressfn",
					     "set_user_data", "get_user_data", "get_url", "end" };
	void **slots[] = { (void **)&lib.begin, (void **)&lib.find_debuginfo,
			   (void **)&lib.set_progressfn, (void **)&lib.set_user_data,
			   (void **)&lib.get_user_data, (void **)&lib.get_url, (void **)&lib.end };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char sym[64];
		snprintf(sym, sizeof(sym), "debuginfod_%s", names[i]);
		if (!(*slots[i] = dlsym(dl, sym))) {
			snprintf(lib.error, sizeof(lib.error),
				 "%s lacks %s (elfutils 0.179 or later is needed)", DEBUGINFOD_SONAME, sym);
			return -1;   /* kept loaded all the same, see above */
		}
	}
	*(void **)&lib.set_verbose_fd = dlsym(dl, "debuginfod_set_verbose_fd");
	lib.dl = dl;
	return 0;
}

struct profev_debuginfod {
	char *urls;          /* space-separated servers to ask, NULL: none */
	int had_urls;        /* some were configured (offline or not) */
	int set_env;         /* urls came from the options, not the environment */
	int offline;
	char *cache;         /* the cache directory, NULL if unknown */
	profev_debuginfod_progress_fn progress;
	void *progress_ctx;
	int load_failed;     /* the library could not be used (said once) */
	char timed_out[512]; /* the module a query timed out for: no more */
	debuginfod_client *client;
	int log_fd;          /* the client's verbose log, -1: none */
	struct profev_debuginfod_progress cur;  /* the download under way */
	char server[1024];
	/* limits, and where each came from (for the messages) */
	unsigned long long max_size;
	unsigned max_time;
	char size_from[64], time_from[64];
	double budget, spent;  /* seconds for all downloads, spent so far */
	const volatile sig_atomic_t *stop;
	/* the query under way, for progress_cb() */
	double t0, limit;      /* its start, the seconds it may take */
	int ended;             /* why progress_cb() ended it, END_ */
	long long got;         /* bytes received */
	off_t log_seen;        /* of the log, read for redirects */
	unsigned redirects;
};

/* Why progress_cb() ended a query. */
enum { END_NONE, END_SIZE, END_TIME, END_BUDGET, END_REDIRECTS, END_STOP };

/* A redirect loop ends at this many (curl follows up to 30 by default,
 * and libdebuginfod cannot be told otherwise). */
#define MAX_REDIRECTS 8

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* d's limits from the options, else the environment, else the defaults,
 * each with its source named as a user would set it. */
static void set_limits(struct profev_debuginfod *d, const struct profev_debuginfod_opts *o)
{
	const char *e = getenv("DEBUGINFOD_MAXSIZE");
	unsigned long long v;
	char *end;
	if (o->max_size) {
		d->max_size = o->max_size;
		snprintf(d->size_from, sizeof(d->size_from), "--debuginfod-max-size");
	} else if (e && *e && (v = strtoull(e, &end, 10)) > 0 && !*end) {
		d->max_size = v;
		snprintf(d->size_from, sizeof(d->size_from), "DEBUGINFOD_MAXSIZE");
	} else {
		d->max_size = PROFEV_DEBUGINFOD_MAX_SIZE;
		snprintf(d->size_from, sizeof(d->size_from), "the default");
	}
	e = getenv("DEBUGINFOD_MAXTIME");
	if (o->max_time) {
		d->max_time = o->max_time;
		snprintf(d->time_from, sizeof(d->time_from), "--debuginfod-max-time");
	} else if (e && *e && (v = strtoull(e, &end, 10)) > 0 && v < 1u << 30 && !*end) {
		d->max_time = (unsigned)v;
		snprintf(d->time_from, sizeof(d->time_from), "DEBUGINFOD_MAXTIME");
	} else {
		d->max_time = PROFEV_DEBUGINFOD_MAX_TIME;
		snprintf(d->time_from, sizeof(d->time_from), "the default");
	}
	d->budget = 2.0 * d->max_time;
	d->stop = o->stop;
}

static void set_err(struct profev_error *err, int code, const char *msg)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->code = code;
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

static int has_word(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n')
			return 1;
	return 0;
}

/* libdebuginfod's choice (elfutils 0.188, debuginfod-client.c). */
static char *cache_dir(int *nomem)
{
	char buf[4096];
	const char *e = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	struct stat st;
	if (e && *e)
		snprintf(buf, sizeof(buf), "%s", e);
	else if (home && *home &&
		 snprintf(buf, sizeof(buf), "%s/.debuginfod_client_cache", home) > 0 &&
		 stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		;
	else if (xdg && *xdg)
		snprintf(buf, sizeof(buf), "%s/debuginfod_client", xdg);
	else if (home && *home)
		snprintf(buf, sizeof(buf), "%s/.cache/debuginfod_client", home);
	else
		return NULL;
	char *s = strdup(buf);
	*nomem = !s;
	return s;
}

struct profev_debuginfod *profev_debuginfod_new(const struct profev_debuginfod_opts *opts,
						struct profev_error *err)
{
	static const struct profev_debuginfod_opts none;
	if (!opts)
		opts = &none;
	struct profev_debuginfod *d = calloc(1, sizeof(*d));
	int nomem = !d;
	if (d)
		d->log_fd = -1;
	if (d && opts->nurls) {
		size_t n = 1;
		for (unsigned i = 0; i < opts->nurls; i++)
			n += strlen(opts->urls[i]) + 1;
		if ((d->urls = malloc(n))) {
			d->urls[0] = '\0';
			for (unsigned i = 0; i < opts->nurls; i++)
				snprintf(d->urls + strlen(d->urls), n - strlen(d->urls), "%s%s",
					 i ? " " : "", opts->urls[i]);
			d->set_env = 1;
		}
		nomem = !d->urls;
	} else if (d && has_word(getenv(URLS_ENV))) {
		nomem = !(d->urls = strdup(getenv(URLS_ENV)));
	}
	if (d && !nomem) {
		if (!has_word(d->urls)) {
			free(d->urls);
			d->urls = NULL;
		}
		d->had_urls = d->urls != NULL;
		d->offline = opts->offline;
		if (opts->offline) {
			free(d->urls);
			d->urls = NULL;
		}
		d->cache = cache_dir(&nomem);
		d->progress = opts->progress;
		d->progress_ctx = opts->progress_ctx;
		set_limits(d, opts);
	}
	if (nomem) {
		profev_debuginfod_free(d);
		set_err(err, PROFEV_E_NOMEM, "out of memory");
		return NULL;
	}
	return d;
}

int profev_debuginfod_has_servers(const struct profev_debuginfod *d)
{
	return d && d->urls;
}

void profev_debuginfod_free(struct profev_debuginfod *d)
{
	if (!d)
		return;
	if (d->client)
		lib.end(d->client);
	if (d->log_fd >= 0)
		close(d->log_fd);
	free(d->urls);
	free(d->cache);
	free(d);
}

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
 * The limits are enforced here, where a body without Content-Length is
 * seen growing (DEBUGINFOD_MAXSIZE only compares an announced length).
 */
static int progress_cb(debuginfod_client *c, long a, long b)
{
	struct profev_debuginfod *d = lib.get_user_data(c);
	if (!d)
		return 0;
	/* Before a server answers, a and b count the waits, not bytes. */
	const char *url = lib.get_url(c);
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
	if (d->stop && *d->stop)
		d->ended = END_STOP;
	else if (url && ((unsigned long long)d->got > d->max_size ||
			 (unsigned long long)d->cur.total > d->max_size))
		d->ended = END_SIZE;
	else if (now() - d->t0 >= d->limit)
		d->ended = d->limit < d->max_time ? END_BUDGET : END_TIME;
	else if (d->redirects > MAX_REDIRECTS)
		d->ended = END_REDIRECTS;
	return d->ended != END_NONE;
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
	if (lib_load() < 0) {
		snprintf(msg, cap, "%s: no debuginfod server asked", lib.error);
		return -1;
	}
	if (!(d->client = lib.begin())) {
		snprintf(msg, cap, "debuginfod_begin() failed: no debuginfod server asked");
		return -1;
	}
	lib.set_user_data(d->client, d);
	lib.set_progressfn(d->client, progress_cb);
	if (lib.set_verbose_fd && (d->log_fd = memfd_create("profev-debuginfod", MFD_CLOEXEC)) >= 0)
		lib.set_verbose_fd(d->client, d->log_fd);
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

/* path is libdebuginfod's <cache>/<hex>/debuginfo: remove it and its
 * directory (when empty). Only a file of that name is touched. */
static void cache_remove(const char *path, const char *hex)
{
	size_t n = strlen(path), h = strlen(hex);
	if (n < h + 12 || strcmp(path + n - 10, "/debuginfo") != 0 ||
	    strncmp(path + n - 10 - h, hex, h) != 0 || path[n - 11 - h] != '/')
		return;
	unlink(path);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", (int)(n - 10), path);
	rmdir(dir);
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

static int add_warning(struct profev_debuginfo *di, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_warning(struct profev_debuginfo *di, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char **w = realloc(di->warnings, (di->nwarnings + 1) * sizeof(*w));
	if (!w)
		return PROFEV_E_NOMEM;
	di->warnings = w;
	if (!(w[di->nwarnings] = strdup(msg)))
		return PROFEV_E_NOMEM;
	di->nwarnings++;
	return 0;
}

/*
 * Ask the servers. 1 with *path (and *server, NULL when libdebuginfod
 * found it in its cache after all), 0 with a warning added, <0 NOMEM.
 */
static int query(struct profev_debuginfod *d, const char *mod, const char *what, const char *hex,
		 const uint8_t *id, unsigned idlen, int negative, struct profev_debuginfo *di,
		 char **path, char **server)
{
	char msg[512];
	if (load(d, msg, sizeof(msg)) < 0)
		return msg[0] ? add_warning(di, "'%s': %s", mod, msg) : 0;
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
	d->t0 = now();
	d->limit = d->budget - d->spent < d->max_time ? d->budget - d->spent : d->max_time;
	d->ended = END_NONE;
	d->got = 0;
	d->log_seen = 0;
	d->redirects = 0;
	char *p = NULL;
	int fd = lib.find_debuginfo(d->client, id, (int)idlen, &p);
	d->spent += now() - d->t0;
	const char *url = lib.get_url(d->client);
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
	if (d->cache && (fd != -ENOENT || q.broken || d->ended != END_NONE)) {
		/* libdebuginfod remembers more than a 404 as a miss (an empty
		 * file): a broken or ended transfer is not one, the next run
		 * asks again */
		char cpath[4096 + 160];
		struct stat st;
		snprintf(cpath, sizeof(cpath), "%s/%s/debuginfo", d->cache, hex);
		if (stat(cpath, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
			cache_remove(cpath, hex);
	}
	if (d->ended == END_STOP)
		return add_warning(di, "'%s': %sbuild-id %s: download from debuginfod %s '%s' stopped by a signal",
				   mod, what, hex, s, d->urls);
	/* an announced length over the limit ends the transfer at once,
	 * here or in libdebuginfod (DEBUGINFOD_MAXSIZE), whichever sees it
	 * first; a body without one is cut off where it passes the limit */
	long long announced = (unsigned long long)d->cur.total > d->max_size ? d->cur.total
			      : fd == -EFBIG ? q.length : -1;
	if (announced > 0)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' announced %lld bytes, over the size limit of %llu bytes (%s): not fetched",
				   mod, what, hex, s, d->urls, announced, d->max_size, d->size_from);
	if (d->ended == END_SIZE || fd == -EFBIG)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' sent more than the size limit of %llu bytes (%s): cut off at %lld bytes, nothing kept",
				   mod, what, hex, s, d->urls, d->max_size, d->size_from, d->got);
	if (d->ended == END_TIME || (fd == -ETIME && q.max_time))
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' took more than the time limit of %u s (%s): given up after %lld bytes, nothing kept",
				   mod, what, hex, s, d->urls, d->max_time, d->time_from, d->got);
	if (d->ended == END_BUDGET)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s': given up after %lld bytes, the time budget of this run's downloads (%.0f s, twice the time limit of %s) is spent",
				   mod, what, hex, s, d->urls, d->got, d->budget, d->time_from);
	if (d->ended == END_REDIRECTS)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s': too many redirects (more than %d): given up",
				   mod, what, hex, s, d->urls, MAX_REDIRECTS);
	if (fd == -ENOENT && q.broken) {
		if (q.remaining >= 0 && q.length >= q.remaining)
			return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' cut the file short at %lld of %lld bytes (not kept: asked again next time)",
					   mod, what, hex, s, d->urls, q.length - q.remaining, q.length);
		return add_warning(di, "'%s': %sbuild-id %s: unable to fetch from debuginfod %s '%s': %s (not remembered as missing: asked again next time)",
				   mod, what, hex, s, d->urls, q.why[0] ? q.why : "the transfer failed");
	}
	if (fd == -ENOENT)
		return add_warning(di, "'%s': %sbuild-id %s not found on debuginfod %s '%s'%s", mod, what,
				   hex, s, d->urls,
				   negative ? " (a miss the debuginfod cache remembers from an earlier query)" : "");
	if (fd == -ETIME || fd == -ETIMEDOUT) {
		/* one wait per run, not one per module */
		snprintf(d->timed_out, sizeof(d->timed_out), "%s", mod);
		const char *t = getenv("DEBUGINFOD_TIMEOUT");
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' timed out (DEBUGINFOD_TIMEOUT%s%s)",
				   mod, what, hex, s, d->urls, t && *t ? "=" : "", t && *t ? t : " unset: 90 s");
	}
	return add_warning(di, "'%s': %sbuild-id %s: unable to fetch from debuginfod %s '%s': %s", mod,
			   what, hex, s, d->urls, strerror(fd < 0 ? -fd : EIO));
}

/*
 * The file of build-id hex: from the cache, else from the servers (what
 * says what it is in warnings). 1 with *path (*server NULL when from the
 * cache; *cached set when read from the cache here, no server asked), 0
 * with a warning added (or none: no server), <0 NOMEM.
 */
static int locate(struct profev_debuginfod *d, const char *mod, const char *what, const char *hex,
		  const uint8_t *id, unsigned idlen, struct profev_debuginfo *di, char **path,
		  char **server, int *cached)
{
	int negative = 0;
	*path = *server = NULL;
	*cached = 0;
	if (d->cache) {
		char cpath[4096 + 160];
		struct stat st;
		snprintf(cpath, sizeof(cpath), "%s/%s/debuginfo", d->cache, hex);
		if (stat(cpath, &st) == 0 && S_ISREG(st.st_mode)) {
			/* an empty file is libdebuginfod's record of a miss */
			*cached = st.st_size > 0;
			if (st.st_size > 0)
				return (*path = strdup(cpath)) ? 1 : PROFEV_E_NOMEM;
			negative = 1;
		}
	}
	const char *s = d->urls && strchr(d->urls, ' ') ? "servers" : "server";
	if (!d->urls)
		return d->offline && d->had_urls ?
			add_warning(di, "'%s': %sbuild-id %s: not in the debuginfod cache, and offline: "
				    "no server asked", mod, what, hex) : 0;
	if (d->timed_out[0])
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: timed out "
				   "for '%s'", mod, what, hex, s, d->urls, d->timed_out);
	if (d->stop && *d->stop)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: stopped by a signal",
				   mod, what, hex, s, d->urls);
	if (d->spent >= d->budget)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: the time budget of this run's downloads (%.0f s, twice the time limit of %s) is spent",
				   mod, what, hex, s, d->urls, d->budget, d->time_from);
	int rc = query(d, mod, what, hex, id, idlen, negative, di, path, server);
	if (rc <= 0) {
		free(*path);
		free(*server);
		*path = *server = NULL;
	}
	return rc;
}

/*
 * The file at path, from the cache (server NULL) or just downloaded, is
 * not the one of build-id hex: it leaves the cache, so that the next run
 * asks the servers again rather than taking it without asking (as
 * libdebuginfod would). 0 with the warning added, <0 NOMEM.
 */
static int refused(struct profev_debuginfod *d, struct profev_debuginfo *di, const char *mod,
		   const char *what, const char *hex, const char *path, const char *server,
		   const char *why)
{
	cache_remove(path, hex);
	if (server)
		return add_warning(di, "'%s': %sbuild-id %s: debuginfod server '%s' sent a wrong file (%s): not kept in the cache",
				   mod, what, hex, server, why);
	return add_warning(di, "'%s': %sbuild-id %s: the debuginfod cache held a wrong file (%s): removed%s",
			   mod, what, hex, why, d->urls ? ", the servers asked again" : "");
}

/* The build-id a debug file's .gnu_debugaltlink gives (dwz -m). Its length, 0 if none. */
static unsigned altlink_id(const char *path, uint8_t *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	unsigned n = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	struct stat st;
	if (e && elf_kind(e) == ELF_K_ELF && fstat(fd, &st) == 0 && elf_getshdrstrndx(e, &shstrndx) == 0)
		while (!n && (scn = elf_nextscn(e, scn))) {
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			if (!name || strcmp(name, ".gnu_debugaltlink") != 0 || sh.sh_type == SHT_NOBITS ||
			    sh.sh_offset > (uint64_t)st.st_size || sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
				continue;
			Elf_Data *data = elf_rawdata(scn, NULL);
			const uint8_t *p = data ? data->d_buf : NULL;
			const uint8_t *z = p ? memchr(p, 0, data->d_size) : NULL;
			size_t len = z ? data->d_size - (size_t)(z - p) - 1 : 0;
			if (len > 0 && len <= 64) {
				memcpy(id, z + 1, len);
				n = (unsigned)len;
			}
		}
	elf_end(e);
	close(fd);
	return n;
}

/* Drop the warnings that contain text (a supplementary file found now). */
static void drop_warnings(struct profev_debuginfo *di, const char *text)
{
	unsigned k = 0;
	for (unsigned i = 0; i < di->nwarnings; i++) {
		if (strstr(di->warnings[i], text))
			free(di->warnings[i]);
		else
			di->warnings[k++] = di->warnings[i];
	}
	di->nwarnings = k;
}

/* The dwz supplementary file di->path refers to and that was not found
 * locally, by its build-id. 1 found, 0 not, <0 NOMEM. */
static int fetch_sup(struct profev_debuginfod *d, const char *mod, struct profev_debuginfo *di)
{
	uint8_t alt[64], got[64];
	unsigned altlen = altlink_id(di->path, alt);
	if (!altlen)
		return 0;
	char hex[129];
	build_id_hex(hex, alt, altlen);
	char *path, *server;
	int cached, rc;
again:
	rc = locate(d, mod, "supplementary file (dwz) ", hex, alt, altlen, di, &path, &server, &cached);
	if (rc <= 0)
		return rc;
	int n = profev_elf_build_id(path, got, sizeof(got));
	if (n != (int)altlen || memcmp(got, alt, altlen) != 0) {
		char why[200];
		if (n < 0)
			snprintf(why, sizeof(why), "%s", n == PROFEV_E_UNSUPPORTED ? "not an ELF file" : "unreadable");
		else if (n == 0)
			snprintf(why, sizeof(why), "no build-id");
		else
			build_id_hex(why + snprintf(why, sizeof(why), "build-id "), got, (unsigned)n);
		rc = refused(d, di, mod, "supplementary file (dwz) ", hex, path, server, why);
		free(path);
		free(server);
		if (rc == 0 && cached && d->urls)
			goto again;  /* the cache's copy removed: the servers asked */
		return rc;
	} else {
		drop_warnings(di, hex);
		di->sup_path = path;
		path = NULL;
		rc = 1;
	}
	free(path);
	free(server);
	return rc;
}

/* The module's own debug file. 1 made di->path, 0 not, <0 NOMEM. */
static int fetch_debug(struct profev_debuginfod *d, const char *mod, const char *hex,
		       const uint8_t *build_id, unsigned build_id_len, struct profev_debuginfo *di)
{
	char *path, *server;
	int cached;
again:;
	int rc = locate(d, mod, "", hex, build_id, build_id_len, di, &path, &server, &cached);
	if (rc <= 0)
		return rc;
	/* the same checks as a local candidate's, and its dwz file beside it */
	static const struct profev_debuginfo_opts only = { NULL, 0, "" };
	struct profev_debuginfo f;
	rc = profev_debuginfo_find(path, build_id, build_id_len, &only, &f);
	if (rc == 0 && !f.path && f.nwarnings) {
		/* not ELF, cut, another build: its warning says which */
		const char *why = f.warnings[0];
		size_t n = strlen(path);
		if (why[0] == '\'' && strncmp(why + 1, path, n) == 0 && strncmp(why + 1 + n, "': ", 3) == 0)
			why += n + 4;
		rc = refused(d, di, mod, "", hex, path, server, why);
		profev_debuginfo_release(&f);
		free(path);
		free(server);
		if (rc == 0 && cached && d->urls)
			goto again;  /* the cache's copy removed: the servers asked */
		return rc;
	}
	for (unsigned i = 0; rc == 0 && i < f.nwarnings; i++)
		rc = add_warning(di, "%s", f.warnings[i]);
	if (rc == 0 && !(f.path && f.has_dwarf) && !f.nwarnings)
		rc = add_warning(di, "'%s': holds no debug info (.debug_info), downloaded for '%s'", path, mod);
	if (rc == 0 && f.path && f.has_dwarf) {
		/* the file found before has symbols only: it is the module or
		 * has the module beside it as symbols_path */
		char *sym = di->symbols_path ? di->symbols_path : di->path;
		if (sym == di->symbols_path)
			free(di->path);
		else
			free(di->symbols_path);
		di->path = f.path;
		di->symbols_path = sym;
		free(di->sup_path);
		di->sup_path = f.sup_path;
		di->has_dwarf = 1;
		di->debuginfod = server ? 1 : 2;
		di->server = server;
		f.path = f.sup_path = NULL;
		server = NULL;
		rc = 1;
	}
	profev_debuginfo_release(&f);
	free(path);
	free(server);
	return rc;
}

int profev_debuginfo_fetch(struct profev_debuginfod *d, const char *module, const uint8_t *build_id,
			   unsigned build_id_len, struct profev_debuginfo *di)
{
	if (!d || build_id_len == 0 || build_id_len > 64)
		return 0;
	char hex[129];
	build_id_hex(hex, build_id, build_id_len);
	const char *mod = module && module[0] ? module : "?";
	int rc = 0;
	if (!di->has_dwarf && (rc = fetch_debug(d, mod, hex, build_id, build_id_len, di)) <= 0)
		return rc;
	if (di->has_dwarf && !di->sup_path) {
		int r = fetch_sup(d, mod, di);
		if (r < 0)
			return r;
	}
	return rc;
}
