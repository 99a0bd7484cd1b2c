/*
 * The threads' rings in the shared file (rec_internal.h, formats/wire.md
 * "Shared rings"): each thread writes its records into a ring of its own
 * and tells pfrec how far (PFW_RING_DATA); records are read where they
 * were written instead of being copied through the pipe twice.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "rec/rec_internal.h"

/* PFW_RING: map the thread's ring from the shared file. */
int ring_attach(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	struct pfw_ring m;
	struct stat st;
	if (r->shm_fd < 0 || h->len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.offset % PFW_RING_CTL || m.size < (16u << 10) || m.size > (64u << 20) ||
	    (m.size & (m.size - 1)) || m.start > m.size || m.start % 16 || fstat(r->shm_fd, &st) < 0 ||
	    m.offset + PFW_RING_CTL + m.size > (uint64_t)st.st_size)
		return -1;
	struct thr *t = thread_get(r, h->tid, NULL, 0);
	if (!t)
		return -1;
	ring_unmap(t);
	void *p = mmap(NULL, PFW_RING_CTL + (size_t)m.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->shm_fd, (off_t)m.offset);
	if (p == MAP_FAILED)
		return -1;
	t->ring_map = p;
	t->ring_size = m.size;
	t->ring_base = m.base;
	/* After an attach the ring's records start where its owner was. */
	t->ring_read = m.start;
	return 0;
}

/* Records of t's ring from where we stopped up to pos, which is valid.
 * 0, or -1 (stream marked bad). */
static int ring_consume(struct profev_recorder *r, struct thr *t, uint32_t pos)
{
	const unsigned char *ring = t->ring_map + PFW_RING_CTL;
	uint32_t from = t->ring_read;
	r->cur = t;
	if (pos < from) {
		if (decode_ring_span(r, ring + from, t->ring_size - from) < 0)
			return -1;
		r->ring_bytes += t->ring_size - from;
		from = 0;
	}
	if (decode_ring_span(r, ring + from, pos - from) < 0)
		return -1;
	r->ring_bytes += pos - from;
	t->ring_read = pos;
	pfw_ring_consumed((struct pfw_ring_ctl *)(void *)t->ring_map, pos);
	return 0;
}

/*
 * The stream has ended: keep what threads published in their shared rings
 * after the last PFW_RING_DATA, which is all a SIGKILL leaves. Names that
 * the program first used in those last moments may never have been sent:
 * their events stay, unnamed.
 */
void rings_drain(struct profev_recorder *r)
{
	for (uint32_t i = 0; i < r->nthr && !r->bad; i++) {
		struct thr *t = r->thr[i];
		if (!t || !t->ring_map)
			continue;
		uint64_t end = __atomic_load_n((uint64_t *)(void *)(t->ring_map + PFW_RING_POS),
					       __ATOMIC_ACQUIRE);
		uint64_t pos = end - t->ring_base;
		if (end < t->ring_base || pos > t->ring_size || pos % 16 || pos == t->ring_read)
			continue;
		ring_consume(r, t, (uint32_t)pos);
	}
}

/* PFW_RING_DATA: the thread's records from where we stopped up to pos. */
int ring_data(struct profev_recorder *r, const struct pfw_header *h, const unsigned char *b)
{
	struct pfw_ring_data d;
	struct thr *t = thread_find(r, h->tid);
	if (!t || !t->ring_map || h->len < sizeof d)
		return -1;
	memcpy(&d, b, sizeof d);
	if (d.pos > t->ring_size || d.pos % 16)
		return -1;
	return ring_consume(r, t, d.pos) < 0 ? -2 : 0;
}

void rings_stop(struct profev_recorder *r)
{
	for (uint32_t i = 0; i < r->nthr; i++)
		if (r->thr[i] && r->thr[i]->ring_map)
			pfw_ring_stop((struct pfw_ring_ctl *)(void *)r->thr[i]->ring_map);
	if (r->img.ctl)
		pfw_images_stop(r->img.ctl);
}
