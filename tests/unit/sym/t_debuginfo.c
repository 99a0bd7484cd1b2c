/*
 * lib/sym/debuginfo.c finding dwz supplementary files, and the symbolizer
 * reading through them: `dwz -m` over the fixture program and a second
 * build of it moves what they share into one supplementary file, named by
 * .gnu_debugaltlink (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt) or, with
 * dwz -5, by .debug_sup (DW_FORM_ref_sup4, DW_FORM_strp_sup). Found by its
 * build-id in a debug dir's .build-id tree, in a debug dir's .dwz
 * directory, beside the debug file and under the system dir, each program
 * then answers every address as llvm-symbolizer --inlines --demangle does
 * on the program before dwz. A wrong file at the build-id path is refused
 * with a warning and the search goes on; a missing one is warned about.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "profev_sym.h"
#include "symfix.h"

static char tmpdir[] = "/tmp/t_debuginfo.XXXXXX";
static char fx[512];

static void hexid(char *out, const uint8_t *id, int n)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* The checksum a .debug_sup section gives, as hex; "" if none. */
static void sup_checksum(const char *path, char *out)
{
	out[0] = '\0';
	int fd = open(path, O_RDONLY);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0)
		while ((scn = elf_nextscn(e, scn))) {
			const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			Elf_Data *d = nm && strcmp(nm, ".debug_sup") == 0 ? elf_rawdata(scn, NULL) : NULL;
			if (!d)
				continue;
			const uint8_t *p = d->d_buf;
			size_t k = 3 + strlen((const char *)p + 3) + 1;
			if (k < d->d_size && p[k] < 0x80 && k + 1 + p[k] <= d->d_size)
				hexid(out, p + k + 1, p[k]);
		}
	elf_end(e);
	close(fd);
}

/* pfsym's lookup of the module at path, against llvm-symbolizer on ref. */
static void check_found(const char *path, const char *ref, const char *const *dirs, unsigned ndirs,
			const char *sys, const char *want_sup, const char *want_warning)
{
	uint8_t id[64];
	int idlen = profev_elf_build_id(path, id, sizeof(id));
	CHECK(idlen > 0);
	struct profev_debuginfo_opts o = { dirs, ndirs, sys };
	struct profev_debuginfo di;
	CHECK_EQ(profev_debuginfo_find(path, id, (unsigned)idlen, &o, &di), 0);
	CHECK(di.path && di.has_dwarf);
	int warned = 0;
	for (unsigned i = 0; i < di.nwarnings; i++) {
		fprintf(stderr, "  warning: %s\n", di.warnings[i]);
		warned |= want_warning && strstr(di.warnings[i], want_warning) != NULL;
	}
	CHECK(want_warning ? warned : di.nwarnings == 0);
	if (want_sup)
		CHECK_STR(di.sup_path, want_sup);
	else
		CHECK(di.sup_path == NULL);
	struct profev_symbolizer_files f = { di.path, di.symbols_path, di.sup_path };
	struct profev_error err;
	struct profev_symbolizer *s = profev_symbolizer_open(&f, &err);
	CHECK(s != NULL);
	if (s && want_sup) {
		size_t n, known = 0;
		uint64_t *a = symfix_sample(ref, 3, &n);
		int bad = symfix_compare(tmpdir, s, ref, a, n, &known);
		fprintf(stderr, "%s with '%s': %zu addresses, %zu known, %d differ from llvm-symbolizer on '%s'\n",
			path, di.sup_path, n, known, bad, ref);
		CHECK_EQ(bad, 0);
		CHECK(known > n / 2);
		free(a);
	}
	profev_symbolizer_free(s);
	profev_debuginfo_release(&di);
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
	char dz[600], dz5[600], p[700], q[700], p5[700], common[700], common5[700], prog[700], other[700];
	snprintf(dz, sizeof(dz), "%s/dz", tmpdir);
	snprintf(dz5, sizeof(dz5), "%s/dz5", tmpdir);
	snprintf(prog, sizeof(prog), "%s/prog", fx);
	snprintf(other, sizeof(other), "%s/prog.other", fx);
	snprintf(p, sizeof(p), "%s/prog", dz);
	snprintf(q, sizeof(q), "%s/prog.other", dz);
	snprintf(p5, sizeof(p5), "%s/prog", dz5);
	snprintf(common, sizeof(common), "%s/fixture.debug", dz);
	snprintf(common5, sizeof(common5), "%s/fixture5.debug", dz5);
	/* the link names a place that does not exist: found by build-id */
	CHECK_EQ(symfix_runf("mkdir -p '%s' '%s' && cp '%s' '%s' '%s' && cp '%s' '%s' '%s'",
		     dz, dz5, prog, other, dz, prog, other, dz5), 0);
	CHECK_EQ(symfix_runf("cd '%s' && dwz -m fixture.debug -M /nonexistent/.dwz/fixture.debug "
		     "prog prog.other", dz), 0);
	CHECK_EQ(symfix_runf("cd '%s' && dwz -5 -m fixture5.debug prog prog.other", dz5), 0);
	uint8_t id[64];
	char h[200], h5[200];
	int idlen = profev_elf_build_id(common, id, sizeof(id));
	CHECK(idlen > 0);
	hexid(h, id, idlen > 0 ? idlen : 0);
	sup_checksum(p5, h5);
	CHECK(strlen(h5) > 2);

	/* beside the debug file (here the program itself holds the DWARF) */
	char beside[800];
	snprintf(beside, sizeof(beside), "%s/fixture.debug", dz);
	check_found(p, prog, NULL, 0, "", beside, NULL);
	check_found(q, other, NULL, 0, "", beside, NULL);
	/* DWARF 5: .debug_sup names fixture5.debug, beside prog */
	check_found(p5, prog, NULL, 0, "", common5, NULL);

	/* moved away: in a debug dir's .build-id tree, in its .dwz dir, under
	 * the system dir's .build-id tree */
	char dd[600], dd2[600], sys[600], bid[900], dwzp[900], sbid[900];
	snprintf(dd, sizeof(dd), "%s/dd", tmpdir);
	snprintf(dd2, sizeof(dd2), "%s/dd2", tmpdir);
	snprintf(sys, sizeof(sys), "%s/sys", tmpdir);
	snprintf(bid, sizeof(bid), "%s/.build-id/%.2s/%s.debug", dd, h, h + 2);
	snprintf(dwzp, sizeof(dwzp), "%s/.dwz/fixture.debug", dd2);
	snprintf(sbid, sizeof(sbid), "%s/.build-id/%.2s/%s.debug", sys, h, h + 2);
	CHECK_EQ(symfix_runf("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", bid, common, bid), 0);
	const char *dirs[] = { dd };
	check_found(p, prog, dirs, 1, "", bid, NULL);
	CHECK_EQ(symfix_runf("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", dwzp, bid, dwzp), 0);
	const char *dirs2[] = { dd, dd2 };
	check_found(q, other, dirs2, 2, "", dwzp, NULL);
	CHECK_EQ(symfix_runf("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", sbid, dwzp, sbid), 0);
	check_found(p, prog, dirs2, 2, sys, sbid, NULL);
	/* DWARF 5 by its checksum in a debug dir's .build-id tree */
	char bid5[900];
	snprintf(bid5, sizeof(bid5), "%s/.build-id/%.2s/%s.debug", dd, h5, h5 + 2);
	CHECK_EQ(symfix_runf("mkdir -p \"$(dirname '%s')\" && mv '%s' '%s'", bid5, common5, bid5), 0);
	check_found(p5, prog, dirs, 1, "", bid5, NULL);

	/* another file at the build-id path is refused and the search goes on */
	CHECK_EQ(symfix_runf("mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'", bid, bid5, bid), 0);
	check_found(p, prog, dirs, 1, sys, sbid, "not the supplementary file");
	/* cut short: refused */
	CHECK_EQ(symfix_runf("truncate -s 1000 '%s'", sbid), 0);
	check_found(p, prog, NULL, 0, sys, NULL, "cut:");
	/* nowhere: a warning naming what is missing; the lines still come */
	CHECK_EQ(symfix_runf("rm -f '%s' '%s'", sbid, bid), 0);
	check_found(p, prog, dirs, 1, sys, NULL, "supplementary file '/nonexistent/.dwz/fixture.debug'");

	symfix_remove(tmpdir);
	return CHECK_DONE();
}
