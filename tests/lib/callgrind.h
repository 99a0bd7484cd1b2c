/* Reading callgrind's output, for the benchmarks that count instructions. */
#ifndef PROFEV_CALLGRIND_H
#define PROFEV_CALLGRIND_H
#ifdef __cplusplus
extern "C" {
#endif

/* The inclusive instruction count (its own cost plus what it calls) of
 * the function FN in callgrind_annotate's listing of FILE: the first line
 * that names it, the costliest. 0 when there is none, callgrind_annotate
 * cannot run or the count is 0: then bench_cannot() said why (bench.h). */
unsigned long long callgrind_ir(const char *file, const char *fn);

#ifdef __cplusplus
}
#endif
#endif
