/*
 * sym/debuginfod_internal.h - what the debuginfod client's files share
 * (lib/sym only). From the bottom up, each file calling only those before
 * it:
 *
 *   debuginfod_lib.c     libdebuginfod.so.1, loaded with dlopen() on demand
 *   debuginfod_limits.c  the size and time limits, their sources, the
 *                        run's time budget, and whether a query passed one
 *   debuginfod_cache.c   libdebuginfod's cache read directly: where it is,
 *                        a build-id's file or remembered miss, removals
 *   debuginfod_query.c   one query to the servers through libdebuginfod:
 *                        progress, redirects, what its log says, the
 *                        warning that tells what went wrong
 *   debuginfod.c         the client's life, and a module's files found in
 *                        the cache or fetched, then verified (a wrong file
 *                        leaves the cache)
 */
#ifndef PROFEV_DEBUGINFOD_INTERNAL_H
#define PROFEV_DEBUGINFOD_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include "profev_sym.h"

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

/* Why a query was ended by its progress callback. */
enum { END_NONE, END_SIZE, END_TIME, END_BUDGET, END_REDIRECTS, END_STOP };

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
	/* the query under way, for the progress callback */
	double t0, limit;      /* its start, the seconds it may take */
	int ended;             /* why the callback ended it, END_ */
	long long got;         /* bytes received */
	off_t log_seen;        /* of the log, read for redirects */
	unsigned redirects;
};

/* debuginfod_lib.c: libdebuginfod's functions, loaded once per process
 * and never unloaded (see there why). */
struct dfd_lib {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
	__typeof__(debuginfod_end) *end;
	/* optional (NULL): where the client says what happened */
	__typeof__(debuginfod_set_verbose_fd) *set_verbose_fd;
};
/* @return the functions, or NULL with *why saying why the library cannot
 * be used (the same answer at each call). Not thread-safe. */
const struct dfd_lib *dfd_lib_load(const char **why);

/* debuginfod_limits.c */
/* A redirect loop ends at this many (curl follows up to 30 by default,
 * and libdebuginfod cannot be told otherwise). */
#define MAX_REDIRECTS 8
double dfd_now(void);
/* d's limits from the options, else the environment, else the defaults,
 * each with its source named as a user would set it; d->stop too. */
void limits_set(struct profev_debuginfod *d, const struct profev_debuginfod_opts *o);
/* A query begins now: its time limit is the least of the per-file limit
 * and what is left of the budget. */
void limits_start(struct profev_debuginfod *d);
/* The query so far (d->got, d->cur.total, d->redirects; answered: the
 * server has answered, so the counts are bytes): END_NONE to go on, else
 * the END_ reason to end it, kept in d->ended. */
int limits_check(struct profev_debuginfod *d, int answered);

/* debuginfod_cache.c */
/* libdebuginfod's cache directory, NULL if unknown (*nomem set when out
 * of memory). */
char *cache_dir(int *nomem);
/* <cache>/<hex>/debuginfo into buf. */
void cache_file(const struct profev_debuginfod *d, const char *hex, char *buf, size_t cap);
/* What the cache holds for hex: 1 a file (*path, malloc()ed), 0 nothing,
 * 2 a remembered miss (an empty file), <0 out of memory. */
int cache_lookup(const struct profev_debuginfod *d, const char *hex, char **path);
/* path is <cache>/<hex>/debuginfo: remove it and its directory (when
 * empty). Only a file of that name is touched. */
void cache_remove(const char *path, const char *hex);
/* A miss libdebuginfod remembered for hex (an empty file) forgotten. */
void cache_forget_miss(const struct profev_debuginfod *d, const char *hex);

/* debuginfod_query.c */
/*
 * Ask the servers for build-id id (hex; mod and what say whose file, in
 * warnings; negative: the cache remembered a miss). @return 1 with *path
 * (and *server, NULL when libdebuginfod found it in its cache after all),
 * 0 with a warning added to di, <0 NOMEM.
 */
int dfd_query(struct profev_debuginfod *d, const char *mod, const char *what, const char *hex,
	      const uint8_t *id, unsigned idlen, int negative, struct profev_debuginfo *di,
	      char **path, char **server);
/* The client and its log ended (profev_debuginfod_free()). */
void dfd_query_end(struct profev_debuginfod *d);

#endif
