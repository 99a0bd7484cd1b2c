/* The symbolizer's test fixtures (tests/sym/build.sh: a DWARF 5 program, a
 * DWARF 4 C++ library, a stripped copy with a separate debug file), shared
 * by the unit tests of lib/sym. */
#ifndef PROFEV_SYMFIX_H
#define PROFEV_SYMFIX_H
#include <stddef.h>

/* system(cmd); a failure is said on stderr with the command. */
int symfix_run(const char *cmd);

/* Builds the fixtures into DIR/fx, an existing directory, and names that
 * folder in fx (cap bytes). 0, or -1 after saying what failed. */
int symfix_build(const char *dir, char *fx, size_t cap);

/* Removes dir and everything below it. */
void symfix_remove(const char *dir);
#endif
