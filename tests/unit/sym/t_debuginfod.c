/*
 * lib/sym/debuginfod.c without a debuginfod server (tests/cli/415 and 416
 * run one): which servers a client asks (options over DEBUGINFOD_URLS,
 * none when blank or offline); the debuginfod cache read directly, its
 * files checked as a local candidate is (a wrong build or not ELF:
 * removed from the cache; a remembered miss); a good cached file made the module's debug file, the
 * stripped module kept for its symbols, answering as llvm-symbolizer on
 * the unstripped program; a refused connection warned about with the
 * module, build-id and server, and progress ended.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include "check.h"
#include "profev_sym.h"
#include "symfix.h"

static char tmpdir[] = "/tmp/t_debuginfod.XXXXXX";
static char fx[512];

static int has_warning(const struct profev_debuginfo *di, const char *text)
{
	for (unsigned i = 0; i < di->nwarnings; i++)
		if (strstr(di->warnings[i], text))
			return 1;
	fprintf(stderr, "no warning with '%s' among %u:\n", text, di->nwarnings);
	for (unsigned i = 0; i < di->nwarnings; i++)
		fprintf(stderr, "  %s\n", di->warnings[i]);
	return 0;
}

static int servers(const struct profev_debuginfod_opts *o)
{
	struct profev_error err;
	struct profev_debuginfod *d = profev_debuginfod_new(o, &err);
	CHECK(d);
	int n = profev_debuginfod_has_servers(d);
	profev_debuginfod_free(d);
	return n;
}

struct seen {
	int calls, finished;
	char build_id[200];
};

static void on_progress(void *ctx, const struct profev_debuginfod_progress *p)
{
	struct seen *s = ctx;
	s->calls++;
	s->finished += p->finished;
	snprintf(s->build_id, sizeof(s->build_id), "%s", p->build_id);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (symfix_build(tmpdir, fx, sizeof(fx)) != 0) {
		CHECK(!"fixtures built");
		return CHECK_DONE();
	}
	char cache[600], mod[700], prog[700], idfile[700], hex[200] = "", entry[900], cpath[1000];
	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	snprintf(mod, sizeof(mod), "%s/prog.stripped", fx);
	snprintf(prog, sizeof(prog), "%s/prog", fx);
	snprintf(idfile, sizeof(idfile), "%s/prog.build-id", fx);
	FILE *f = fopen(idfile, "r");
	CHECK(f && fscanf(f, "%199s", hex) == 1);
	if (f)
		fclose(f);
	snprintf(entry, sizeof(entry), "%s/%s", cache, hex);
	snprintf(cpath, sizeof(cpath), "%s/debuginfo", entry);
	uint8_t id[64];
	int idlen = profev_elf_build_id(mod, id, sizeof(id));
	CHECK_EQ(idlen, (int)strlen(hex) / 2);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);

	/* which servers */
	const char *two[] = { "http://127.0.0.1:1", "http://127.0.0.1:2" };
	struct profev_debuginfod_opts o = { 0 };
	unsetenv("DEBUGINFOD_URLS");
	CHECK_EQ(servers(&o), 0);
	CHECK_EQ(servers(NULL), 0);
	setenv("DEBUGINFOD_URLS", " \t", 1);
	CHECK_EQ(servers(&o), 0);
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	CHECK_EQ(servers(&o), 1);
	o.offline = 1;
	CHECK_EQ(servers(&o), 0);
	unsetenv("DEBUGINFOD_URLS");
	o = (struct profev_debuginfod_opts){ two, 2, 0, NULL, NULL };
	CHECK_EQ(servers(&o), 1);

	/* the stripped module, found locally with symbols only */
	struct profev_debuginfo di;
	CHECK_EQ(profev_debuginfo_find(mod, id, (unsigned)idlen, NULL, &di), 0);
	CHECK(di.path && !di.has_dwarf);
	struct profev_error err;

	/* nothing cached, no server: nothing done, nothing said */
	o = (struct profev_debuginfod_opts){ 0 };
	struct profev_debuginfod *d = profev_debuginfod_new(&o, &err);
	CHECK(d);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	CHECK_EQ(di.nwarnings, 0);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, 0, &di), 0);
	profev_debuginfod_free(d);
	/* offline with a server configured: said */
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	o.offline = 1;
	d = profev_debuginfod_new(&o, &err);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	CHECK(has_warning(&di, "not in the debuginfod cache, and offline: no server asked"));
	CHECK(has_warning(&di, hex));

	/* a remembered miss (an empty file) is no file */
	CHECK_EQ(symfix_runf("mkdir -p '%s' && : > '%s'", entry, cpath), 0);
	unsigned nw = di.nwarnings;
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	CHECK_EQ(di.nwarnings, nw + 1);
	/* a wrong build in the cache: refused, and removed from the cache */
	CHECK_EQ(symfix_runf("rm -f '%s' && objcopy --only-keep-debug '%s/prog.other' '%s'", cpath, fx, cpath), 0);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	CHECK(has_warning(&di, "the debuginfod cache held a wrong file (build-id 0123456789abcdef0123456789abcdef01234567 does not match the recorded"));
	CHECK(!di.has_dwarf && strcmp(di.path, mod) == 0);
	CHECK(access(cpath, F_OK) != 0 && access(entry, F_OK) != 0);
	/* not ELF */
	CHECK_EQ(symfix_runf("mkdir -p '%s' && echo junk > '%s'", entry, cpath), 0);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	CHECK(has_warning(&di, "the debuginfod cache held a wrong file (not an ELF file): removed"));
	CHECK(access(cpath, F_OK) != 0);

	/* the right file: found offline, the module kept for its symbols */
	CHECK_EQ(symfix_runf("mkdir -p '%s' && objcopy --only-keep-debug '%s' '%s'", entry, prog, cpath), 0);
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 1);
	CHECK_STR(di.path, cpath);
	CHECK_STR(di.symbols_path, mod);
	CHECK(di.has_dwarf);
	CHECK_EQ(di.debuginfod, 2);
	CHECK(!di.server);
	/* a module with DWARF is left alone */
	CHECK_EQ(profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di), 0);
	profev_debuginfod_free(d);
	struct profev_symbolizer_files files = { di.path, di.symbols_path, di.sup_path };
	struct profev_symbolizer *s = profev_symbolizer_open(&files, &err);
	CHECK(s);
	size_t n = 0, known = 0;
	uint64_t *addrs = symfix_sample(prog, 7, &n);
	CHECK(addrs && n > 100);
	if (s && addrs) {
		char ref[800];
		snprintf(ref, sizeof(ref), "%s", prog);
		CHECK_EQ(symfix_compare(tmpdir, s, ref, addrs, n, &known), 0);
		CHECK(known > n / 2);
	}
	free(addrs);
	profev_symbolizer_free(s);
	profev_debuginfo_release(&di);

	/* a server nobody listens on: the module, build-id and server named */
	CHECK_EQ(symfix_runf("rm -rf '%s'", cache), 0);
	int sk = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	CHECK(sk >= 0 && bind(sk, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	      getsockname(sk, (struct sockaddr *)&sa, &sl) == 0);
	close(sk);   /* bound, then closed: nothing listens there */
	char url[64];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	const char *urls[] = { url };
	struct seen seen = { 0 };
	o = (struct profev_debuginfod_opts){ urls, 1, 0, on_progress, &seen };
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1 untouched", 1);
	CHECK_EQ(profev_debuginfo_find(mod, id, (unsigned)idlen, NULL, &di), 0);
	d = profev_debuginfod_new(&o, &err);
	CHECK(d && profev_debuginfod_has_servers(d));
	int rc = profev_debuginfo_fetch(d, mod, id, (unsigned)idlen, &di);
	profev_debuginfod_free(d);
	char want[900];
	snprintf(want, sizeof(want), "'%s': build-id %s: unable to fetch from debuginfod server '%s': ", mod,
		 hex, url);
	if (rc == 0 && di.nwarnings == 1 && strstr(di.warnings[0], "unable to load"))
		fprintf(stderr, "libdebuginfod.so.1 not here: %s\n", di.warnings[0]);
	else {
		CHECK_EQ(rc, 0);
		CHECK(has_warning(&di, want));
		CHECK_EQ(seen.finished, 1);
		CHECK(seen.calls >= 1);
		CHECK_STR(seen.build_id, hex);
	}
	/* the environment given back */
	CHECK_STR(getenv("DEBUGINFOD_URLS"), "http://127.0.0.1:1 untouched");
	CHECK(!di.has_dwarf);
	profev_debuginfo_release(&di);
	profev_debuginfod_free(NULL);

	symfix_remove(tmpdir);
	return CHECK_DONE();
}
