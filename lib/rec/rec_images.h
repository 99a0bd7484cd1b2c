/* The recorder's side of frame images (lib/rec/images.c): maps the slots
 * the client fills, encodes each image there to DXT1 and writes it to the
 * trace. Not installed. */
#ifndef PROFEV_REC_IMAGES_H
#define PROFEV_REC_IMAGES_H

#include <stdint.h>
#include "profev_trace.h"

struct rec_images {
	struct pfw_image_ctl *ctl;  /* NULL until PFW_IMAGES */
	const unsigned char *slots;
	uint32_t nslots, slot_bytes;
	size_t map_len;
	uint8_t *blocks;            /* one image's DXT1 */
	uint8_t *prev;              /* the previous image's, as stored (prev_w x prev_h) */
	size_t blocks_cap;
	uint32_t prev_w, prev_h;
	uint32_t next_id;
	uint64_t stored, lost, refused;
	uint64_t raw_bytes;         /* RGBA bytes of the stored images */
};

#define rec_images_map profev__rec_images_map
#define rec_image profev__rec_image
#define rec_images_free profev__rec_images_free

/* PFW_IMAGES: map the slots. 0, or -1 if the message is malformed. */
int rec_images_map(struct rec_images *im, int shm_fd, const unsigned char *b, uint32_t len);
/*
 * The image in slot: encode, free the slot, write the image chunk.
 * @return 1 with *id set (write its FRAME_IMAGE event), 0 when the image
 * is lost (a slot or size the client had no right to send: counted), <0
 * when the writer failed.
 */
int rec_image(struct rec_images *im, struct profev_writer *w, uint32_t slot, uint32_t width,
	      uint32_t height, int flip, uint64_t ts, uint64_t frame, uint32_t *id);
void rec_images_free(struct rec_images *im);

#endif
