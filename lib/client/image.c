/*
 * image.c - PROFEV_FRAME_IMAGE: the caller's pixels are copied into a slot
 * of the shared file and a FRAME_IMAGE record names the slot; pfrec
 * encodes them there (formats/wire.md, "Frame images"). The game thread
 * pays for the copy and nothing more, no thread is added to the program,
 * and images in flight when the program dies are still in the file for
 * pfrec to keep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "client.h"

static pthread_once_t images_once = PTHREAD_ONCE_INIT;
static struct pfw_image_ctl *img_ctl; /* NULL: no shared file, or no room in it */
static unsigned char *img_slots;

/* Under reg_lock, as rings grow the file. Once per process. */
static void images_place(void)
{
	if (cl.shm_fd < 0)
		return;
	in_client++;
	pthread_mutex_lock(&reg_lock);
	uint64_t off;
	void *p = shm_extend(PFW_RING_CTL + (size_t)PFW_IMAGE_SLOTS * PFW_IMAGE_SLOT_BYTES, &off);
	if (p) {
		struct pfw_images m = { off, PFW_IMAGE_SLOTS, PFW_IMAGE_SLOT_BYTES };
		/* Queued before the slots are used: pfrec maps them before it
		 * meets a record naming one. */
		defs_append(PFW_IMAGES, &m, sizeof m, NULL, 0, NULL, 0);
		img_slots = (unsigned char *)p + PFW_RING_CTL;
		ATOMIC_STORE(&img_ctl, (struct pfw_image_ctl *)p);
		ATOMIC_STORE(&img_ctl_shared, (struct pfw_image_ctl *)p);
	}
	pthread_mutex_unlock(&reg_lock);
	in_client--;
}

/* Counts of images dropped and refused travel as an IMAGE_LOST record. */
static void image_lost(uint64_t dropped, uint64_t refused)
{
	unsigned char *p = rec_acquire(PFW_REC_LONG);
	if (!p)
		return;
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = pfw_word(PFW_R_IMAGE_LOST, 0, 0);
	q[2] = dropped;
	q[3] = refused;
	rec_publish(p + PFW_REC_LONG);
}

/*
 * A slot's pixels pass from the thread that filled it through pfrec (which
 * frees the slot: another process) to the next thread that takes it. That
 * chain orders the two copies, but a race detector sees only this process:
 * each filler also bumps the slot's epoch here (release) and each taker
 * reads it (acquire), the same order made visible. An uncontended atomic
 * per image.
 */
static uint32_t slot_epoch[PFW_IMAGE_SLOTS];

/*
 * The lowest free slot is taken: when pfrec keeps up that is the slot
 * filled last time, whose lines are still in this core's cache (pfrec has
 * only read them); a slot used 4 images ago has left it. Taking the slots
 * in turn instead (the one pfrec read longest ago) was measured 1.5-2x
 * slower per call (docs/performance.md, "The game thread's cost").
 */
static int slot_take(struct pfw_image_ctl *c)
{
	for (uint32_t i = 0; i < PFW_IMAGE_SLOTS; i++) {
		uint32_t free_ = PFW_SLOT_FREE;
		if (__atomic_load_n(&c->state[i], __ATOMIC_RELAXED) == PFW_SLOT_FREE &&
		    __atomic_compare_exchange_n(&c->state[i], &free_, PFW_SLOT_BUSY, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			(void)__atomic_load_n(&slot_epoch[i], __ATOMIC_ACQUIRE);
			return (int)i;
		}
	}
	return -1;
}

static unsigned slots_free(struct pfw_image_ctl *c)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < PFW_IMAGE_SLOTS; i++)
		n += __atomic_load_n(&c->state[i], __ATOMIC_RELAXED) == PFW_SLOT_FREE;
	return n;
}

/*
 * Lossless mode: sleep until pfrec frees a slot (it bumps gen and wakes
 * us). The rule of ring_wait() holds: the program never hangs because of
 * pfrec. A recorder that said it reads no more (stop), or that is gone
 * (the pipe has no reader; each sleep is bounded so that this is seen),
 * ends the recording and the image is lost.
 */
static int slot_wait(struct pfw_image_ctl *c)
{
	int saved = errno, i;
	while ((i = slot_take(c)) < 0 && ATOMIC_LOAD(&cl.active)) {
		uint32_t seen = __atomic_load_n(&c->gen, __ATOMIC_SEQ_CST);
		__atomic_store_n(&c->waiting, 1, __ATOMIC_SEQ_CST);
		flush_kick();
		if ((i = slot_take(c)) >= 0)
			break;
		if (__atomic_load_n(&c->stop, __ATOMIC_SEQ_CST)) {
			recording_stop();
			break;
		}
		if (__atomic_load_n(&c->gen, __ATOMIC_SEQ_CST) == seen) {
			struct timespec ts = { 0, PFW_WAIT_NS };
			if (syscall(SYS_futex, &c->gen, FUTEX_WAIT, seen, &ts, NULL, 0) < 0 &&
			    errno == ETIMEDOUT && __atomic_load_n(&c->gen, __ATOMIC_SEQ_CST) == seen &&
			    recorder_gone()) {
				recording_stop();
				break;
			}
		}
	}
	errno = saved;
	return i;
}

PROFEV_API void profev__frame_image(const void *image, uint32_t width, uint32_t height,
				    uint32_t offset, int flip)
{
	if (!ATOMIC_LOAD(&cl.active) || in_client)
		return;
	if (!image || !width || !height || width % 4 || height % 4 || width > PFW_IMAGE_MAX_SIDE ||
	    height > PFW_IMAGE_MAX_SIDE || (uint64_t)width * height > PFW_IMAGE_MAX_PIXELS) {
		image_lost(0, 1);
		return;
	}
	pthread_once(&images_once, images_place);
	struct pfw_image_ctl *c = ATOMIC_LOAD(&img_ctl);
	int i = -1;
	if (c)
		i = cl.drop ? slot_take(c) : slot_wait(c);
	if (i < 0) {
		image_lost(1, 0); /* the queue is full (--drop), or no shared file */
		return;
	}
	size_t bytes = (size_t)width * height * 4;
	memcpy(img_slots + (size_t)i * PFW_IMAGE_SLOT_BYTES, image, bytes);
	__atomic_fetch_add(&slot_epoch[i], 1, __ATOMIC_RELEASE);
	unsigned char *p = rec_acquire(PFW_REC_LONG);
	if (!p) {
		/* The record was dropped (counted as a lost event): so is the image. */
		__atomic_store_n(&c->state[i], PFW_SLOT_FREE, __ATOMIC_RELEASE);
		if (ATOMIC_LOAD(&cl.active))
			image_lost(1, 0);
		return;
	}
	uint64_t *q = (uint64_t *)(void *)p;
	q[0] = client_ticks();
	q[1] = pfw_word(PFW_R_FRAME_IMAGE, 0, (uint32_t)i) | (uint64_t)(flip ? PFW_RF_FLIP : 0) << 8;
	q[2] = (uint64_t)width | (uint64_t)height << 32;
	q[3] = offset;
	rec_publish(p + PFW_REC_LONG);
	/* pfrec frees the slot once the flush thread has told it about the
	 * record, which it does every age_us (2 ms) anyway. Waking it at once
	 * costs a lock and a futex wake on the game thread, so it is done only
	 * when at most one slot is left free: the queue is about to be full. */
	if (slots_free(c) <= 1)
		flush_kick();
}
