/*
 * state.c - the state every file of the runtime reads: the configuration
 * and switches in cl (client.h), and the per-thread in_client flag. Here,
 * below every other file, so that none has to call up to init.c for them.
 */
#include "client.h"

struct client cl = { .fd = -1, .shm_fd = -1 };

__thread int in_client __attribute__((tls_model("initial-exec")));
__thread uint64_t thread_stack_lo __attribute__((tls_model("initial-exec")));
__thread uint64_t thread_stack_hi __attribute__((tls_model("initial-exec")));
