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

pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
__thread char thread_label[64] __attribute__((tls_model("initial-exec")));
__thread uint32_t thread_label_len __attribute__((tls_model("initial-exec")));
struct pfw_image_ctl *img_ctl_shared;
