/* Assertion macros for unit tests: each failure prints file:line and both
 * values, and the test's exit status is the number of failed checks. */
#ifndef PROFEV_CHECK_H
#define PROFEV_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures __attribute__((unused));

#define CHECK(cond) do { if (!(cond)) { check_failures++; \
	fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)

#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
	check_failures++; fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", \
	__FILE__, __LINE__, #a, #b, a_, b_); } } while (0)

#define CHECK_EQ_U64(a, b) do { uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); if (a_ != b_) { \
	check_failures++; fprintf(stderr, "%s:%d: %s == %s: %" PRIu64 " != %" PRIu64 "\n", \
	__FILE__, __LINE__, #a, #b, a_, b_); } } while (0)

#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_) != 0) { check_failures++; \
	fprintf(stderr, "%s:%d: %s == %s: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
	#a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)

/* Ends main(): reports and turns the failure count into the exit status. */
#define CHECK_DONE() (check_failures ? (fprintf(stderr, "%d check(s) failed\n", \
	check_failures), 1) : 0)
#endif
