/* Reading callgrind's output, for the benchmarks that count instructions. */
#ifndef PROFEV_CALLGRIND_H
#define PROFEV_CALLGRIND_H
#ifdef __cplusplus
extern "C" {
#endif

/* The inclusive instruction count of the first function whose line in
 * callgrind_annotate's listing of FILE contains FN (its own cost plus what
 * it calls); 0 if there is none or callgrind_annotate cannot run. */
unsigned long long callgrind_ir(const char *file, const char *fn);

#ifdef __cplusplus
}
#endif
#endif
