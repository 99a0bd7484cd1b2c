/*
 * lib/sym/rewrite.c and lib/sym/debuginfo.c on a real recording: the stripped
 * fixture program (tests/sym) records its stacks, profev_symtrace() adds
 * symbols with its debug file found by build-id, and then
 *   - every frame of every stack has symbols before the first event that
 *     uses the stack, read in one pass;
 *   - each frame's symbols equal llvm-symbolizer --inlines --demangle on
 *     the same module at the address looked up (offset - 1 for returns);
 *   - the events are unchanged;
 *   - a second run keeps everything, a pipe works like a file, a cut trace
 *     fails with no output, and wrong debug files are refused.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "profev_sym.h"
#include "symfix.h"

static char tmpdir[] = "/tmp/t_symtrace.XXXXXX";
static char fx[512];


struct ev_list {
	struct profev_event *v;
	size_t n;
};

struct frame_ref {
	uint32_t module;
	uint32_t flags;
	uint64_t offset;
	int late;          /* no symbols when first used */
	char text[4096];   /* pfsym's frames, formatted as llvm-symbolizer */
};

static void fmt(char *buf, size_t cap, const struct profev_symframe *f, unsigned n)
{
	size_t o = 0;
	if (!f || !n) {
		snprintf(buf, cap, "??\n??:0:0\n");
		return;
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s\n%s:%u:%u\n",
				      f[i].function ? f[i].function : "??",
				      f[i].file ? f[i].file : "??", f[i].line, f[i].column);
}

/*
 * Read a trace in one pass; collect its events, and the distinct frames
 * with their symbols as seen when the first event using them is read.
 * @return frames lacking symbols at that point but having some by the end
 *         (symbols placed too late for a one-pass reader).
 */
static int read_trace(const char *path, struct ev_list *evs, struct frame_ref **frames,
		      size_t *nframes, char (*modpath)[1024], uint32_t *nmod)
{
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (!f)
		return -1;
	struct profev_error err;
	struct profev_reader *r = profev_reader_new(f, &err);
	CHECK(r != NULL);
	if (!r) {
		fclose(f);
		return -1;
	}
	int missing = 0;
	struct profev_event ev;
	size_t cap = 0;
	evs->v = NULL;
	evs->n = 0;
	*frames = NULL;
	*nframes = 0;
	size_t fcap = 0;
	int rc;
	while ((rc = profev_reader_next_event(r, &ev, NULL)) == 1) {
		if (evs->n == cap)
			evs->v = realloc(evs->v, (cap = cap ? cap * 2 : 64) * sizeof(ev));
		evs->v[evs->n++] = ev;
		unsigned n = 0;
		const struct profev_frame *fr = ev.stack ? profev_reader_stack(r, ev.stack, &n) : NULL;
		for (unsigned i = 0; i < n; i++) {
			if (fr[i].flags & PROFEV_FRAMEF_NOMODULE)
				continue;
			unsigned ns = 0;
			const struct profev_symframe *sf =
				profev_reader_symbol(r, fr[i].module, fr[i].offset, &ns);
			size_t j;
			for (j = 0; j < *nframes; j++)
				if ((*frames)[j].module == fr[i].module &&
				    (*frames)[j].offset == fr[i].offset)
					break;
			if (j < *nframes)
				continue;
			if (*nframes == fcap)
				*frames = realloc(*frames, (fcap = fcap ? fcap * 2 : 64) * sizeof(**frames));
			struct frame_ref *x = &(*frames)[(*nframes)++];
			x->module = fr[i].module;
			x->flags = fr[i].flags;
			x->offset = fr[i].offset;
			x->late = !sf;
			fmt(x->text, sizeof(x->text), sf, ns);
		}
	}
	CHECK_EQ(rc, 0);
	for (size_t j = 0; j < *nframes; j++) {
		unsigned ns = 0;
		struct frame_ref *x = &(*frames)[j];
		if (x->late && profev_reader_symbol(r, x->module, x->offset, &ns)) {
			fprintf(stderr, "%s: symbols of %u+0x%llx come after their first use\n", path,
				x->module, (unsigned long long)x->offset);
			missing++;
		}
	}
	*nmod = profev_reader_module_count(r);
	for (uint32_t i = 0; i < *nmod && i < 32; i++)
		snprintf(modpath[i], sizeof(modpath[i]), "%s", profev_reader_module(r, i)->path);
	profev_reader_free(r);
	fclose(f);
	return missing;
}

/* The trace at path reads in one pass with the frames of ref, symbols and all. */
static void same_frames(const char *path, const struct frame_ref *ref, size_t nref)
{
	static char mods[32][1024];
	struct ev_list c;
	struct frame_ref *fc;
	size_t nc;
	uint32_t nmod = 0;
	CHECK_EQ(read_trace(path, &c, &fc, &nc, mods, &nmod), 0);
	CHECK_EQ(nc, nref);
	for (size_t i = 0; i < nref && i < nc; i++)
		CHECK_STR(fc[i].text, ref[i].text);
	free(fc);
	free(c.v);
}

/* Compare every frame of module m against llvm-symbolizer. */
static int against_llvm(struct frame_ref *frames, size_t n, uint32_t m, const char *obj,
			const char *extra, size_t *count)
{
	char list[600], out[600], cmd[40000];
	snprintf(list, sizeof(list), "%s/addrs", tmpdir);
	snprintf(out, sizeof(out), "%s/llvm.out", tmpdir);
	FILE *f = fopen(list, "w");
	*count = 0;
	for (size_t i = 0; i < n; i++) {
		if (frames[i].module != m)
			continue;
		uint64_t a = frames[i].offset;
		if (frames[i].flags & PROFEV_FRAMEF_RETURN)
			a--;
		fprintf(f, "0x%llx\n", (unsigned long long)a);
		(*count)++;
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && llvm-symbolizer --inlines --demangle --obj='%s' %s < '%s' > '%s'",
		 fx, obj, extra, list, out);
	if (symfix_run(cmd))
		return -1;
	FILE *in = fopen(out, "r");
	if (!in)
		return -1;
	int bad = 0;
	char line[8192], want[16384];
	for (size_t i = 0; i < n; i++) {
		if (frames[i].module != m)
			continue;
		size_t o = 0;
		want[0] = '\0';
		while (fgets(line, sizeof(line), in) && line[0] != '\n')
			o += (size_t)snprintf(want + o, sizeof(want) - o, "%s", line);
		if (strcmp(want, frames[i].text) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "%s +0x%llx:\n--- llvm-symbolizer\n%s--- pfsym\n%s", obj,
					(unsigned long long)frames[i].offset, want, frames[i].text);
		}
	}
	fclose(in);
	return bad;
}

/* The module at path joined with its separate debug file, if it has one,
 * into a file named in obj (else obj is left as it is). */
static void unstripped(const char *path, char *obj, size_t cap)
{
	uint8_t id[64];
	int idlen = profev_elf_build_id(path, id, sizeof(id));
	struct profev_debuginfo di;
	if (idlen <= 0 || profev_debuginfo_find(path, id, (unsigned)idlen, NULL, &di) < 0)
		return;
	if (di.path && di.symbols_path) {
		static int k;
		char out[600], cmd[8192];
		snprintf(out, sizeof(out), "%s/unstripped.%d", tmpdir, k++);
		snprintf(cmd, sizeof(cmd), "eu-unstrip -o '%s' '%.2000s' '%.2000s'", out, path, di.path);
		if (symfix_run(cmd) == 0)
			snprintf(obj, cap, "%s", out);
	}
	profev_debuginfo_release(&di);
}

static int symtrace_file(const char *in, const char *out, const char *const *dirs, unsigned ndirs,
			 struct profev_symtrace_report **rep, struct profev_error *err)
{
	FILE *f = fopen(in, "rb");
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_symtrace_opts o;
	memset(&o, 0, sizeof(o));
	o.debuginfo.debug_dirs = dirs;
	o.debuginfo.ndebug_dirs = ndirs;
	int rc = profev_symtrace(f, fd, &o, rep, err);
	fclose(f);
	close(fd);
	return rc;
}

static const struct profev_symtrace_module *find_mod(const struct profev_symtrace_report *r,
						     const char *suffix)
{
	for (unsigned i = 0; r && i < r->nmodules; i++) {
		size_t a = strlen(r->modules[i].path), b = strlen(suffix);
		if (a >= b && strcmp(r->modules[i].path + a - b, suffix) == 0)
			return &r->modules[i];
	}
	return NULL;
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	char cmd[4096], dbg[600], in[600], out[600], out2[600];
	if (symfix_build(tmpdir, fx, sizeof(fx)) != 0) {
		CHECK(!"fixtures built");
		return CHECK_DONE();
	}
	snprintf(cmd, sizeof(cmd), "cd '%s' && ./prog.stripped t.bin ./libfix.so frames.txt", fx);
	CHECK_EQ(symfix_run(cmd), 0);
	/* module paths are as the program saw them: ./libfix.so is relative */
	CHECK_EQ(chdir(fx), 0);
	snprintf(dbg, sizeof(dbg), "%s/dbg", fx);
	snprintf(in, sizeof(in), "%s/t.bin", fx);
	snprintf(out, sizeof(out), "%s/s.bin", fx);
	snprintf(out2, sizeof(out2), "%s/s2.bin", fx);

	const char *dirs[] = { dbg };
	struct profev_symtrace_report *rep = NULL;
	struct profev_error err;
	int rc = symtrace_file(in, out, dirs, 1, &rep, &err);
	CHECK_EQ(rc, 0);
	if (rc)
		fprintf(stderr, "symtrace: %s\n", err.message);
	const struct profev_symtrace_module *pm = find_mod(rep, "/prog.stripped");
	const struct profev_symtrace_module *lm = find_mod(rep, "/libfix.so");
	CHECK(pm && lm);
	if (pm && lm) {
		CHECK(pm->debug_file && strstr(pm->debug_file, "/dbg/.build-id/"));
		CHECK(pm->symbols_file && strstr(pm->symbols_file, "prog.stripped"));
		/* all, _start and the assembly function (no DWARF, not in
		 * .dynsym) by the debug file's .symtab */
		CHECK(pm->addresses > 5);
		CHECK_EQ(pm->resolved, pm->addresses);
		CHECK_EQ(pm->unresolved, 0);
		CHECK_EQ(pm->nwarnings, 0);
		CHECK(lm->addresses > 3);
		CHECK_EQ(lm->resolved, lm->addresses);
	}
	profev_symtrace_report_free(rep);

	/* one pass over the output: symbols before use, and equal to llvm's */
	struct ev_list a, b;
	struct frame_ref *fa, *fb;
	size_t na, nb;
	char mods[32][1024];
	uint32_t nmod = 0, nmod2 = 0;
	int missing = read_trace(in, &a, &fa, &na, mods, &nmod);
	CHECK_EQ(missing, 0);
	free(fa);
	missing = read_trace(out, &b, &fb, &nb, mods, &nmod2);
	CHECK_EQ(missing, 0);
	CHECK_EQ(nmod, nmod2);
	CHECK_EQ(a.n, b.n);
	CHECK(a.n > 20);
	CHECK(a.n == b.n && memcmp(a.v, b.v, a.n * sizeof(*a.v)) == 0);
	size_t total = 0;
	for (uint32_t m = 0; m < nmod2 && m < 32; m++) {
		size_t count = 0;
		/* a stripped module answers as the unstripped one: the fixture
		 * program as built, a system library put back together with
		 * its debug file */
		char obj[1024];
		snprintf(obj, sizeof(obj), "%.1000s", mods[m]);
		if (strstr(mods[m], "prog.stripped"))
			snprintf(obj, sizeof(obj), "%s/prog", fx);
		else
			unstripped(mods[m], obj, sizeof(obj));
		int bad = against_llvm(fb, nb, m, obj, "", &count);
		fprintf(stderr, "%s: %zu frames, %d differ from llvm-symbolizer\n", mods[m], count, bad);
		CHECK_EQ(bad, 0);
		total += count;
	}
	CHECK_EQ(total, nb);
	free(a.v);

	/* a second run keeps every symbol and adds none */
	rc = symtrace_file(out, out2, NULL, 0, &rep, &err);
	CHECK_EQ(rc, 0);
	pm = find_mod(rep, "/prog.stripped");
	CHECK(pm && pm->kept == pm->addresses && pm->resolved == 0 && pm->unresolved == 0);
	profev_symtrace_report_free(rep);
	same_frames(out2, fb, nb);

	/* without the debug dir the program's frames get no lines (only what
	 * its .dynsym names), and running again with it fills them in */
	rc = symtrace_file(in, out2, NULL, 0, &rep, &err);
	CHECK_EQ(rc, 0);
	pm = find_mod(rep, "/prog.stripped");
	CHECK(pm && pm->debug_file && strstr(pm->debug_file, "prog.stripped") && pm->unresolved > 0);
	profev_symtrace_report_free(rep);
	char out3[700];
	snprintf(out3, sizeof(out3), "%s/s3.bin", fx);
	rc = symtrace_file(out2, out3, dirs, 1, &rep, &err);
	CHECK_EQ(rc, 0);
	pm = find_mod(rep, "/prog.stripped");
	CHECK(pm && pm->unresolved == 0 && pm->resolved + pm->kept == pm->addresses);
	profev_symtrace_report_free(rep);
	same_frames(out3, fb, nb);

	/* a pipe is spooled and gives the same output */
	snprintf(cmd, sizeof(cmd), "cat '%s'", in);
	FILE *p = popen(cmd, "r");
	int fd = open(out2, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct profev_symtrace_opts o;
	memset(&o, 0, sizeof(o));
	o.debuginfo.debug_dirs = dirs;
	o.debuginfo.ndebug_dirs = 1;
	CHECK_EQ(profev_symtrace(p, fd, &o, NULL, &err), 0);
	pclose(p);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", out, out2);
	CHECK_EQ(symfix_run(cmd), 0);

	/* a cut trace: an error naming the problem, nothing written */
	struct stat st;
	CHECK_EQ(stat(in, &st), 0);
	CHECK_EQ(truncate(in, st.st_size - 7), 0);
	rc = symtrace_file(in, out2, dirs, 1, &rep, &err);
	CHECK(rc == PROFEV_E_TRUNCATED || rc == PROFEV_E_NOEND);
	CHECK(err.message[0] != '\0');
	CHECK(rep == NULL);
	CHECK_EQ(stat(out2, &st), 0);
	CHECK_EQ(st.st_size, 0);
	free(fb);
	free(b.v);

	symfix_remove(tmpdir);
	return CHECK_DONE();
}
