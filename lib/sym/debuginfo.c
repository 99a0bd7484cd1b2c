/*
 * debuginfo.c - find the file that holds a module's debug info, the way
 * gdb and llvm-symbolizer do (build-id trees, .gnu_debuglink), and refuse
 * any candidate whose GNU build-id differs from the one recorded: a wrong
 * file would give plausible but wrong lines, which is worse than none.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "profev_sym.h"
#include "sym_internal.h"

#define MAX_ID 64

struct elfinfo {
	uint8_t id[MAX_ID];
	unsigned idlen;
	int has_dwarf;
	int has_syms;
	int cut;            /* section headers or a section past the end */
	char debuglink[256];
	/* dwz: the supplementary file this one refers to (.gnu_debugaltlink:
	 * name and build-id; .debug_sup: name and checksum), or, in a
	 * supplementary file itself, its .debug_sup checksum */
	int alt;            /* 1 .gnu_debugaltlink, 2 .debug_sup, 0 none */
	int is_sup;         /* .debug_sup says this is a supplementary file */
	char alt_name[1024];
	uint8_t alt_id[MAX_ID];
	unsigned alt_idlen;
};

/* .debug_sup: version (2), is_supplementary (1), file name, checksum
 * (ULEB128 length, bytes). */
static void read_debug_sup(const uint8_t *p, size_t n, struct elfinfo *info)
{
	if (n < 4 || (p[0] | p[1] << 8) != 5)
		return;
	const uint8_t *z = memchr(p + 3, 0, n - 3);
	if (!z)
		return;
	size_t i = (size_t)(z - p) + 1;
	uint64_t len = 0;
	unsigned shift = 0;
	while (i < n && shift < 35) {
		len |= (uint64_t)(p[i] & 0x7f) << shift;
		shift += 7;
		if (!(p[i++] & 0x80))
			break;
	}
	if (len == 0 || len > MAX_ID || len > n - i || (size_t)(z - p - 3) >= sizeof(info->alt_name))
		return;
	info->is_sup = p[2] == 1;
	info->alt = 2;
	memcpy(info->alt_name, p + 3, (size_t)(z - p - 3));
	info->alt_name[z - p - 3] = '\0';
	memcpy(info->alt_id, p + i, (size_t)len);
	info->alt_idlen = (unsigned)len;
}

/* 1 ELF read, 0 not ELF, -1 cannot open. */
static int read_elf(const char *path, struct elfinfo *info)
{
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return 0;
	}
	size_t shstrndx = 0;
	elf_getshdrstrndx(elf, &shstrndx);
	struct stat st;
	GElf_Ehdr eh;
	uint64_t fsize = fstat(fd, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
	if (gelf_getehdr(elf, &eh) && eh.e_shoff &&
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > fsize)
		info->cut = 1;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			name = "";
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > fsize)
			info->cut = 1;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_entsize &&
		    sh.sh_size / sh.sh_entsize > 1)
			info->has_syms = 1;
		if (sh.sh_type != SHT_NOBITS && sh.sh_size > 0 &&
		    (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
			info->has_dwarf = 1;
		if (sh.sh_type == SHT_NOTE && !info->idlen) {
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t off = 0, noff, doff;
			GElf_Nhdr nh;
			while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
				    nh.n_descsz > 0 && nh.n_descsz <= MAX_ID) {
					memcpy(info->id, (char *)d->d_buf + doff, nh.n_descsz);
					info->idlen = nh.n_descsz;
					break;
				}
			}
		}
		if ((strcmp(name, ".gnu_debugaltlink") == 0 || strcmp(name, ".debug_sup") == 0) &&
		    sh.sh_type != SHT_NOBITS && !info->cut) {
			Elf_Data *d = elf_rawdata(scn, NULL);
			const uint8_t *p = d ? d->d_buf : NULL;
			size_t n = d ? d->d_size : 0;
			const uint8_t *z = p ? memchr(p, 0, n) : NULL;
			if (name[1] == 'd') {
				if (p)
					read_debug_sup(p, n, info);
			} else if (z && (size_t)(z - p) < sizeof(info->alt_name) &&
				   n - (size_t)(z - p) - 1 <= MAX_ID && n - (size_t)(z - p) - 1 > 0) {
				info->alt = 1;
				memcpy(info->alt_name, p, (size_t)(z - p) + 1);
				info->alt_idlen = (unsigned)(n - (size_t)(z - p) - 1);
				memcpy(info->alt_id, z + 1, info->alt_idlen);
			}
		}
		if (strcmp(name, ".gnu_debuglink") == 0 && sh.sh_type != SHT_NOBITS) {
			Elf_Data *d = elf_getdata(scn, NULL);
			if (d && d->d_size > 0) {
				size_t n = strnlen(d->d_buf, d->d_size);
				if (n < sizeof(info->debuglink) && !memchr(d->d_buf, '/', n)) {
					memcpy(info->debuglink, d->d_buf, n);
					info->debuglink[n] = '\0';
				}
			}
		}
	}
	elf_end(elf);
	close(fd);
	return 1;
}

int profev_elf_build_id(const char *path, uint8_t *id, unsigned len)
{
	struct elfinfo info;
	int rc = read_elf(path, &info);
	if (rc < 0)
		return PROFEV_E_IO;
	if (rc == 0)
		return PROFEV_E_UNSUPPORTED;
	unsigned n = info.idlen < len ? info.idlen : len;
	memcpy(id, info.id, n);
	return (int)n;
}

void build_id_hex(char *out, const uint8_t *id, unsigned n)
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * n] = '\0';
}

int debuginfo_warn(struct profev_debuginfo *di, const char *fmt, ...)
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

struct search {
	const uint8_t *id;
	unsigned idlen;
	struct profev_debuginfo *out;
	char *fallback;          /* first acceptable file with symbols only */
	char **tried;
	size_t ntried;
	int nomem;
};

static int warn(struct search *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int warn(struct search *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char **w = realloc(s->out->warnings, (s->out->nwarnings + 1) * sizeof(*w));
	char *m = strdup(msg);
	if (!w || !m) {
		free(m);
		if (w)
			s->out->warnings = w;
		s->nomem = 1;
		return -1;
	}
	s->out->warnings = w;
	w[s->out->nwarnings++] = m;
	return 0;
}

/* Look at one candidate; 1 when the search is over (DWARF found). */
static int consider(struct search *s, const char *path)
{
	struct stat st;
	if (s->nomem || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < s->ntried; i++)
		if (strcmp(s->tried[i], path) == 0)
			return 0;
	char **t = realloc(s->tried, (s->ntried + 1) * sizeof(*t));
	if (!t) {
		s->nomem = 1;
		return 0;
	}
	s->tried = t;
	if (!(t[s->ntried] = strdup(path))) {
		s->nomem = 1;
		return 0;
	}
	s->ntried++;

	struct elfinfo info;
	int rc = read_elf(path, &info);
	if (rc < 0) {
		warn(s, "unable to open '%s': %s", path, strerror(errno));
		return 0;
	}
	if (rc == 0) {
		warn(s, "'%s': not an ELF file", path);
		return 0;
	}
	if (info.cut) {
		warn(s, "'%s': cut: its sections end past the end of the file", path);
		return 0;
	}
	if (s->idlen) {
		char want[2 * MAX_ID + 1], got[2 * MAX_ID + 1];
		build_id_hex(want, s->id, s->idlen);
		if (!info.idlen) {
			warn(s, "'%s': no build-id, the recorded one is %s", path, want);
			return 0;
		}
		if (info.idlen != s->idlen || memcmp(info.id, s->id, s->idlen) != 0) {
			build_id_hex(got, info.id, info.idlen);
			warn(s, "'%s': build-id %s does not match the recorded %s", path, got, want);
			return 0;
		}
	}
	if (info.has_dwarf) {
		if (!(s->out->path = strdup(path)))
			s->nomem = 1;
		s->out->has_dwarf = 1;
		return 1;
	}
	if (info.has_syms && !s->fallback && !(s->fallback = strdup(path)))
		s->nomem = 1;
	return 0;
}

static void join(char *buf, size_t cap, const char *a, const char *b, const char *c)
{
	snprintf(buf, cap, "%s%s%s%s%s", a, *b ? "/" : "", b, *c ? "/" : "", c);
}

/* The candidate path for the supplementary file that info names: 1 when
 * it is the one (out->sup_path set), else 0 (with a warning if it is
 * another file). */
static int consider_sup(struct search *s, const struct elfinfo *want, const char *path)
{
	struct stat st;
	if (s->nomem || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	struct elfinfo info;
	int rc = read_elf(path, &info);
	if (rc <= 0) {
		warn(s, rc < 0 ? "unable to open '%s'" : "'%s': not an ELF file", path);
		return 0;
	}
	int ok = want->alt == 1 ?
		info.idlen == want->alt_idlen && memcmp(info.id, want->alt_id, info.idlen) == 0 :
		info.is_sup && info.alt_idlen == want->alt_idlen &&
		memcmp(info.alt_id, want->alt_id, info.alt_idlen) == 0;
	if (info.cut) {
		warn(s, "'%s': cut: its sections end past the end of the file", path);
		return 0;
	}
	if (!ok) {
		char h[2 * MAX_ID + 1];
		build_id_hex(h, want->alt_id, want->alt_idlen);
		warn(s, "'%s': not the supplementary file %s ('%s')", path, h, want->alt_name);
		return 0;
	}
	if (!(s->out->sup_path = strdup(path)))
		s->nomem = 1;
	return 1;
}

/*
 * dwz: the supplementary file the debug file refers to, found by its
 * build-id (or .debug_sup checksum) under each debug dir and the system
 * dir, under their .dwz directories, beside the debug file, and at the
 * name the link gives.
 */
static void find_sup(struct search *s, const struct profev_debuginfo_opts *opts, const char *sys,
		     const char *debug_file)
{
	struct elfinfo d;
	if (read_elf(debug_file, &d) != 1 || !d.alt || d.is_sup)
		return;
	char h[2 * MAX_ID + 1], idpath[2 * MAX_ID + 32], buf[8192], dir[4096];
	build_id_hex(h, d.alt_id, d.alt_idlen);
	snprintf(idpath, sizeof(idpath), ".build-id/%.2s/%s.debug", h, h + 2);
	const char *base = strrchr(d.alt_name, '/') ? strrchr(d.alt_name, '/') + 1 : d.alt_name;
	const char *dwz = strstr(d.alt_name, "/.dwz/");
	const char *tail = dwz ? dwz + 6 : base;   /* the part below a .dwz dir */
	snprintf(dir, sizeof(dir), "%s", debug_file);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	int done = 0;
	for (unsigned i = 0; i < opts->ndebug_dirs && !done; i++) {
		join(buf, sizeof(buf), opts->debug_dirs[i], idpath, "");
		done = consider_sup(s, &d, buf);
		join(buf, sizeof(buf), opts->debug_dirs[i], ".dwz", tail);
		done = done || consider_sup(s, &d, buf);
	}
	if (!done && base[0]) {
		join(buf, sizeof(buf), dir, base, "");
		done = consider_sup(s, &d, buf);
	}
	if (!done && d.alt_name[0] && d.alt_name[0] != '/') {
		join(buf, sizeof(buf), dir, d.alt_name, "");
		done = consider_sup(s, &d, buf);
	}
	if (!done && sys[0]) {
		join(buf, sizeof(buf), sys, idpath, "");
		done = consider_sup(s, &d, buf);
		join(buf, sizeof(buf), sys, ".dwz", tail);
		done = done || consider_sup(s, &d, buf);
	}
	if (!done && d.alt_name[0] == '/')
		done = consider_sup(s, &d, d.alt_name);
	if (!done)
		warn(s, "'%s': supplementary file '%s' (%s %s) not found: the names it holds stay unknown",
		     debug_file, d.alt_name, d.alt == 1 ? "build-id" : "checksum", h);
}

int profev_debuginfo_find(const char *path, const uint8_t *build_id, unsigned build_id_len,
			  const struct profev_debuginfo_opts *opts, struct profev_debuginfo *out)
{
	static const struct profev_debuginfo_opts none = { NULL, 0, NULL };
	if (!opts)
		opts = &none;
	memset(out, 0, sizeof(*out));
	struct search s = { build_id, build_id_len > MAX_ID ? 0 : build_id_len, out, NULL, NULL, 0, 0 };
	const char *sys = opts->system_dir ? opts->system_dir : "/usr/lib/debug";
	char idpath[2 * MAX_ID + 32] = "";
	if (s.idlen >= 2) {
		char h[2 * MAX_ID + 1];
		build_id_hex(h, build_id, s.idlen);
		snprintf(idpath, sizeof(idpath), ".build-id/%.2s/%s.debug", h, h + 2);
	}
	char buf[8192];
	int done = 0;
	for (unsigned i = 0; i < opts->ndebug_dirs && !done && idpath[0]; i++) {
		join(buf, sizeof(buf), opts->debug_dirs[i], idpath, "");
		done = consider(&s, buf);
	}

	/* the module names its debug file in .gnu_debuglink */
	struct elfinfo mod;
	int have_mod = path && path[0] && read_elf(path, &mod) == 1;
	if (!done && have_mod && mod.debuglink[0]) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
		for (unsigned i = 0; i < opts->ndebug_dirs && !done; i++) {
			join(buf, sizeof(buf), opts->debug_dirs[i], mod.debuglink, "");
			done = consider(&s, buf);
		}
		if (!done) {
			join(buf, sizeof(buf), dir, mod.debuglink, "");
			done = consider(&s, buf);
		}
		if (!done) {
			join(buf, sizeof(buf), dir, ".debug", mod.debuglink);
			done = consider(&s, buf);
		}
		if (!done && sys[0] && dir[0] == '/') {
			snprintf(buf, sizeof(buf), "%s%s/%s", sys, dir, mod.debuglink);
			done = consider(&s, buf);
		}
	}
	if (!done && sys[0] && idpath[0]) {
		join(buf, sizeof(buf), sys, idpath, "");
		done = consider(&s, buf);
	}
	if (!done && path && path[0])
		done = consider(&s, path);
	if (!done && s.fallback && !s.nomem) {
		out->path = s.fallback;
		s.fallback = NULL;
	}
	if (out->path && out->has_dwarf)
		find_sup(&s, opts, sys, out->path);
	/* the module itself is opened for its symbol table too when it is
	 * here and the same build */
	if (out->path && have_mod && strcmp(out->path, path) != 0 &&
	    (!s.idlen || (mod.idlen == s.idlen && memcmp(mod.id, build_id, s.idlen) == 0)) &&
	    !(out->symbols_path = strdup(path)))
		s.nomem = 1;
	free(s.fallback);
	for (size_t i = 0; i < s.ntried; i++)
		free(s.tried[i]);
	free(s.tried);
	if (s.nomem) {
		profev_debuginfo_release(out);
		return PROFEV_E_NOMEM;
	}
	return 0;
}

void profev_debuginfo_release(struct profev_debuginfo *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->symbols_path);
	free(d->sup_path);
	free(d->server);
	for (unsigned i = 0; i < d->nwarnings; i++)
		free(d->warnings[i]);
	free(d->warnings);
	memset(d, 0, sizeof(*d));
}
