/* What the benchmarks share: a figure that cannot be measured fails the
 * benchmark with its reason, never a 0 printed as a result; and the tiny
 * run, in which a test goes through every measuring path on a tiny input
 * so that a broken parse of a tool's output shows in make test. */
#ifndef PROFEV_BENCH_H
#define PROFEV_BENCH_H
#ifdef __cplusplus
extern "C" {
#endif

/* 1 when PROFEV_BENCH_TINY is set (not to 0): measure once, on a tiny
 * input, what a full run measures on its real one. */
int bench_tiny(void);

/* On stderr, "PROGRAM: cannot measure WHAT: WHY", and bench_status()
 * becomes 1. */
void bench_cannot(const char *what, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));

/* 0 while every figure was measured, 1 once one was not. */
int bench_status(void);

#ifdef __cplusplus
}
#endif
#endif
