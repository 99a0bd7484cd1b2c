/* The symbolizer's test fixtures (tests/sym/build.sh: a DWARF 5 program, a
 * DWARF 4 C++ library, a stripped copy with a separate debug file), shared
 * by the unit tests of lib/sym. */
#ifndef PROFEV_SYMFIX_H
#define PROFEV_SYMFIX_H
#include <stddef.h>
#include <stdint.h>
#include "profev_sym.h"

/* system(cmd); a failure is said on stderr with the command. */
int symfix_run(const char *cmd);

/* symfix_run() of a command formatted as printf() does. */
int symfix_runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Builds the fixtures into DIR/fx, an existing directory, and names that
 * folder in fx (cap bytes). 0, or -1 after saying what failed. */
int symfix_build(const char *dir, char *fx, size_t cap);

/* Frames as llvm-symbolizer prints them ("??" for unknowns). */
void symfix_format(char *buf, size_t cap, const struct profev_symframe *f, int n);

/* Addresses every stride bytes of path's executable sections (malloc()ed). */
uint64_t *symfix_sample(const char *path, unsigned stride, size_t *n);

/* Look addrs up with s and with llvm-symbolizer --inlines --demangle
 * --obj=REF (ref may carry more options; files go in tmpdir); *known
 * counts the addresses s knows something about. @return the addresses
 * whose answers differ (the first few printed), -1 if llvm-symbolizer
 * could not be run. */
int symfix_compare(const char *tmpdir, struct profev_symbolizer *s, const char *ref,
		   const uint64_t *addrs, size_t n, size_t *known);

/* symfix_compare(), but with dropped: an answer without any file or line
 * (a unit left unresolved) is counted there instead of as differing. */
int symfix_check(const char *tmpdir, struct profev_symbolizer *s, const char *ref,
		 const uint64_t *addrs, size_t n, size_t *known, size_t *dropped);

/* Removes dir and everything below it. */
void symfix_remove(const char *dir);
#endif
