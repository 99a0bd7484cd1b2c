/*
 * image_rc.c - DXT1 blocks by context modelling and a binary range coder
 * (formats/trace.md, "Image", format 4): each block is "as in the
 * reference image", flat, or coded; a coded block's endpoints are
 * predicted from the blocks left and above, its indices coded with the
 * indices of the pixels left of and above each one as context. zstd sees
 * only bytes; this sees that the endpoints of neighbouring blocks and the
 * indices of neighbouring pixels go together, which is where a DXT1
 * image's redundancy is.
 *
 * The range coder is LZMA's: 12-bit probabilities that adapt by 1/16 of
 * the distance at each bit, carries propagated through a cached byte.
 * Every value decodes to something (fields wrap modulo their width), so a
 * damaged body gives wrong pixels, never a fault; the chunk's checksum
 * says it is damaged.
 */
#include <stdlib.h>
#include <string.h>
#include "trace/trace_internal.h"

#define PROB_BITS 12
#define PROB_ONE (1u << PROB_BITS)
#define ADAPT 4
#define TOP (1u << 24)

/* ---- the range coder ---- */

struct rc_enc {
	struct buf *out;
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t pending; /* bytes held back for a carry: cache and 0xff bytes */
	int err;
};

static void enc_shift(struct rc_enc *e)
{
	if ((uint32_t)e->low < 0xff000000u || (e->low >> 32) != 0) {
		uint8_t carry = (uint8_t)(e->low >> 32), b = e->cache;
		do {
			uint8_t o = (uint8_t)(b + carry);
			if (buf_put(e->out, &o, 1))
				e->err = 1;
			b = 0xff;
		} while (--e->pending);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->pending++;
	e->low = (e->low & 0x00ffffffu) << 8;
}

static inline void enc_bit(struct rc_enc *e, uint16_t *p, unsigned bit)
{
	uint32_t bound = (e->range >> PROB_BITS) * *p;
	if (!bit) {
		e->range = bound;
		*p = (uint16_t)(*p + ((PROB_ONE - *p) >> ADAPT));
	} else {
		e->low += bound;
		e->range -= bound;
		*p = (uint16_t)(*p - (*p >> ADAPT));
	}
	while (e->range < TOP) {
		e->range <<= 8;
		enc_shift(e);
	}
}

static void enc_init(struct rc_enc *e, struct buf *out)
{
	*e = (struct rc_enc){ out, 0, 0xffffffffu, 0, 1, 0 };
}

static int enc_finish(struct rc_enc *e)
{
	for (int i = 0; i < 5; i++)
		enc_shift(e);
	return e->err ? PROFEV_E_NOMEM : 0;
}

struct rc_dec {
	const uint8_t *p, *end;
	uint32_t range, code;
	size_t over; /* bytes read past the end (as zeros) */
};

static inline uint8_t dec_byte(struct rc_dec *d)
{
	if (d->p < d->end)
		return *d->p++;
	d->over++;
	return 0;
}

static void dec_init(struct rc_dec *d, const uint8_t *p, size_t len)
{
	*d = (struct rc_dec){ p, p + len, 0xffffffffu, 0, 0 };
	for (int i = 0; i < 5; i++)
		d->code = d->code << 8 | dec_byte(d);
}

static inline unsigned dec_bit(struct rc_dec *d, uint16_t *p)
{
	uint32_t bound = (d->range >> PROB_BITS) * *p;
	unsigned bit;
	if (d->code < bound) {
		d->range = bound;
		*p = (uint16_t)(*p + ((PROB_ONE - *p) >> ADAPT));
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		*p = (uint16_t)(*p - (*p >> ADAPT));
		bit = 1;
	}
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = d->code << 8 | dec_byte(d);
	}
	return bit;
}

/* ---- the model ---- */

/* A signed residual of a field of up to 6 bits: zero?, sign, then the
 * magnitude's bit length in unary and its lower bits. */
struct sint {
	uint16_t zero, sign, len[6], low[6][6];
};

#define ACT 4  /* activity classes of an endpoint's neighbourhood */
#define IDX_CTX 25 /* (left index or none) x (upper index or none) */

struct model {
	uint16_t same[3], flat[3], two[3];
	struct sint c0[3][ACT], d[3][ACT];
	uint16_t idx[IDX_CTX][3], idx2[IDX_CTX];
};

static void model_init(struct model *m)
{
	uint16_t *p = (uint16_t *)(void *)m;
	for (size_t i = 0; i < sizeof *m / sizeof *p; i++)
		p[i] = PROB_ONE / 2;
}

/* Coder and decoder share the model's walk through one function each per
 * symbol kind, written twice (put and get) beside each other. */

static void put_sint(struct rc_enc *e, struct sint *s, int v)
{
	enc_bit(e, &s->zero, v != 0);
	if (!v)
		return;
	enc_bit(e, &s->sign, v < 0);
	unsigned a = (unsigned)(v < 0 ? -v : v), n = 0; /* 1..32 */
	while (a >> (n + 1))
		n++;
	for (unsigned i = 0; i < n; i++)
		enc_bit(e, &s->len[i], 1);
	if (n < 5)
		enc_bit(e, &s->len[n], 0);
	for (unsigned i = n; i-- > 0;)
		enc_bit(e, &s->low[n][i], a >> i & 1);
}

static int get_sint(struct rc_dec *d, struct sint *s)
{
	if (!dec_bit(d, &s->zero))
		return 0;
	int neg = (int)dec_bit(d, &s->sign);
	unsigned n = 0;
	while (n < 5 && dec_bit(d, &s->len[n]))
		n++;
	unsigned a = 1;
	for (unsigned i = n; i-- > 0;)
		a = a << 1 | dec_bit(d, &s->low[n][i]);
	return neg ? -(int)a : (int)a;
}

static const unsigned field_bits[3] = { 5, 6, 5 };

/* RGB565 into fields and back. */
static inline void fields(unsigned c, int f[3])
{
	f[0] = (int)(c >> 11);
	f[1] = (int)(c >> 5 & 63);
	f[2] = (int)(c & 31);
}

static inline unsigned unfields(const int f[3])
{
	return (unsigned)f[0] << 11 | (unsigned)f[1] << 5 | (unsigned)f[2];
}

/* v wrapped into the signed range of a field of `bits` bits. */
static inline int wrap(int v, unsigned bits)
{
	int m = 1 << bits, h = m >> 1;
	v &= m - 1;
	return v >= h ? v - m : v;
}

static inline int med(int l, int u, int ul)
{
	int mx = l > u ? l : u, mn = l < u ? l : u, g = l + u - ul;
	return g > mx ? mx : g < mn ? mn : g;
}

static inline int act_class(int a)
{
	return a == 0 ? 0 : a <= 2 ? 1 : a <= 5 ? 2 : 3;
}

/* What a block's neighbours say about it: per channel, the predicted
 * color0 and difference color0 - color1, with their activity classes. */
struct pred {
	int c0[3], d[3], a0[3], ad[3];
};

/* Per block of the image being coded: its fields (for the neighbours). */
struct bfields {
	int8_t c0[3], d[3];
};

static void predict(const struct bfields *bf, uint32_t bw, uint32_t bx, uint32_t by,
		    struct pred *p)
{
	static const struct bfields none = { { 16, 32, 16 }, { 0, 0, 0 } };
	const struct bfields *l = bx ? &bf[-1] : by ? &bf[-(ptrdiff_t)bw] : &none;
	const struct bfields *u = by ? &bf[-(ptrdiff_t)bw] : l;
	const struct bfields *ul = bx && by ? &bf[-(ptrdiff_t)bw - 1] : u;
	for (int k = 0; k < 3; k++) {
		p->c0[k] = med(l->c0[k], u->c0[k], ul->c0[k]);
		int g = k == 1 ? 1 : 0; /* green has a bit more */
		p->a0[k] = act_class((abs(l->c0[k] - ul->c0[k]) + abs(u->c0[k] - ul->c0[k])) >> g);
		p->d[k] = (l->d[k] + u->d[k] + 1) >> 1;
		p->ad[k] = act_class(abs(l->d[k] - u->d[k]) >> g);
	}
}

enum { B_CODED, B_FLAT, B_SAME, B_TWO };

/* Every index 0 or 1: a two-color block, one bit per pixel. */
static inline int two_color(uint32_t ix)
{
	return (ix & 0xaaaaaaaau) == 0;
}

static inline uint32_t block_idx(const uint8_t *b)
{
	return b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
}

/* Index context of pixel (x, y) of block bi: the left and upper pixels'
 * indices, 4 where that pixel is outside the image or in a flat block. */
static inline unsigned idx_ctx(const uint32_t *ix, const uint8_t *kind, uint32_t bw, size_t bi,
			       uint32_t bx, uint32_t by, unsigned x, unsigned y, uint32_t self)
{
	unsigned l = 4, u = 4;
	if (x)
		l = self >> (2 * (4 * y + x - 1)) & 3;
	else if (bx && kind[bi - 1] != B_FLAT)
		l = ix[bi - 1] >> (2 * (4 * y + 3)) & 3;
	if (y)
		u = self >> (2 * (4 * (y - 1) + x)) & 3;
	else if (by && kind[bi - bw] != B_FLAT)
		u = ix[bi - bw] >> (2 * (12 + x)) & 3;
	return l * 5 + u;
}

struct scratch {
	struct bfields *bf;
	uint32_t *ix;
	uint8_t *kind;
};

static int scratch_get(struct buf *s, size_t nb, struct scratch *sc)
{
	size_t need = nb * (sizeof(struct bfields) + sizeof(uint32_t) + 1) + 16;
	buf_reset(s);
	if (buf_reserve(s, need))
		return PROFEV_E_NOMEM;
	sc->ix = (uint32_t *)(void *)s->data;
	sc->bf = (struct bfields *)(void *)(sc->ix + nb);
	sc->kind = (uint8_t *)(sc->bf + nb);
	return 0;
}

static inline unsigned ctx3(const uint8_t *kind, uint32_t bw, size_t bi, uint32_t bx, uint32_t by,
			    int k)
{
	return (bx && kind[bi - 1] == k) + (by && kind[bi - bw] == k);
}

int image_rc_encode(const uint8_t *blocks, const uint8_t *ref, uint32_t bw, uint32_t bh,
		    struct buf *scratch, struct buf *out)
{
	size_t nb = (size_t)bw * bh;
	struct scratch sc;
	struct model m;
	struct rc_enc e;
	if (scratch_get(scratch, nb, &sc))
		return PROFEV_E_NOMEM;
	model_init(&m);
	enc_init(&e, out);
	for (uint32_t by = 0, bi = 0; by < bh; by++)
		for (uint32_t bx = 0; bx < bw; bx++, bi++) {
			const uint8_t *b = blocks + 8 * (size_t)bi;
			unsigned c0 = b[0] | (unsigned)b[1] << 8, c1 = b[2] | (unsigned)b[3] << 8;
			uint32_t ix = block_idx(b);
			int f0[3], f1[3];
			fields(c0, f0);
			fields(c1, f1);
			for (int k = 0; k < 3; k++) {
				sc.bf[bi].c0[k] = (int8_t)f0[k];
				sc.bf[bi].d[k] = (int8_t)(f0[k] - f1[k]);
			}
			sc.ix[bi] = ix;
			if (ref) {
				int same = memcmp(b, ref + 8 * (size_t)bi, 8) == 0;
				enc_bit(&e, &m.same[ctx3(sc.kind, bw, bi, bx, by, B_SAME)], (unsigned)same);
				if (same) {
					sc.kind[bi] = B_SAME;
					continue;
				}
			}
			int flat = c0 == c1 && ix == 0;
			enc_bit(&e, &m.flat[ctx3(sc.kind, bw, bi, bx, by, B_FLAT)], (unsigned)flat);
			sc.kind[bi] = flat ? B_FLAT : B_CODED;
			struct pred p;
			predict(&sc.bf[bi], bw, bx, by, &p);
			int r0 = 0;
			for (int k = 0; k < 3; k++) {
				int r = wrap(f0[k] - p.c0[k], field_bits[k]);
				int v = k == 0 ? r : wrap(r - (k == 1 ? 2 * r0 : r0), field_bits[k]);
				if (k == 0)
					r0 = r;
				put_sint(&e, &m.c0[k][p.a0[k]], v);
			}
			if (flat)
				continue;
			int q0 = 0;
			for (int k = 0; k < 3; k++) {
				int r = wrap(f0[k] - f1[k] - p.d[k], field_bits[k]);
				int v = k == 0 ? r : wrap(r - (k == 1 ? 2 * q0 : q0), field_bits[k]);
				if (k == 0)
					q0 = r;
				put_sint(&e, &m.d[k][p.ad[k]], v);
			}
			int two = two_color(ix);
			enc_bit(&e, &m.two[ctx3(sc.kind, bw, bi, bx, by, B_TWO)], (unsigned)two);
			if (two)
				sc.kind[bi] = B_TWO;
			for (unsigned y = 0; y < 4; y++)
				for (unsigned x = 0; x < 4; x++) {
					unsigned s = ix >> (2 * (4 * y + x)) & 3;
					unsigned cx = idx_ctx(sc.ix, sc.kind, bw, bi, bx, by, x, y, ix);
					if (two) {
						enc_bit(&e, &m.idx2[cx], s);
						continue;
					}
					uint16_t *t = m.idx[cx];
					enc_bit(&e, &t[0], s >> 1);
					enc_bit(&e, &t[1 + (s >> 1)], s & 1);
				}
		}
	return enc_finish(&e);
}

int image_rc_decode(const uint8_t *data, size_t len, const uint8_t *ref, uint32_t bw, uint32_t bh,
		    struct buf *scratch, uint8_t *blocks)
{
	size_t nb = (size_t)bw * bh;
	struct scratch sc;
	struct model m;
	struct rc_dec d;
	if (scratch_get(scratch, nb, &sc))
		return PROFEV_E_NOMEM;
	model_init(&m);
	dec_init(&d, data, len);
	for (uint32_t by = 0, bi = 0; by < bh; by++)
		for (uint32_t bx = 0; bx < bw; bx++, bi++) {
			uint8_t *b = blocks + 8 * (size_t)bi;
			if (ref && dec_bit(&d, &m.same[ctx3(sc.kind, bw, bi, bx, by, B_SAME)])) {
				memcpy(b, ref + 8 * (size_t)bi, 8);
				int f0[3], f1[3];
				fields(b[0] | (unsigned)b[1] << 8, f0);
				fields(b[2] | (unsigned)b[3] << 8, f1);
				for (int k = 0; k < 3; k++) {
					sc.bf[bi].c0[k] = (int8_t)f0[k];
					sc.bf[bi].d[k] = (int8_t)(f0[k] - f1[k]);
				}
				sc.ix[bi] = block_idx(b);
				sc.kind[bi] = B_SAME;
				continue;
			}
			int flat = (int)dec_bit(&d, &m.flat[ctx3(sc.kind, bw, bi, bx, by, B_FLAT)]);
			sc.kind[bi] = flat ? B_FLAT : B_CODED;
			struct pred p;
			predict(&sc.bf[bi], bw, bx, by, &p);
			int f0[3], f1[3], r0 = 0;
			for (int k = 0; k < 3; k++) {
				int v = get_sint(&d, &m.c0[k][p.a0[k]]);
				int r = k == 0 ? v : wrap(v + (k == 1 ? 2 * r0 : r0), field_bits[k]);
				if (k == 0)
					r0 = wrap(r, field_bits[0]);
				f0[k] = (p.c0[k] + r) & ((1 << field_bits[k]) - 1);
			}
			uint32_t ix = 0;
			if (flat) {
				memcpy(f1, f0, sizeof f1);
			} else {
				int q0 = 0;
				for (int k = 0; k < 3; k++) {
					int v = get_sint(&d, &m.d[k][p.ad[k]]);
					int r = k == 0 ? v : wrap(v + (k == 1 ? 2 * q0 : q0), field_bits[k]);
					if (k == 0)
						q0 = wrap(r, field_bits[0]);
					f1[k] = (f0[k] - r - p.d[k]) & ((1 << field_bits[k]) - 1);
				}
				int two = (int)dec_bit(&d, &m.two[ctx3(sc.kind, bw, bi, bx, by, B_TWO)]);
				if (two)
					sc.kind[bi] = B_TWO;
				for (unsigned y = 0; y < 4; y++)
					for (unsigned x = 0; x < 4; x++) {
						unsigned cx = idx_ctx(sc.ix, sc.kind, bw, bi, bx, by, x, y, ix), s;
						if (two) {
							s = dec_bit(&d, &m.idx2[cx]);
						} else {
							uint16_t *t = m.idx[cx];
							unsigned hi = dec_bit(&d, &t[0]);
							s = hi << 1 | dec_bit(&d, &t[1 + hi]);
						}
						ix |= (uint32_t)s << (2 * (4 * y + x));
					}
			}
			for (int k = 0; k < 3; k++) {
				sc.bf[bi].c0[k] = (int8_t)f0[k];
				sc.bf[bi].d[k] = (int8_t)(f0[k] - f1[k]);
			}
			sc.ix[bi] = ix;
			unsigned c0 = unfields(f0), c1 = unfields(f1);
			b[0] = (uint8_t)c0;
			b[1] = (uint8_t)(c0 >> 8);
			b[2] = (uint8_t)c1;
			b[3] = (uint8_t)(c1 >> 8);
			b[4] = (uint8_t)ix;
			b[5] = (uint8_t)(ix >> 8);
			b[6] = (uint8_t)(ix >> 16);
			b[7] = (uint8_t)(ix >> 24);
		}
	/* The encoder's flush writes 4 bytes beyond what the decoder needs. */
	return d.over > 4 ? PROFEV_E_CORRUPT : 0;
}
