/*
 * sym/elf_symtab.c - an ELF symbol table sorted for lookups, and the
 * STT_FILE symbols that name local symbols' sources. Of the files given
 * (the debug file, then the module), the first .symtab is used, else the
 * first .dynsym: what llvm-symbolizer reads from the unstripped module.
 *
 * As LLVM's SymbolizableObjectFile: function, object, ifunc and untyped
 * symbols in sections, sorted by (address, size) keeping table order among
 * equals, the last of an address winning; an address is covered by the
 * symbol at or below it if that has no size or its size reaches.
 */
#include <string.h>
#include "sym/sym_internal.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return 0;
}

/* qsort is not stable; LLVM's stable_sort keeps symbol table order among
 * equal (addr, size), and the last of an address wins, so sort on the
 * index as a final key. */
struct symsort {
	struct elfsym sym;
	size_t order;
};

static int cmp_symsort(const void *a, const void *b)
{
	const struct symsort *x = a, *y = b;
	int c = cmp_sym(&x->sym, &y->sym);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int nomem(struct profev_error *err)
{
	memset(err, 0, sizeof(*err));
	err->code = PROFEV_E_NOMEM;
	snprintf(err->message, sizeof(err->message), "out of memory");
	return PROFEV_E_NOMEM;
}

/* The first section of type in elf holding more than the null symbol. */
static Elf_Scn *find_table(Elf *elf, unsigned type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize &&
		    sh->sh_size / sh->sh_entsize > 1)
			return scn;
	return NULL;
}

/* AArch64 and Arm (and RISC-V) mark where code and data start in a section
 * with local untyped symbols named $x, $d, $a, $t, optionally followed by
 * a dot and anything: they name no function, and llvm-symbolizer skips
 * them, keeping the function they fall in. */
static int mapping_symbol(unsigned type, const char *name)
{
	return type == STT_NOTYPE && name[0] == '$' && name[1] && strchr("xdat", name[1]) &&
	       (name[2] == 0 || name[2] == '.');
}

int symtab_load(struct symtab *t, Elf *const *elfs, unsigned nelfs, struct profev_error *err)
{
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	GElf_Shdr sh;
	/* every .symtab before any .dynsym, each in the order given */
	for (unsigned pass = 0; pass < 2 && !scn; pass++)
		for (unsigned i = 0; i < nelfs && !scn; i++)
			if (elfs[i] && (scn = find_table(elfs[i], pass ? SHT_DYNSYM : SHT_SYMTAB, &sh)))
				elf = elfs[i];
	if (!scn)
		return 0;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	struct symsort *tmp = calloc(n ? n : 1, sizeof(*tmp));
	t->filesyms = calloc(n ? n : 1, sizeof(*t->filesyms));
	if (!tmp || !t->filesyms) {
		free(tmp);
		return nomem(err);
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name)
			name = "";
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) {
			if (type == STT_FILE)
				t->filesyms[t->nfilesyms++] = (struct filesym){ (uint32_t)i, name };
			continue;
		}
		if (type != STT_NOTYPE && type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC)
			continue;
		if (i == 0 || mapping_symbol(type, name))
			continue;
		tmp[m].sym.addr = sym.st_value;
		tmp[m].sym.size = sym.st_size;
		tmp[m].sym.name = name;
		tmp[m].sym.local_idx = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? (uint32_t)i : 0;
		tmp[m].order = m;
		m++;
	}
	qsort(tmp, m, sizeof(*tmp), cmp_symsort);
	t->syms = calloc(m ? m : 1, sizeof(*t->syms));
	if (!t->syms) {
		free(tmp);
		return nomem(err);
	}
	for (size_t i = 0; i < m; i++) {
		if (i + 1 < m && tmp[i + 1].sym.addr == tmp[i].sym.addr)
			continue;
		t->syms[t->nsyms++] = tmp[i].sym;
	}
	free(tmp);
	return 0;
}

struct elfsym *symtab_find(struct symtab *t, uint64_t addr)
{
	/* upper_bound on (addr, size = max), then one back */
	size_t k = UPPER_BOUND(t->nsyms, addr, t->syms[i].addr);
	if (k == 0)
		return NULL;
	struct elfsym *e = &t->syms[k - 1];
	if (e->size != 0 && e->addr + e->size <= addr)
		return NULL;
	return e;
}

/* The STT_FILE symbol before a local symbol names its source file; LLVM
 * reports it for code without line info. */
const char *symtab_file_symbol(const struct symtab *t, uint32_t idx)
{
	size_t k = UPPER_BOUND(t->nfilesyms, idx, t->filesyms[i].idx);
	return k && t->filesyms[k - 1].name[0] ? t->filesyms[k - 1].name : NULL;
}

void symtab_release(struct symtab *t)
{
	free(t->syms);
	free(t->filesyms);
	memset(t, 0, sizeof(*t));
}
