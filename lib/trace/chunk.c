/* Chunk header encoding and checksums (formats/trace.md, "Chunks"). */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "trace/trace_internal.h"

void chunk_header_encode(uint8_t out[CHUNK_HEADER_SIZE], const struct chunk_header *h)
{
	put_le16(out, h->kind);
	put_le16(out + 2, h->flags);
	put_le32(out + 4, h->count);
	put_le32(out + 8, h->stored_size);
	put_le32(out + 12, h->raw_size);
	put_le64(out + 16, h->checksum);
}

void chunk_header_decode(const uint8_t in[CHUNK_HEADER_SIZE], struct chunk_header *h)
{
	h->kind = get_le16(in);
	h->flags = get_le16(in + 2);
	h->count = get_le32(in + 4);
	h->stored_size = get_le32(in + 8);
	h->raw_size = get_le32(in + 12);
	h->checksum = get_le64(in + 16);
}

uint64_t chunk_checksum(const uint8_t header[CHUNK_HEADER_SIZE], const void *body, size_t len)
{
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	XXH3_64bits_update(&st, header, 16);
	XXH3_64bits_update(&st, body, len);
	return XXH3_64bits_digest(&st);
}
