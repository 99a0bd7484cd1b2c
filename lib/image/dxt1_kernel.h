/*
 * The SIMD DXT1 block kernel, written once for both vector widths: the file
 * that includes it defines V (the vector type), F(op) (_mm_op or
 * _mm256_op), FS(op) (the si128/si256 forms), BLOCKS (1 or 2: one block
 * per 128-bit lane), LOAD(p), KERNEL (the function's name) and STORE(out,
 * v) (the 64-bit result of each lane). Every step stays inside its 128-bit
 * lane, so each lane computes exactly what block_setup() and
 * block_scalar() in dxt1.c compute for its block, with no trip through
 * general registers.
 */

static inline void KERNEL(const uint8_t *p, ptrdiff_t stride, uint8_t *out)
{
	const V zero = FS(setzero)();
	V r0 = LOAD(p), r1 = LOAD(p + stride), r2 = LOAD(p + 2 * stride), r3 = LOAD(p + 3 * stride);
	V mn = F(min_epu8)(F(min_epu8)(r0, r1), F(min_epu8)(r2, r3));
	V mx = F(max_epu8)(F(max_epu8)(r0, r1), F(max_epu8)(r2, r3));
	mn = F(min_epu8)(mn, F(shuffle_epi32)(mn, _MM_SHUFFLE(1, 0, 3, 2)));
	mn = F(min_epu8)(mn, F(shuffle_epi32)(mn, _MM_SHUFFLE(2, 3, 0, 1)));
	mx = F(max_epu8)(mx, F(shuffle_epi32)(mx, _MM_SHUFFLE(1, 0, 3, 2)));
	mx = F(max_epu8)(mx, F(shuffle_epi32)(mx, _MM_SHUFFLE(2, 3, 0, 1)));

	/* 16-bit lanes [max RGBA, min RGBA]; then [hi, lo], the inset box. */
	V v = F(unpacklo_epi8)(F(unpacklo_epi32)(mx, mn), zero);
	V diff = F(sub_epi16)(v, F(shuffle_epi32)(v, _MM_SHUFFLE(1, 0, 3, 2)));
	V ins = F(srli_epi16)(F(abs_epi16)(diff), 4);
	V hl = F(sub_epi16)(v, F(sign_epi16)(ins, diff));

	/* RGB565 (q) and its expansion back to 8 bits (e). */
	V q = F(mulhi_epu16)(F(add_epi16)(F(mullo_epi16)(hl, F(setr_epi16)(Q_MUL)), F(setr_epi16)(Q_ADD)),
			     F(setr_epi16)(Q_SHIFT));
	V e = FS(or)(F(mullo_epi16)(q, F(setr_epi16)(E_HI)), F(mulhi_epu16)(q, F(setr_epi16)(E_LO)));
	V cm = F(madd_epi16)(q, F(setr_epi16)(C_PACK));
	cm = F(add_epi32)(cm, F(srli_epi64)(cm, 32));          /* lane 0: color0, lane 2: color1 */
	V colors = F(shuffle_epi8)(cm, F(setr_epi8)(COLORS_BYTES));
	V flat = F(cmpeq_epi32)(cm, F(shuffle_epi32)(cm, _MM_SHUFFLE(2, 2, 2, 2)));

	/* Axis weights: the endpoints' difference times 2^(4 - e), e the top
	 * bit of a0 | a1 | a2, from two nibble tables of 2^(7 - e). */
	V a = F(sub_epi16)(e, FS(srli)(e, 8));
	V mo = FS(or)(a, F(shufflelo_epi16)(a, _MM_SHUFFLE(2, 3, 0, 1)));
	mo = FS(or)(mo, F(shufflelo_epi16)(mo, _MM_SHUFFLE(1, 0, 3, 2)));
	const V nib = F(set1_epi16)(15);
	V sc = F(min_epu8)(F(shuffle_epi8)(F(setr_epi8)(TOP_HI), FS(and)(F(srli_epi16)(mo, 4), nib)),
			   F(shuffle_epi8)(F(setr_epi8)(TOP_LO), FS(and)(mo, nib)));
	sc = F(slli_epi16)(FS(and)(sc, F(set1_epi16)(255)), 5);
	V w16 = F(mulhi_epu16)(F(slli_epi16)(a, 8), sc);

	/* d0, d1: the endpoints' dot products; the three boundaries. */
	V d = F(madd_epi16)(e, F(unpacklo_epi64)(w16, w16));
	d = F(add_epi32)(d, F(srli_epi64)(d, 32));
	V d1 = FS(srli)(d, 8);
	V dd = F(sub_epi32)(d, d1);
	V t = F(add_epi16)(F(shufflelo_epi16)(d1, 0),
			   F(mulhi_epu16)(F(shufflelo_epi16)(dd, 0), F(setr_epi16)(T_FRAC)));
	t = F(sub_epi16)(t, F(set1_epi16)(1));
	V t0 = F(shuffle_epi32)(F(shufflelo_epi16)(t, _MM_SHUFFLE(0, 0, 0, 0)), 0);
	V t1 = F(shuffle_epi32)(F(shufflelo_epi16)(t, _MM_SHUFFLE(1, 1, 1, 1)), 0);
	V t2 = F(shuffle_epi32)(F(shufflelo_epi16)(t, _MM_SHUFFLE(2, 2, 2, 2)), 0);
	V w = F(shuffle_epi32)(F(packus_epi16)(w16, w16), 0);

	/* Per pixel: its dot product, the boundaries it passes, its index. */
	const V ones = F(set1_epi16)(1);
	V p0 = F(madd_epi16)(F(maddubs_epi16)(r0, w), ones);
	V p1 = F(madd_epi16)(F(maddubs_epi16)(r1, w), ones);
	V p2 = F(madd_epi16)(F(maddubs_epi16)(r2, w), ones);
	V p3 = F(madd_epi16)(F(maddubs_epi16)(r3, w), ones);
	V lo = F(packs_epi32)(p0, p1), hi = F(packs_epi32)(p2, p3);
	V sl = F(add_epi16)(F(add_epi16)(F(cmpgt_epi16)(lo, t0), F(cmpgt_epi16)(lo, t1)), F(cmpgt_epi16)(lo, t2));
	V sh = F(add_epi16)(F(add_epi16)(F(cmpgt_epi16)(hi, t0), F(cmpgt_epi16)(hi, t1)), F(cmpgt_epi16)(hi, t2));
	V k = FS(and)(F(packs_epi16)(sl, sh), F(set1_epi8)(15));
	V codes = F(shuffle_epi8)(F(setr_epi8)(CODES), k);
	V idx = F(madd_epi16)(F(maddubs_epi16)(codes, F(set1_epi32)(0x40100401)), ones);
	idx = F(packus_epi16)(F(packus_epi32)(idx, idx), zero);
	idx = FS(andnot)(flat, idx);
	STORE(out, F(unpacklo_epi32)(colors, idx));
}
