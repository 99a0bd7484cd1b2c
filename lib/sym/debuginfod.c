/*
 * sym/debuginfod.c - debug files fetched by build-id from debuginfod
 * servers, through elfutils' libdebuginfod and its cache (shared with gdb,
 * perf and valgrind), for modules whose debug file is not here: the
 * client's life, a file looked for in the cache and else asked of the
 * servers, then verified as a local candidate is (ELF, whole, the build-id
 * asked for). A file that fails leaves the cache, so that the next run
 * asks again rather than taking it without asking, as libdebuginfod
 * would. The pieces: debuginfod_internal.h.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sym/debuginfod_internal.h"
#include "sym/sym_internal.h"

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
		limits_set(d, opts);
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
	dfd_query_end(d);
	free(d->urls);
	free(d->cache);
	free(d);
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
	*server = NULL;
	int c = cache_lookup(d, hex, path);
	*cached = c == 1;
	if (c < 0)
		return PROFEV_E_NOMEM;
	if (c == 1)
		return 1;
	int negative = c == 2;
	const char *s = d->urls && strchr(d->urls, ' ') ? "servers" : "server";
	if (!d->urls)
		return d->offline && d->had_urls ?
			debuginfo_warn(di, "'%s': %sbuild-id %s: not in the debuginfod cache, and offline: "
				    "no server asked", mod, what, hex) : 0;
	if (d->timed_out[0])
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: timed out "
				   "for '%s'", mod, what, hex, s, d->urls, d->timed_out);
	if (d->stop && *d->stop)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: stopped by a signal",
				   mod, what, hex, s, d->urls);
	if (d->spent >= d->budget)
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod %s '%s' not asked: the time budget of this run's downloads (%.0f s, twice the time limit of %s) is spent",
				   mod, what, hex, s, d->urls, d->budget, d->time_from);
	int rc = dfd_query(d, mod, what, hex, id, idlen, negative, di, path, server);
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
		return debuginfo_warn(di, "'%s': %sbuild-id %s: debuginfod server '%s' sent a wrong file (%s): not kept in the cache",
				   mod, what, hex, server, why);
	return debuginfo_warn(di, "'%s': %sbuild-id %s: the debuginfod cache held a wrong file (%s): removed%s",
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
		rc = debuginfo_warn(di, "%s", f.warnings[i]);
	if (rc == 0 && !(f.path && f.has_dwarf) && !f.nwarnings)
		rc = debuginfo_warn(di, "'%s': holds no debug info (.debug_info), downloaded for '%s'", path, mod);
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
