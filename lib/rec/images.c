/* Frame images in pfrec (rec_images.h, formats/wire.md "Frame images"). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "image/image.h"
#include "rec/rec_images.h"
#include "wire/wire.h"

int rec_images_map(struct rec_images *im, int shm_fd, const unsigned char *b, uint32_t len)
{
	struct pfw_images m;
	struct stat st;
	if (im->ctl || shm_fd < 0 || len < sizeof m)
		return -1;
	memcpy(&m, b, sizeof m);
	if (m.offset % PFW_RING_CTL || !m.slots || m.slots > 64 || m.slot_bytes % 4096 ||
	    !m.slot_bytes || fstat(shm_fd, &st) < 0 ||
	    m.offset + PFW_RING_CTL + (uint64_t)m.slots * m.slot_bytes > (uint64_t)st.st_size)
		return -1;
	size_t maplen = PFW_RING_CTL + (size_t)m.slots * m.slot_bytes;
	void *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, (off_t)m.offset);
	if (p == MAP_FAILED)
		return -1;
	im->ctl = p;
	im->slots = (const unsigned char *)p + PFW_RING_CTL;
	im->nslots = m.slots;
	im->slot_bytes = m.slot_bytes;
	im->map_len = maplen;
	return 0;
}

int rec_image(struct rec_images *im, struct profev_writer *w, uint32_t slot, uint32_t width,
	      uint32_t height, int flip, uint64_t ts, uint64_t frame, uint32_t *id)
{
	/* The client checked the size; a program that scribbles over its
	 * records loses the image, never pfrec. */
	if (!im->ctl || slot >= im->nslots || !width || !height || width % 4 || height % 4 ||
	    width > PFW_IMAGE_MAX_SIDE || height > PFW_IMAGE_MAX_SIDE ||
	    (uint64_t)width * height * 4 > im->slot_bytes) {
		im->lost++;
		return 0;
	}
	size_t need = dxt1_size(width, height);
	if (need > im->blocks_cap) {
		uint8_t *nb = realloc(im->blocks, need), *np = nb ? realloc(im->prev, need) : NULL;
		if (!np) {
			im->blocks = nb ? nb : im->blocks;
			pfw_slot_freed(im->ctl, slot); /* or it stays busy for good */
			im->lost++;
			return 0;
		}
		im->blocks = nb;
		im->prev = np;
		im->blocks_cap = need;
	}
	const uint8_t *px = im->slots + (size_t)slot * im->slot_bytes;
	ptrdiff_t stride = (ptrdiff_t)width * 4;
	if (flip) {
		px += (size_t)(height - 1) * (size_t)stride;
		stride = -stride;
	}
	dxt1_encode(px, stride, width, height, im->blocks);
	/* The lossy step needs the pixels: the slot is freed after it. It may
	 * keep blocks of the previous image of this size, which the writer
	 * codes this one against (image_codec.c keeps the last of each size). */
	int same_size = im->prev_w == width && im->prev_h == height;
	dxt1_rd(px, stride, width, height, im->blocks, same_size ? im->prev : NULL, DXT1_RD_LAMBDA);
	pfw_slot_freed(im->ctl, slot);
	struct profev_image img = { ++im->next_id, width, height, PROFEV_IMG_DXT1, frame, ts,
				    im->blocks, need };
	if (profev_writer_image(w, &img) < 0)
		return -1;
	memcpy(im->prev, im->blocks, need);
	im->prev_w = width;
	im->prev_h = height;
	im->stored++;
	im->raw_bytes += (uint64_t)width * height * 4;
	*id = img.id;
	return 1;
}

void rec_images_free(struct rec_images *im)
{
	if (im->ctl)
		munmap(im->ctl, im->map_len);
	free(im->blocks);
	free(im->prev);
	memset(im, 0, sizeof *im);
}
