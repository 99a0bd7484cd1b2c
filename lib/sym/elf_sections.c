/*
 * sym/elf_sections.c - the DWARF sections of an ELF file, decompressed:
 * SHF_COMPRESSED sections (ELF compression header, zlib or zstd: what
 * -gz=zlib and ld --compress-debug-sections=zstd write) and the legacy GNU
 * .zdebug_* sections ("ZLIB", 8-byte big-endian size, zlib stream).
 *
 * Decompression is done here rather than by libelf, whose Debian 12
 * version (0.188) knows no zstd and, on failure, leaves the compressed
 * bytes in place to be read as DWARF. A compressed section is accepted
 * only if it inflates to exactly the size its header states; anything else
 * refuses the file, so that damaged data never gives a wrong line.
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "sym/sym_internal.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/* No real debug section inflates past this; a header saying more lies. */
#define MAX_SECTION ((uint64_t)1 << 32)

static const struct { const char *name; size_t off; } wanted[] = {
	{ "info", offsetof(struct dwsects, info) },
	{ "abbrev", offsetof(struct dwsects, abbrev) },
	{ "line", offsetof(struct dwsects, line) },
	{ "line_str", offsetof(struct dwsects, line_str) },
	{ "str", offsetof(struct dwsects, str) },
	{ "rnglists", offsetof(struct dwsects, rnglists) },
	{ "ranges", offsetof(struct dwsects, ranges) },
	{ "addr", offsetof(struct dwsects, addr) },
	{ "str_offsets", offsetof(struct dwsects, str_offsets) },
	{ "cu_index", offsetof(struct dwsects, cu_index) },
};

static uint64_t get(const uint8_t *p, unsigned n, int big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Inflate in[0..n) of the given type into exactly size bytes. */
static const char *inflate_to(unsigned type, const uint8_t *in, size_t n, uint8_t *out,
			      uint64_t size)
{
	if (type == ELFCOMPRESS_ZLIB) {
		uLongf got = (uLongf)size;
		int rc = uncompress(out, &got, in, (uLong)n);
		if (rc == Z_BUF_ERROR)
			return "zlib data larger than the stated size";
		if (rc != Z_OK)
			return "zlib data corrupt";
		return got == size ? NULL : "zlib data shorter than the stated size";
	}
	if (type == ELFCOMPRESS_ZSTD) {
		size_t got = ZSTD_decompress(out, (size_t)size, in, n);
		if (ZSTD_isError(got))
			return ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall ?
				       "zstd data larger than the stated size" : "zstd data corrupt";
		return got == size ? NULL : "zstd data shorter than the stated size";
	}
	return "unknown compression type";
}

/*
 * The bytes of one section, decompressed into a buffer kept in *keep.
 * @return NULL, or what is wrong.
 */
static const char *section_bytes(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int gnu,
				 struct sect *out, void **keep)
{
	Elf_Data *data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh->sh_size)
		return "section data out of the file";
	const uint8_t *p = data->d_buf;
	size_t n = data->d_size;
	unsigned type;
	uint64_t size;
	size_t hdr;
	if (gnu) {
		if (n < 12 || memcmp(p, "ZLIB", 4) != 0)
			return "no ZLIB header";
		type = ELFCOMPRESS_ZLIB;
		size = get(p + 4, 8, 1);
		hdr = 12;
	} else if (sh->sh_flags & SHF_COMPRESSED) {
		int big = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
		int wide = gelf_getclass(elf) == ELFCLASS64;
		hdr = wide ? 24 : 12;
		if (n < hdr)
			return "compression header cut";
		type = (unsigned)get(p, 4, big);
		size = get(p + (wide ? 8 : 4), wide ? 8 : 4, big);
	} else {
		out->p = p;
		out->n = n;
		return NULL;
	}
	if (size > MAX_SECTION)
		return "stated size too large";
	uint8_t *buf = malloc(size ? (size_t)size : 1);
	if (!buf)
		return "out of memory";
	const char *bad = inflate_to(type, p + hdr, n - hdr, buf, size);
	if (bad) {
		free(buf);
		return bad;
	}
	*keep = buf;
	out->p = buf;
	out->n = (size_t)size;
	return NULL;
}

/* A file cut short loses its section headers, which come last: libelf
 * then sees no sections at all. */
static const char *cut_short(Elf *elf, int fd)
{
	struct stat st;
	GElf_Ehdr eh;
	if (fstat(fd, &st) != 0 || !gelf_getehdr(elf, &eh))
		return NULL;
	uint64_t end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	if (eh.e_shoff && end > (uint64_t)st.st_size)
		return "cut: the section headers end past the end of the file";
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_offset + sh.sh_size > (uint64_t)st.st_size)
			return "cut: a section ends past the end of the file";
	return NULL;
}

int sections_load(struct profev_symbolizer *s, const char *path)
{
	struct dwsects *d = &s->dw;
	const char *cut = cut_short(s->elf, s->fd);
	if (cut)
		return sym_fail(s, PROFEV_E_CORRUPT, "'%s': %s", path, cut);
	size_t shstrndx;
	if (elf_getshdrstrndx(s->elf, &shstrndx) != 0)
		return 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(s->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *full = elf_strptr(s->elf, shstrndx, sh.sh_name), *name = full;
		int gnu = 0;
		if (!name)
			continue;
		if (strncmp(name, ".debug_", 7) == 0)
			name += 7;
		else if (strncmp(name, ".zdebug_", 8) == 0)
			name += 8, gnu = 1;
		else
			continue;
		/* a .dwo or .dwp file's sections end in ".dwo", but for the
		 * package's index; .debug_cu_index means nothing elsewhere */
		size_t len = strlen(name);
		if (s->dwo && strcmp(name, "cu_index") != 0) {
			if (len < 4 || strcmp(name + len - 4, ".dwo") != 0)
				continue;
			len -= 4;
		} else if (!s->dwo && strcmp(name, "cu_index") == 0) {
			continue;
		}
		for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
			if (strlen(wanted[i].name) != len || strncmp(name, wanted[i].name, len) != 0)
				continue;
			struct sect *sec = (struct sect *)((char *)d + wanted[i].off);
			if (sec->p)
				break; /* the first of a name */
			if (grow((void **)&s->bufs, &s->capbufs, s->nbufs + 1, sizeof(*s->bufs)))
				return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
			s->bufs[s->nbufs] = NULL;
			const char *bad = section_bytes(s->elf, scn, &sh, gnu, sec, &s->bufs[s->nbufs]);
			if (s->bufs[s->nbufs])
				s->nbufs++;
			if (bad && strcmp(bad, "out of memory") == 0)
				return sym_fail(s, PROFEV_E_NOMEM, "out of memory");
			if (bad)
				return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s': %s", path, full,
						bad);
			break;
		}
	}
	return d->info.n > 0 && d->abbrev.n > 0;
}
