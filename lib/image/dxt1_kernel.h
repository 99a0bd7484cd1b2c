/*
 * The SIMD DXT1 kernel, written once for every vector width. The file that
 * includes it defines V and VF (the integer and the float vector type),
 * F(op) (_mm_op, _mm256_op or _mm512_op), FS(op) (the si128/si256/si512
 * forms), NL (128-bit lanes per vector: 1, 2 or 4), LANES(...) (a constant
 * list repeated once per lane) or CONST8(...) and CMPEQ16(a, b) where the
 * _mm_ forms' shapes do not exist (512 bits), LOAD(p), STORE4(out, v) (2 *
 * NL blocks of 8 bytes from a vector whose lane l holds blocks l and NL +
 * l), the names SETUP_A, SETUP_B and PIXELS of the stages, and DXT1_VNNI
 * where AVX-512 VNNI's vpdpbusd is to take the projection.
 *
 * A strip is 8 * NL neighbouring blocks (32 * NL pixels, 4 rows). Each
 * 128-bit lane takes 8 of them: vector j of a row holds blocks NL * j + l
 * in its lanes l. The per-block set-up (inset box, RGB565 endpoints, axis
 * weights, index offset and scale) runs on 8 blocks per lane at once in
 * 16-bit lanes, one channel per vector, and gives per lane exactly what
 * block_setup() in
 * dxt1_setup.h gives per block; then each block's pixels are projected on
 * its axis, a row of a block per lane. No step crosses a 128-bit lane but
 * the final store's, so both widths compute the same bytes.
 */

/* A byte constant repeated in every lane, a comparison's result as a
 * vector: AVX-512's 512-bit forms differ (dxt1_avx512.c defines them). */
#ifndef CONST8
#define CONST8(...) F(setr_epi8)(LANES(__VA_ARGS__))
#endif
#ifndef CMPEQ16
#define CMPEQ16(a, b) F(cmpeq_epi16)(a, b)
#endif

/* Minimum (or maximum) over the 4 pixels of each of 4 blocks: m[j] holds
 * block j's per-column extremes, the result block j's in dword j. */
#define REDUCE4(op, m)                                                              \
	({                                                                          \
		V a_ = F(op)(F(unpacklo_epi32)((m)[0], (m)[1]), F(unpackhi_epi32)((m)[0], (m)[1])); \
		V b_ = F(op)(F(unpacklo_epi32)((m)[2], (m)[3]), F(unpackhi_epi32)((m)[2], (m)[3])); \
		F(op)(F(unpacklo_epi64)(a_, b_), F(unpackhi_epi64)(a_, b_));        \
	})

/* Bytes R, G, B of blocks 0-3 (x0) and 4-7 (x1) to 16-bit lanes, one
 * channel per vector, block i in lane i. */
static inline void soa(V x0, V x1, V *r, V *g, V *b)
{
	const V zero = FS(setzero)(), s = CONST8(SOA1);
	V a = F(shuffle_epi8)(x0, s), c = F(shuffle_epi8)(x1, s);
	V u = F(unpacklo_epi32)(a, c), v = F(unpackhi_epi32)(a, c);
	*r = F(unpacklo_epi8)(u, zero);
	*g = F(unpackhi_epi8)(u, zero);
	*b = F(unpacklo_epi8)(v, zero);
}

static inline V expand(V q, short mul, int shift)
{
	return F(srli_epi16)(F(mullo_epi16)(q, F(set1_epi16)(mul)), shift);
}

static inline V pack565(V r, V g, V b)
{
	return FS(or)(FS(or)(F(slli_epi16)(r, 11), F(slli_epi16)(g, 5)), b);
}

static inline V dot3(V w0, V w1, V w2, V e0, V e1, V e2)
{
	return F(add_epi16)(F(add_epi16)(F(mullo_epi16)(w0, e0), F(mullo_epi16)(w1, e1)),
			    F(mullo_epi16)(w2, e2));
}

/* (2 * 3 * 2^16 + d) / (2 * d) per dword, d in 1..2^15: the float
 * quotient's integer part is the integer one (dxt1_setup.h). */
static inline V quot(V d)
{
	VF n = F(cvtepi32_ps)(F(add_epi32)(d, F(set1_epi32)(2 * DXT1_SCALE_NUM)));
	return F(cvttps_epi32)(F(div_ps)(n, F(cvtepi32_ps)(F(add_epi32)(d, d))));
}

/* The two big stages stay functions of their own: inlined into
 * rows_simd(), they spill so much that the whole runs 25% slower (AVX2,
 * measured on the 320x180 pictures). */
#define NOINLINE static __attribute__((noinline))

/* Block j's weights (bytes R, G, B, 0) in every dword of its lane. */
#define WEIGHTS(j) F(shuffle_epi32)((j) < 4 ? wa : wb, ((j) & 3) * 0x55)
/* Lane word j of t in every word. */
#define BCAST(t, j) F(shuffle_epi8)((t), F(set1_epi16)((short)(0x0100 + 0x0202 * (j))))

/* A strip's set-up: per lane, blocks 0-3 and 4-7 of it. */
struct setup {
	V wa, wb;     /* weights, bytes R, G, B, 0 per dword */
	V off, scale; /* 16-bit, block i in word i */
#ifdef DXT1_VNNI
	V offb;
#endif
	V ca, cb;     /* endpoints words color0 | color1 << 16 */
};

/* Its first half's results: weights, axis, first endpoint, flat blocks
 * (16-bit, one channel per vector). */
struct half {
	V wr, wg, wb, ar, ag, ab, er, eg, eb, flat;
};

/* The inset box of blocks 0-3 at p, as bytes R, G, B, A per dword. */
static inline void box4(const uint8_t *p, ptrdiff_t stride, V *hi, V *lo)
{
	V mn[4], mx[4];
	/* Row pointers once: every load is then a pointer plus a constant. */
	const uint8_t *p1 = p + stride, *p2 = p + 2 * stride, *p3 = p1 + 2 * stride;
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		const int o = j * 16 * NL;
		V r0 = LOAD(p + o), r1 = LOAD(p1 + o), r2 = LOAD(p2 + o), r3 = LOAD(p3 + o);
		mn[j] = F(min_epu8)(F(min_epu8)(r0, r1), F(min_epu8)(r2, r3));
		mx[j] = F(max_epu8)(F(max_epu8)(r0, r1), F(max_epu8)(r2, r3));
	}
	V a = REDUCE4(min_epu8, mn), b = REDUCE4(max_epu8, mx);
	V ins = FS(and)(F(srli_epi16)(F(sub_epi8)(b, a), 4), F(set1_epi8)(15));
	*hi = F(sub_epi8)(b, ins);
	*lo = F(add_epi8)(a, ins);
}

/* The set-up in two halves, each a long chain of dependent steps, so
 * that rows_simd() can run them for different strips beside a third
 * strip's pixels. The first: the box, the endpoints, the weights. */
NOINLINE void SETUP_A(const uint8_t *p, ptrdiff_t stride, struct half *h, struct setup *st)
{
	V hi[2], lo[2];
	box4(p, stride, &hi[0], &lo[0]);
	box4(p + 64 * NL, stride, &hi[1], &lo[1]);
	V hr, hg, hb, lr, lg, lb;
	soa(hi[0], hi[1], &hr, &hg, &hb);
	soa(lo[0], lo[1], &lr, &lg, &lb);

	/* RGB565 endpoints (q), their 8-bit expansions (e), the words. */
	const V k5 = F(set1_epi16)(Q5), k6 = F(set1_epi16)(Q6);
	V qhr = F(mulhrs_epi16)(hr, k5), qhg = F(mulhrs_epi16)(hg, k6), qhb = F(mulhrs_epi16)(hb, k5);
	V qlr = F(mulhrs_epi16)(lr, k5), qlg = F(mulhrs_epi16)(lg, k6), qlb = F(mulhrs_epi16)(lb, k5);
	V c0 = pack565(qhr, qhg, qhb), c1 = pack565(qlr, qlg, qlb);
	V flat = CMPEQ16(c0, c1);
	V ehr = expand(qhr, X5, 2), ehg = expand(qhg, X6, 4), ehb = expand(qhb, X5, 2);
	V elr = expand(qlr, X5, 2), elg = expand(qlg, X6, 4), elb = expand(qlb, X5, 2);

	/* Axis weights: the endpoints' difference a times 2^(4 - e), e the top
	 * bit of a0 | a1 | a2 (from two nibble tables of 2^(7 - e)), as
	 * (a << 5) * (2^(7 - e) << 8) >> 16. A flat block gets 0. */
	V ar = F(sub_epi16)(ehr, elr), ag = F(sub_epi16)(ehg, elg), ab = F(sub_epi16)(ehb, elb);
	V m = FS(or)(FS(or)(ar, ag), ab);
	V sc = F(min_epu8)(F(shuffle_epi8)(CONST8(TOP_HI1), F(srli_epi16)(m, 4)),
			   F(shuffle_epi8)(CONST8(TOP_LO1), FS(and)(m, F(set1_epi16)(15))));
	sc = F(slli_epi16)(sc, 8);
	V wr = F(mulhi_epu16)(F(slli_epi16)(ar, 5), sc);
	V wg = F(mulhi_epu16)(F(slli_epi16)(ag, 5), sc);
	V wb = F(mulhi_epu16)(F(slli_epi16)(ab, 5), sc);
	*h = (struct half){ wr, wg, wb, ar, ag, ab, ehr, ehg, ehb, flat };
	st->ca = F(unpacklo_epi16)(c0, c1);
	st->cb = F(unpackhi_epi16)(c0, c1);
}

/* The second: the index's offset and scale, the weights as bytes. */
static inline void SETUP_B(const struct half *h, struct setup *st)
{
	const V zero = FS(setzero)();
	const V wr = h->wr, wg = h->wg, wb = h->wb, ar = h->ar, ag = h->ag, ab = h->ab;
	const V ehr = h->er, ehg = h->eg, ehb = h->eb, flat = h->flat;
	/* The index's offset d0 + d / 6 and scale round(3 * 2^16 / d), d0 the
	 * first endpoint's dot product and d = w . a (dxt1_setup.h). A flat
	 * block's scale is 0, which puts every pixel at color0 (index 0). */
	V dd = dot3(wr, wg, wb, ar, ag, ab);
	V off = F(add_epi16)(dot3(wr, wg, wb, ehr, ehg, ehb), F(mulhi_epu16)(dd, F(set1_epi16)(10923)));
	dd = F(max_epi16)(dd, F(set1_epi16)(1)); /* no division by 0 */
	V scale = FS(andnot)(flat, F(packs_epi32)(quot(F(unpacklo_epi16)(dd, zero)), quot(F(unpackhi_epi16)(dd, zero))));

	/* Weights as bytes R, G, B, 0: blocks 0-3 in wa's dwords, 4-7 in wb's. */
	V x = F(packus_epi16)(wr, wb), y = F(packus_epi16)(wg, zero);
	V xl = F(unpacklo_epi8)(x, y), xh = F(unpackhi_epi8)(x, y);
#ifdef DXT1_VNNI
	/* Negated weights and the offset as dwords: vpdpbusd gives off - dot. */
	st->wa = F(sub_epi8)(zero, F(unpacklo_epi16)(xl, xh));
	st->wb = F(sub_epi8)(zero, F(unpackhi_epi16)(xl, xh));
	st->off = F(unpacklo_epi16)(off, zero);
	st->offb = F(unpackhi_epi16)(off, zero);
#else
	st->wa = F(unpacklo_epi16)(xl, xh);
	st->wb = F(unpackhi_epi16)(xl, xh);
	st->off = off;
#endif
	st->scale = scale;
}

/* The strip's pixels, given its set-up: its 8 * NL blocks at out. */
NOINLINE void PIXELS(const uint8_t *p, ptrdiff_t stride, const struct setup *st, uint8_t *out)
{
	const V wa = st->wa, wb = st->wb, off = st->off, scale = st->scale;
#ifdef DXT1_VNNI
	const V offb = st->offb;
#endif

	/* Per pixel: its dot product, its place r on the ramp, its index; per
	 * row the four 2-bit indices, per block its 4 rows. */
	const V codes = CONST8(CODES1);
	const V pack = F(set1_epi32)(0x40100401);
	V idx[8];
	const uint8_t *q0 = p, *q1 = p + stride, *q2 = p + 2 * stride, *q3 = q1 + 2 * stride;
	/* (Written out for each j: the shuffles take immediates.) */
#ifdef DXT1_VNNI
	/* vpdpbusd: off - dot a dword a pixel, from the offset and the negated
	 * weights; the indices times 1, 4, 16, 64 summed a dword a row; the
	 * rows' dwords to words to bytes. */
#define PROJECT(j)                                                                           \
	V o = F(shuffle_epi32)((j) < 4 ? off : offb, ((j) & 3) * 0x55), s_ = BCAST(scale, j); \
	V p0 = F(dpbusd_epi32)(o, LOAD(q0 + (j) * 16 * NL), w);                              \
	V p1 = F(dpbusd_epi32)(o, LOAD(q1 + (j) * 16 * NL), w);                              \
	V p2 = F(dpbusd_epi32)(o, LOAD(q2 + (j) * 16 * NL), w);                              \
	V p3 = F(dpbusd_epi32)(o, LOAD(q3 + (j) * 16 * NL), w);                              \
	V r0 = F(mulhi_epi16)(F(packs_epi32)(p0, p1), s_);                                   \
	V r1 = F(mulhi_epi16)(F(packs_epi32)(p2, p3), s_);
#define PACK(k) F(dpbusd_epi32)(FS(setzero)(), (k), pack)
#define ROWS8(a, b, c, d) F(packus_epi16)(F(packus_epi32)(a, b), F(packus_epi32)(c, d))
#else
	/* pmaddubsw: two words a pixel, summed in pairs; the indices times 1,
	 * 4, 16, 64 summed in pairs (bytes); those words to bytes, summed in
	 * pairs again, then to bytes. */
	const V ones8 = F(set1_epi8)(1);
#define PROJECT(j)                                                                           \
	V p0 = F(maddubs_epi16)(LOAD(q0 + (j) * 16 * NL), w);                                \
	V p1 = F(maddubs_epi16)(LOAD(q1 + (j) * 16 * NL), w);                                \
	V p2 = F(maddubs_epi16)(LOAD(q2 + (j) * 16 * NL), w);                                \
	V p3 = F(maddubs_epi16)(LOAD(q3 + (j) * 16 * NL), w);                                \
	V o = BCAST(off, j), s_ = BCAST(scale, j);                                           \
	V r0 = F(mulhi_epi16)(F(sub_epi16)(o, F(hadd_epi16)(p0, p1)), s_);                   \
	V r1 = F(mulhi_epi16)(F(sub_epi16)(o, F(hadd_epi16)(p2, p3)), s_);
#define PACK(k) F(maddubs_epi16)((k), pack)
#define ROWS4(a, b) F(maddubs_epi16)(F(packus_epi16)(a, b), ones8)
#define ROWS8(a, b, c, d) F(packus_epi16)(ROWS4(a, b), ROWS4(c, d))
#endif
#define ONE(j)                                                                 \
	do {                                                                   \
		V w = WEIGHTS(j);                                              \
		PROJECT(j)                                                     \
		idx[j] = PACK(F(shuffle_epi8)(codes, F(packs_epi16)(r0, r1))); \
	} while (0)
	ONE(0);
	ONE(1);
	ONE(2);
	ONE(3);
	ONE(4);
	ONE(5);
	ONE(6);
	ONE(7);
#undef ONE
#undef PROJECT
	V ia = ROWS8(idx[0], idx[1], idx[2], idx[3]);
	V ib = ROWS8(idx[4], idx[5], idx[6], idx[7]);
#undef PACK
#undef ROWS4
#undef ROWS8
	V ca = st->ca, cb = st->cb;
	STORE4(out, F(unpacklo_epi32)(ca, ia));
	STORE4(out + 16 * NL, F(unpackhi_epi32)(ca, ia));
	STORE4(out + 32 * NL, F(unpacklo_epi32)(cb, ib));
	STORE4(out + 48 * NL, F(unpackhi_epi32)(cb, ib));
}

/*
 * Blocks of rows [0, height). The picture's whole strips, k = 0, 1, ...,
 * in one software pipeline: the first half of strip k + 2's set-up, the
 * second of k + 1's, then strip k's pixels, so the core has independent
 * work beside each chain. Then the rest of each row through a strip-wide
 * copy (the padding's blocks are not written out). Block row y starts at
 * out + 8 * pitch * y (pitch >= width / 4: dxt1_avx512.c writes columns).
 */
static void rows_simd(const uint8_t *rgba, ptrdiff_t stride, uint32_t width, uint32_t height,
		      uint8_t *out, uint32_t pitch)
{
	enum { UNIT = 8 * NL };
	uint32_t nb = width / 4, rows = height / 4, full = nb / UNIT, rest = nb % UNIT;
	uint32_t n = full * rows;
	uint8_t *const first = out;
	/* Strip k's set-up in st[2], k - 1's in st[1], k - 2's in st[0]. */
	struct setup ring[3], *st[3] = { &ring[0], &ring[1], &ring[2] };
	struct half h;
	const uint8_t *at = rgba, *src = rgba, *prev[2] = { NULL, NULL };
	uint32_t i = 0, done = 0;
	for (uint32_t k = 0; k < n + 2; k++) {
		if (k >= 1 && k <= n)
			SETUP_B(&h, st[1]);
		if (k < n)
			SETUP_A(src, stride, &h, st[2]);
		if (k >= 2) {
			PIXELS(prev[0], stride, st[0], out);
			out += 8 * UNIT;
			if (++done == full) {
				done = 0;
				out += 8 * (pitch - full * UNIT);
			}
		}
		prev[0] = prev[1];
		prev[1] = src;
		if (k + 1 < n) {
			if (++i == full) {
				i = 0;
				at += 4 * stride;
				src = at;
			} else {
				src += 16 * UNIT;
			}
		}
		struct setup *t = st[0];
		st[0] = st[1];
		st[1] = st[2];
		st[2] = t;
	}
	for (uint32_t by = 0; rest && by < rows; by++) {
		const uint8_t *row = rgba + (ptrdiff_t)by * 4 * stride + full * 16 * UNIT;
		uint8_t px[4][16 * UNIT], blocks[8 * UNIT];
		struct half hh;
		struct setup s1;
		memset(px, 0, sizeof px);
		for (int y = 0; y < 4; y++)
			memcpy(px[y], row + y * stride, 16 * rest);
		SETUP_A(px[0], 16 * UNIT, &hh, &s1);
		SETUP_B(&hh, &s1);
		PIXELS(px[0], 16 * UNIT, &s1, blocks);
		memcpy(first + (size_t)by * pitch * 8 + full * 8 * UNIT, blocks, 8 * rest);
	}
}
