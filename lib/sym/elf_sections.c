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

/*
 * What a compressed section may claim (pfsym(1), "Damaged debug files").
 * Real DWARF compresses 2 to 7 times with zlib or zstd; a header that
 * claims much more lies, or announces a bomb (145 KB of zstd inflate to
 * 4 GiB of zeros). A claim past these bounds refuses the file before
 * anything is allocated:
 *   - a section: at most RATIO_MAX bytes per compressed byte, above
 *     SECTION_FLOOR (which any section may claim), and MAX_SECTION;
 *   - the file: its decompressed sections together at most FILE_RATIO
 *     bytes per byte of the file, above FILE_FLOOR.
 * So one debug file costs at most max(FILE_FLOOR, FILE_RATIO x its size)
 * of decompressed data.
 */
#define MAX_SECTION ((uint64_t)1 << 32)
#define RATIO_MAX 1000
#define SECTION_FLOOR ((uint64_t)64 << 20)
#define FILE_RATIO 100
#define FILE_FLOOR ((uint64_t)256 << 20)
/* Output is made in pieces, the buffer grown as it fills, so that a
 * claim is never allocated ahead of the data; a .debug_info or .debug_line
 * whose first piece does not begin with a unit header ends there. */
#define PIECE ((size_t)1 << 20)

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

/* A section whose data begins with DWARF unit headers (.debug_info,
 * .debug_line): the first piece p[0..n) of its size bytes holds one,
 * with a length that fits and a known version. NULL, or why not. */
static const char *not_units(const uint8_t *p, size_t n, uint64_t size)
{
	if (n < 6)
		return NULL;
	uint64_t len = get(p, 4, 0), hdr = 4;
	if (len == 0xffffffffu) {
		if (n < 14)
			return NULL;
		len = get(p + 4, 8, 0);
		hdr = 12;
	}
	unsigned version = (unsigned)get(p + hdr, 2, 0);
	if (len < 2 || len > size - hdr)
		return "its first unit's length does not fit: not DWARF";
	if (version < 2 || version > 5)
		return "its first unit's version is unknown: not DWARF";
	return NULL;
}

/* A stream being inflated into a buffer that grows to at most size. */
struct out {
	uint8_t *buf;
	size_t cap, got;
	uint64_t size;
	int units;          /* check the first piece with not_units() */
	int nomem;
};

/* Room after o->got, the buffer grown (at most to o->size): 0, or -1
 * with o->nomem set. */
static int out_grow(struct out *o)
{
	size_t cap = o->cap ? o->cap * 2 : PIECE;
	if (cap > o->size)
		cap = (size_t)o->size;
	uint8_t *b = realloc(o->buf, cap ? cap : 1);
	if (!b) {
		o->nomem = 1;
		return -1;
	}
	o->buf = b;
	o->cap = cap;
	return 0;
}

static const char *inflate_zlib(struct out *o, const uint8_t *in, size_t n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return "zlib cannot start";
	const char *bad = NULL;
	uint8_t extra;
	z.next_in = (Bytef *)in;
	for (;;) {
		if (z.avail_in == 0 && n > 0) {
			z.avail_in = n > 1u << 30 ? 1u << 30 : (uInt)n;
			n -= z.avail_in;
		}
		int full = o->got == o->size;
		if (!full && o->got == o->cap && out_grow(o) < 0) {
			bad = "out of memory";
			break;
		}
		size_t room = full ? 1 : o->cap - o->got;
		if (room > 1u << 30)
			room = 1u << 30;
		z.next_out = full ? &extra : o->buf + o->got;
		z.avail_out = (uInt)room;
		int rc = inflate(&z, Z_NO_FLUSH);
		size_t made = room - z.avail_out;
		if (full && made) {
			bad = "zlib data larger than the stated size";
			break;
		}
		size_t before = o->got;
		o->got += full ? 0 : made;
		if (o->units && before < PIECE && (o->got >= PIECE || o->got == o->size) &&
		    (bad = not_units(o->buf, o->got, o->size)))
			break;
		if (rc == Z_STREAM_END) {
			bad = o->got == o->size ? NULL : "zlib data shorter than the stated size";
			break;
		}
		if (rc == Z_BUF_ERROR && z.avail_in == 0 && n == 0) {
			bad = "zlib data cut short";
			break;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			bad = "zlib data corrupt";
			break;
		}
	}
	inflateEnd(&z);
	return bad;
}

static const char *inflate_zstd(struct out *o, const uint8_t *in, size_t n)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	if (!z)
		return "out of memory";
	const char *bad = NULL;
	uint8_t extra;
	ZSTD_inBuffer ib = { in, n, 0 };
	size_t rc = 1;
	for (;;) {
		if (rc == 0 && ib.pos == ib.size) {
			/* the last frame ended with the input */
			bad = o->got == o->size ? NULL : "zstd data shorter than the stated size";
			break;
		}
		int full = o->got == o->size;
		if (!full && o->got == o->cap && out_grow(o) < 0) {
			bad = "out of memory";
			break;
		}
		ZSTD_outBuffer ob = { full ? &extra : o->buf + o->got, full ? 1 : o->cap - o->got, 0 };
		rc = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(rc)) {
			bad = "zstd data corrupt";
			break;
		}
		if (full && ob.pos) {
			bad = "zstd data larger than the stated size";
			break;
		}
		size_t before = o->got;
		o->got += full ? 0 : ob.pos;
		if (o->units && before < PIECE && (o->got >= PIECE || o->got == o->size) &&
		    (bad = not_units(o->buf, o->got, o->size)))
			break;
		if (ib.pos == ib.size && ob.pos < ob.size) {
			/* all input read and room left: the data ends here */
			if (rc != 0)
				bad = "zstd data cut short";
			else if (o->got != o->size)
				bad = "zstd data shorter than the stated size";
			break;
		}
	}
	ZSTD_freeDStream(z);
	return bad;
}

/*
 * The bytes of one section, decompressed into a buffer kept in *keep;
 * *total counts the bytes decompressed for the file so far, against
 * file_cap. @return 0, or <0 with s->err set (PROFEV_E_CORRUPT damage,
 * PROFEV_E_LIMIT a claim past the bounds or that cannot be allocated).
 */
static int section_bytes(struct profev_symbolizer *s, const char *path, const char *full,
			 Elf_Scn *scn, const GElf_Shdr *sh, int gnu, struct sect *out, void **keep,
			 uint64_t *total, uint64_t file_cap)
{
	Elf *elf = s->elf;
	unsigned long long at = (unsigned long long)sh->sh_offset;
	Elf_Data *data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh->sh_size)
		return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s' at offset 0x%llx: section data out of the file",
				path, full, at);
	const uint8_t *p = data->d_buf;
	size_t n = data->d_size;
	unsigned type;
	uint64_t size;
	size_t hdr;
	if (gnu) {
		if (n < 12 || memcmp(p, "ZLIB", 4) != 0)
			return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s' at offset 0x%llx: no ZLIB header",
					path, full, at);
		type = ELFCOMPRESS_ZLIB;
		size = get(p + 4, 8, 1);
		hdr = 12;
	} else if (sh->sh_flags & SHF_COMPRESSED) {
		int big = elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
		int wide = gelf_getclass(elf) == ELFCLASS64;
		hdr = wide ? 24 : 12;
		if (n < hdr)
			return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s' at offset 0x%llx: compression header cut",
					path, full, at);
		type = (unsigned)get(p, 4, big);
		size = get(p + (wide ? 8 : 4), wide ? 8 : 4, big);
		if (type != ELFCOMPRESS_ZLIB && type != ELFCOMPRESS_ZSTD)
			return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s' at offset 0x%llx: unknown compression type %u",
					path, full, at, type);
	} else {
		out->p = p;
		out->n = n;
		return 0;
	}
	uint64_t packed = n - hdr;
	if (size > MAX_SECTION || (size > SECTION_FLOOR && size / RATIO_MAX > packed))
		return sym_fail(s, PROFEV_E_LIMIT, "'%s': section '%s' at offset 0x%llx: claims %llu bytes from %llu: over %d times that and %llu MiB, refused",
				path, full, at, (unsigned long long)size, (unsigned long long)packed,
				RATIO_MAX, (unsigned long long)(SECTION_FLOOR >> 20));
	if (size > file_cap - *total)
		return sym_fail(s, PROFEV_E_LIMIT, "'%s': section '%s' at offset 0x%llx: claims %llu bytes, past the file's limit of %llu (%d times its size, at least %llu MiB), refused",
				path, full, at, (unsigned long long)size, (unsigned long long)file_cap,
				FILE_RATIO, (unsigned long long)(FILE_FLOOR >> 20));
	struct out o = { NULL, 0, 0, size, 0, 0 };
	const char *name = strrchr(full, '_');
	o.units = name && (strncmp(name, "_info", 5) == 0 || strncmp(name, "_line", 5) == 0) &&
		  (name[5] == '\0' || strcmp(name + 5, ".dwo") == 0);
	const char *bad = type == ELFCOMPRESS_ZLIB ? inflate_zlib(&o, p + hdr, packed)
						   : inflate_zstd(&o, p + hdr, packed);
	if (bad) {
		free(o.buf);
		if (o.nomem)
			return sym_fail(s, PROFEV_E_LIMIT, "'%s': section '%s' at offset 0x%llx: cannot allocate the %llu bytes its header claims: refused",
					path, full, at, (unsigned long long)size);
		return sym_fail(s, PROFEV_E_CORRUPT, "'%s': section '%s' at offset 0x%llx: %s", path, full,
				at, bad);
	}
	*total += size;
	*keep = o.buf;
	out->p = o.buf;
	out->n = (size_t)size;
	return 0;
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
	struct stat st;
	uint64_t total = 0, file_cap = FILE_FLOOR;
	if (fstat(s->fd, &st) == 0 && (uint64_t)st.st_size > FILE_FLOOR / FILE_RATIO)
		file_cap = (uint64_t)st.st_size * FILE_RATIO;
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
			int rc = section_bytes(s, path, full, scn, &sh, gnu, sec, &s->bufs[s->nbufs],
					       &total, file_cap);
			if (s->bufs[s->nbufs])
				s->nbufs++;
			if (rc < 0)
				return rc;
			break;
		}
	}
	return d->info.n > 0 && d->abbrev.n > 0;
}
