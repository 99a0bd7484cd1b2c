/*
 * sym/rewrite.c - rewrite a trace with symbols (what pfsym runs).
 *
 * Pass 1 reads the whole input and collects the distinct (module, offset)
 * pairs of its callstacks, remembering which chunk introduced each. Each
 * module with pairs still unsymbolized then has its debug info found (here,
 * else from debuginfod servers: debuginfod.c) and loaded once, and every pair is resolved. Pass 2 copies every chunk
 * unchanged (strings chunks first, see rewrite()) and, right after a chunk
 * that introduced pairs, writes their symbols, so a one-pass reader always
 * has them before an event refers to the stack. The DWARF work grows with
 * distinct addresses, not with events; the copying is linear.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "profev_sym.h"

struct entry {
	uint32_t module;
	uint32_t flags;        /* of the first frame seen with this pair */
	uint64_t offset;
	uint64_t chunk;        /* ordinal of the chunk to write it after */
	struct profev_symframe *frames;
	unsigned nframes;      /* 0: nothing to write */
	int partial;           /* the input names it but has no file: replace
	                          only with an answer that has one */
};

struct table {
	struct entry *v;
	size_t n, cap;
	uint32_t *slots;       /* index + 1, 0 = empty */
	size_t nslots;
};

struct modinfo {
	struct profev_debuginfo di;
	struct profev_symbolizer *sym;
};

/* The public report plus what its pointers point into. */
struct report_priv {
	struct profev_symtrace_report pub;
	struct modinfo *mods;
	char **paths;
	uint8_t (*ids)[64];
	unsigned *idlens;
};

static uint64_t hash(uint32_t module, uint64_t offset)
{
	uint64_t h = (offset ^ ((uint64_t)module << 48)) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static int table_grow(struct table *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *s = calloc(ns, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = hash(t->v[i].module, t->v[i].offset) & (ns - 1);
		while (s[h])
			h = (h + 1) & (ns - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/* 1 added, 0 already there, -1 out of memory. */
static int table_add(struct table *t, uint32_t module, uint64_t offset, uint32_t flags,
		     uint64_t chunk)
{
	if ((t->n + 1) * 2 > t->nslots && table_grow(t))
		return -1;
	size_t h = hash(module, offset) & (t->nslots - 1);
	while (t->slots[h]) {
		struct entry *e = &t->v[t->slots[h] - 1];
		if (e->module == module && e->offset == offset)
			return 0;
		h = (h + 1) & (t->nslots - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct entry *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct entry){ module, flags, offset, chunk, NULL, 0, 0 };
	t->slots[h] = (uint32_t)++t->n;
	return 1;
}

static void set_err(struct profev_error *err, int code, const char *fmt, const char *arg)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->code = code;
	snprintf(err->message, sizeof(err->message), fmt, arg);
}

/* Make in readable twice: a pipe is copied to a temporary file. */
static FILE *rereadable(FILE *in, long long *start, struct profev_error *err)
{
	off_t pos = ftello(in);
	if (pos >= 0 && lseek(fileno(in), 0, SEEK_CUR) >= 0) {
		*start = pos;
		return in;
	}
	FILE *tmp = tmpfile();
	if (!tmp) {
		set_err(err, PROFEV_E_IO, "unable to create a temporary file: %s", strerror(errno));
		return NULL;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (fwrite(buf, 1, n, tmp) != n) {
			set_err(err, PROFEV_E_IO, "unable to spool the input: %s", strerror(errno));
			fclose(tmp);
			return NULL;
		}
	}
	if (ferror(in) || fflush(tmp) != 0) {
		set_err(err, PROFEV_E_IO, "unable to spool the input: %s", strerror(errno));
		fclose(tmp);
		return NULL;
	}
	*start = 0;
	rewind(tmp);
	return tmp;
}

/* Pass 1: the distinct frames of every stack, and which chunk brought them. */
static int collect(FILE *f, struct table *t, struct report_priv *rep, struct profev_error *err)
{
	struct profev_reader *r = profev_reader_new(f, err);
	if (!r)
		return err ? err->code : PROFEV_E_IO;
	struct profev_chunk c;
	uint64_t chunk = 0;
	uint32_t seen_stacks = 0;
	uint64_t last_symbols = 0;
	int rc;
	while ((rc = profev_reader_next_chunk(r, &c)) == 1) {
		if (c.kind == PROFEV_CHUNK_SYMBOLS)
			last_symbols = chunk;
		uint32_t nstacks = profev_reader_stack_count(r);
		for (uint32_t id = seen_stacks + 1; id <= nstacks; id++) {
			unsigned n = 0;
			const struct profev_frame *fr = profev_reader_stack(r, id, &n);
			for (unsigned i = 0; i < n; i++) {
				if (fr[i].flags & PROFEV_FRAMEF_NOMODULE) {
					rep->pub.nomodule_frames++;
					continue;
				}
				if (table_add(t, fr[i].module, fr[i].offset, fr[i].flags, chunk) < 0) {
					rc = PROFEV_E_NOMEM;
					set_err(err, rc, "out of memory%s", "");
					goto out;
				}
			}
		}
		seen_stacks = nstacks;
		chunk++;
	}
	if (rc < 0) {
		if (err)
			*err = *profev_reader_error(r);
		goto out;
	}
	rep->pub.stacks = seen_stacks;
	uint32_t nmod = profev_reader_module_count(r);
	rep->pub.modules = calloc(nmod ? nmod : 1, sizeof(*rep->pub.modules));
	rep->mods = calloc(nmod ? nmod : 1, sizeof(*rep->mods));
	rep->paths = calloc(nmod ? nmod : 1, sizeof(*rep->paths));
	rep->ids = calloc(nmod ? nmod : 1, sizeof(*rep->ids));
	rep->idlens = calloc(nmod ? nmod : 1, sizeof(*rep->idlens));
	if (!rep->pub.modules || !rep->mods || !rep->paths || !rep->ids || !rep->idlens) {
		rc = PROFEV_E_NOMEM;
		set_err(err, rc, "out of memory%s", "");
		goto out;
	}
	rep->pub.nmodules = nmod;
	for (uint32_t i = 0; i < nmod; i++) {
		const struct profev_module *m = profev_reader_module(r, i);
		rep->paths[i] = strdup(m && m->path ? m->path : "");
		if (!rep->paths[i]) {
			rc = PROFEV_E_NOMEM;
			set_err(err, rc, "out of memory%s", "");
			goto out;
		}
		rep->pub.modules[i].path = rep->paths[i];
		if (m && m->build_id && m->build_id_len <= sizeof(rep->ids[i])) {
			memcpy(rep->ids[i], m->build_id, m->build_id_len);
			rep->idlens[i] = m->build_id_len;
		}
	}
	/* Pairs symbolized anywhere in the input are kept as they are, unless
	 * they lack a file (symbol table only) and better debug info may be
	 * here now; a replacement must then come after the input's symbols. */
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->v[i];
		if (e->module >= nmod) {
			rep->pub.nomodule_frames++;
			continue;
		}
		struct profev_symtrace_module *m = &rep->pub.modules[e->module];
		m->addresses++;
		unsigned n = 0;
		const struct profev_symframe *sf = profev_reader_symbol(r, e->module, e->offset, &n);
		if (!sf)
			continue;
		int has_file = 0;
		for (unsigned k = 0; k < n; k++)
			has_file |= sf[k].file != NULL;
		if (has_file) {
			m->kept++;
			e->module = UINT32_MAX; /* nothing to do */
		} else {
			e->partial = 1;
			if (e->chunk < last_symbols)
				e->chunk = last_symbols;
		}
	}
	rc = 0;
out:
	profev_reader_free(r);
	return rc;
}

static int cmp_entry_module(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_entry_chunk(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	return cmp_entry_module(a, b);
}

/* What the lookups found wrong in the module's debug files (damaged
 * units, split DWARF files refused or missing) after the search's own. */
static int add_sym_warnings(struct modinfo *mi, struct profev_symtrace_module *pm)
{
	const char *const *sw;
	unsigned n = profev_symbolizer_warnings(mi->sym, &sw);
	if (n == 0)
		return 0;
	char **w = realloc(mi->di.warnings, (mi->di.nwarnings + n) * sizeof(*w));
	if (!w)
		return -1;
	mi->di.warnings = w;
	for (unsigned i = 0; i < n; i++) {
		if (!(w[mi->di.nwarnings] = strdup(sw[i])))
			return -1;
		mi->di.nwarnings++;
	}
	pm->warnings = (const char *const *)w;
	pm->nwarnings = mi->di.nwarnings;
	return 0;
}

static int resolve_with(struct table *t, struct report_priv *rep, const struct profev_symtrace_opts *o,
			struct profev_debuginfod *dfd, struct profev_error *err)
{
	/* by module, then offset: lookups walk each unit's tables in order */
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry_module);
	for (size_t i = 0; i < t->n && t->v[i].module < rep->pub.nmodules;) {
		uint32_t m = t->v[i].module;
		size_t end = i;
		while (end < t->n && t->v[end].module == m)
			end++;
		struct modinfo *mi = &rep->mods[m];
		struct profev_symtrace_module *pm = &rep->pub.modules[m];
		int rc = profev_debuginfo_find(pm->path, rep->ids[m], rep->idlens[m], &o->debuginfo,
					       &mi->di);
		if (rc == 0)
			rc = profev_debuginfo_fetch(dfd, pm->path, rep->ids[m], rep->idlens[m], &mi->di);
		if (rc < 0) {
			set_err(err, rc, "out of memory%s", "");
			return rc;
		}
		pm->warnings = (const char *const *)mi->di.warnings;
		pm->nwarnings = mi->di.nwarnings;
		if (mi->di.path) {
			struct profev_error serr;
			struct profev_symbolizer_files files = {
				mi->di.path, mi->di.symbols_path, mi->di.sup_path, NULL,
				o->debuginfo.debug_dirs, o->debuginfo.ndebug_dirs };
			mi->sym = profev_symbolizer_open(&files, &serr);
			if (!mi->sym) {
				if (serr.code == PROFEV_E_NOMEM) {
					if (err)
						*err = serr;
					return serr.code;
				}
				/* a broken debug file leaves the module unresolved */
				char **w = realloc(mi->di.warnings, (mi->di.nwarnings + 1) * sizeof(*w));
				if (!w || !(w[mi->di.nwarnings] = strdup(serr.message))) {
					if (w)
						mi->di.warnings = w;
					set_err(err, PROFEV_E_NOMEM, "out of memory%s", "");
					return PROFEV_E_NOMEM;
				}
				mi->di.warnings = w;
				mi->di.nwarnings++;
				pm->warnings = (const char *const *)w;
				pm->nwarnings = mi->di.nwarnings;
			} else {
				pm->debug_file = mi->di.path;
				pm->symbols_file = mi->di.symbols_path;
				pm->sup_file = mi->di.sup_path;
				pm->debuginfod = mi->di.debuginfod;
				pm->server = mi->di.server;
			}
		}
		for (; i < end; i++) {
			struct entry *e = &t->v[i];
			const struct profev_symframe *fr = NULL;
			int n = 0;
			if (mi->sym) {
				uint64_t addr = e->offset;
				if ((e->flags & PROFEV_FRAMEF_RETURN) && addr > 0)
					addr--;
				n = profev_symbolizer_lookup(mi->sym, addr, &fr);
				if (n < 0) {
					if (err)
						*err = *profev_symbolizer_error(mi->sym);
					return n;
				}
			}
			if (e->partial) {
				int has_file = 0;
				for (int k = 0; k < n; k++)
					has_file |= fr[k].file != NULL;
				if (!has_file) {
					pm->kept++;
					continue;
				}
			}
			if (n == 0) {
				pm->unresolved++;
				continue;
			}
			e->frames = malloc((size_t)n * sizeof(*fr));
			if (!e->frames) {
				set_err(err, PROFEV_E_NOMEM, "out of memory%s", "");
				return PROFEV_E_NOMEM;
			}
			memcpy(e->frames, fr, (size_t)n * sizeof(*fr));
			e->nframes = (unsigned)n;
			pm->resolved++;
		}
		if (mi->sym && add_sym_warnings(mi, pm)) {
			set_err(err, PROFEV_E_NOMEM, "out of memory%s", "");
			return PROFEV_E_NOMEM;
		}
	}
	return 0;
}

/* Find each module's debug info once (here, else through debuginfod) and
 * resolve its pairs. */
static int resolve(struct table *t, struct report_priv *rep, const struct profev_symtrace_opts *o,
		   struct profev_error *err)
{
	struct profev_debuginfod *dfd = profev_debuginfod_new(&o->debuginfod, err);
	if (!dfd)
		return err ? err->code : PROFEV_E_NOMEM;
	int rc = resolve_with(t, rep, o, dfd, err);
	profev_debuginfod_free(dfd);
	return rc;
}

/*
 * Pass 2: every chunk copied, symbols after the chunk that needs them.
 * String ids are implicit and sequential, so a string pfsym interns in the
 * middle would take the id of the input's next string. Hence the input's
 * strings chunks are all copied first (a definition moved earlier is still
 * one a reader has before use), then the other chunks in their order.
 */
static int rewrite(FILE *f, long long start, int out, struct table *t,
		   const struct profev_symtrace_opts *o, struct profev_error *err)
{
	int rc = 0;
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry_chunk);
	struct profev_reader *r = NULL;
	struct profev_writer *w = profev_writer_new(out, &o->writer, err);
	if (!w) {
		/* Its first write (the file header) failed: an output error too. */
		rc = err ? err->code : PROFEV_E_IO;
		goto name_output;
	}
	struct profev_chunk c;
	for (int round = 0; round < 2; round++) {
		if (fseeko(f, (off_t)start, SEEK_SET) != 0) {
			set_err(err, PROFEV_E_IO, "unable to read the input again: %s", strerror(errno));
			rc = PROFEV_E_IO;
			goto out;
		}
		profev_reader_free(r);
		if (!(r = profev_reader_new(f, err))) {
			rc = err ? err->code : PROFEV_E_IO;
			goto out;
		}
		uint64_t chunk = 0;
		size_t next = 0;
		while ((rc = profev_reader_next_chunk(r, &c)) == 1) {
			int strings = c.kind == PROFEV_CHUNK_STRINGS;
			if (strings == (round == 0) && (rc = profev_writer_copy_chunk(w, &c)) < 0)
				goto werr;
			int added = 0;
			for (; round == 1 && next < t->n && t->v[next].chunk == chunk; next++) {
				struct entry *e = &t->v[next];
				if (!e->nframes)
					continue;
				rc = profev_writer_symbol(w, e->module, e->offset, e->frames, e->nframes);
				if (rc < 0)
					goto werr;
				added = 1;
			}
			if (added && (rc = profev_writer_flush(w)) < 0)
				goto werr;
			chunk++;
		}
		if (rc < 0) {
			if (err)
				*err = *profev_reader_error(r);
			goto out;
		}
	}
	if ((rc = profev_writer_close(w)) < 0)
		goto werr;
	rc = 0;
	goto out;
werr:
	if (err)
		*err = *profev_writer_error(w);
name_output:
	/* name the side that failed: the command reports the input's name */
	if (err) {
		char msg[sizeof(err->message)];
		memcpy(msg, err->message, sizeof(msg));
		snprintf(err->message, sizeof(err->message), "output: %.240s", msg);
	}
out:
	profev_writer_free(w);
	profev_reader_free(r);
	return rc;
}

void profev_symtrace_report_free(struct profev_symtrace_report *pub)
{
	if (!pub)
		return;
	struct report_priv *rep = (struct report_priv *)pub;
	for (unsigned i = 0; i < pub->nmodules; i++) {
		if (rep->mods) {
			profev_symbolizer_free(rep->mods[i].sym);
			profev_debuginfo_release(&rep->mods[i].di);
		}
		if (rep->paths)
			free(rep->paths[i]);
	}
	free(rep->mods);
	free(rep->paths);
	free(rep->ids);
	free(rep->idlens);
	free(pub->modules);
	free(rep);
}

int profev_symtrace(FILE *in, int out, const struct profev_symtrace_opts *opts,
		    struct profev_symtrace_report **report, struct profev_error *err)
{
	static const struct profev_symtrace_opts defaults;
	if (!opts)
		opts = &defaults;
	if (report)
		*report = NULL;
	struct table t = { 0 };
	struct report_priv *rep = calloc(1, sizeof(*rep));
	if (!rep) {
		set_err(err, PROFEV_E_NOMEM, "out of memory%s", "");
		return PROFEV_E_NOMEM;
	}
	long long start = 0;
	FILE *f = rereadable(in, &start, err);
	int rc = f ? 0 : (err ? err->code : PROFEV_E_IO);
	if (!rc)
		rc = collect(f, &t, rep, err);
	if (!rc)
		rc = resolve(&t, rep, opts, err);
	if (!rc)
		rc = rewrite(f, start, out, &t, opts, err);
	if (f && f != in)
		fclose(f);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].frames);
	free(t.v);
	free(t.slots);
	/* the strings in frames belong to the symbolizers, freed with the report */
	if (report && rep->pub.modules)
		*report = &rep->pub;
	else
		profev_symtrace_report_free(&rep->pub);
	return rc;
}
