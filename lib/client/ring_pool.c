/*
 * ring_pool.c - where rings come from and go back to: the list of every
 * ring ever made (which the flush thread walks without a lock), the free
 * list of rings whose threads exited, and the space of the shared file
 * that rings and the image slots are carved from. Rings are never freed:
 * pfrec may still read a shared ring's bytes, and the flush thread walks
 * the list at any time, even from a crash handler.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "client.h"

struct ring *all_rings;
pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ring *free_rings;

void *shm_extend(size_t len, uint64_t *off)
{
	if (cl.shm_fd < 0)
		return NULL;
	off_t end = (off_t)cl.shm_end;
	if (ftruncate(cl.shm_fd, end + (off_t)len) != 0)
		return NULL;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, cl.shm_fd, end);
	if (p == MAP_FAILED)
		return NULL;
	cl.shm_end += len;
	*off = (uint64_t)end;
	return p;
}

/*
 * The ring's bytes (the new r is otherwise zeroed): in the shared file when
 * pfrec gave one, so that it reads records where they are written, else
 * private. Under reg_lock. 0, or -1 on no memory.
 */
static int ring_memory(struct ring *r)
{
	memset(r, 0, sizeof *r);
	r->ctl = &r->own_ctl;
	r->ctl->owner = r;
	void *p = shm_extend(PFW_RING_CTL + cl.ring_bytes, &r->shm_off);
	if (p) {
		r->ctl = p;
		r->ctl->owner = r;
		r->base = (unsigned char *)p + PFW_RING_CTL;
		return 0;
	}
	r->base = aligned_alloc(64, cl.ring_bytes);
	return r->base ? 0 : -1;
}

struct ring *ring_take(void)
{
	pthread_mutex_lock(&reg_lock);
	struct ring *r = free_rings;
	if (r) {
		free_rings = r->next_free;
	} else {
		r = aligned_alloc(64, (sizeof *r + 63) & ~(size_t)63);
		if (!r || ring_memory(r) < 0) {
			free(r);
			r = NULL;
		} else {
			r->size = cl.ring_bytes;
			r->next = all_rings;
			/* On the list as RING_FREE, which the flush thread passes
			 * over until the new owner publishes RING_ACTIVE. */
			ATOMIC_STORE(&all_rings, r);
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return r;
}

/* Flush thread: every byte of an exited ring was consumed; make it reusable. */
void ring_recycle(struct ring *r)
{
	pthread_mutex_lock(&reg_lock);
	__atomic_add_fetch(&cl.lost_unreported, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED),
			   __ATOMIC_RELAXED);
	ATOMIC_STORE(&r->state, RING_FREE);
	r->next_free = free_rings;
	free_rings = r;
	pthread_mutex_unlock(&reg_lock);
}
