# PROFEV_SECURE_ALLOC and PROFEV_SECURE_FREE in malloc itself: every
# allocation of the program goes through them, the client's own included,
# from before the client starts (constructors) to after it has shut down
# (static destructors), on several threads. Nothing crashes or hangs, and
# the program's allocations are all there. (Sanitizers bring their own
# malloc: the interposition is tested without them.)
. "$PROFEV_ROOT/tests/cli/lib.sh"
. "$PROFEV_ROOT/tests/cli/rec-lib.sh"
[ -z "$SANFLAGS" ] || exit 0
build_prog hooked <<'C'
#include <profev.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t k);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);
void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	PROFEV_SECURE_ALLOC(p, n);
	return p;
}
void *calloc(size_t n, size_t k)
{
	void *p = __libc_calloc(n, k);
	PROFEV_SECURE_ALLOC(p, n * k);
	return p;
}
void *realloc(void *old, size_t n)
{
	if (old)
		PROFEV_SECURE_FREE(old);
	void *p = __libc_realloc(old, n);
	PROFEV_SECURE_ALLOC(p, n);
	return p;
}
void free(void *p)
{
	if (p)
		PROFEV_SECURE_FREE(p);
	__libc_free(p);
}
/* volatile: the compiler removes a malloc whose block is only freed */
static void *volatile kept;
static void churn(size_t n)
{
	void *volatile p = malloc(n);
	free(p);
}
__attribute__((constructor(101))) static void early(void)
{
	churn(11);
	kept = strdup("made before the client started");
}
__attribute__((destructor)) static void late(void)
{
	free(kept);
	churn(12);
}
static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		churn(33);
	return NULL;
}
int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	void *a = malloc(77), *volatile b = malloc(77), *c = malloc(77);
	free(b);
	printf("%p %p\n", a, c);
	return 0;
}
C
expect_exit 0 ./hooked
expect_exit 0 pfrec -q -o hooked.bin ./hooked
expect_exit 0 pfdump --jsonl hooked.bin
[ "$(grep -c '"type":"alloc".*"size":33,' out.txt)" -eq 4000 ] || fail "expected 4000 allocations of 33 bytes"
[ "$(grep -c '"type":"alloc".*"size":77,' out.txt)" -eq 3 ] || fail "expected 3 allocations of 77 bytes"
[ "$(grep -c '"type":"free"' out.txt)" -ge 4001 ] || fail "frees missing"
! grep -q '"size":1[12],' out.txt || fail "an allocation outside the client's lifetime was recorded"
expect_exit 0 pfdump --leaks hooked.bin
grep -q '^[0-9]* bytes in [0-9]* blocks, pool (default)' out.txt || fail "no leak report"
