/*
 * defs.c - the definitions queue: strings, call sites, categories, modules
 * and the image slots, as pipe messages that the flush thread sends before
 * any record that uses them. Whoever defines something queues it before it
 * publishes the id or range that records carry; the flush thread takes the
 * queue after it read the rings' positions (flush_pass), so a record never
 * reaches pfrec before its definition.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "client.h"

static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_string_id;

/* A spin lock, so that a crash handler can take the queue too. */
static int defs_busy;
static unsigned char *defs_buf;
static size_t defs_len, defs_cap;
/* On demand: every definition since profev_listen(), for each attach, and
 * whether the queue is read (a recording is under way). Under defs_busy. */
static unsigned char *log_buf;
static size_t log_len, log_cap;
static int queue_live = 1;

static int spin_lock(int *l, int bounded)
{
	for (unsigned i = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE); i++) {
		if (bounded && i > 1000000)
			return -1;
		if (i > 64)
			sched_yield();
	}
	return 0;
}

static void spin_unlock(int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* Room for need more bytes after *len in *buf; 0 or -1. Under defs_busy. */
static int room(unsigned char **buf, size_t *len, size_t *cap, size_t need)
{
	if (*len + need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 4096;
	while (c < *len + need)
		c *= 2;
	unsigned char *nb = realloc(*buf, c);
	if (!nb)
		return -1;
	*buf = nb;
	*cap = c;
	return 0;
}

static void put(unsigned char *p, const struct pfw_header *h, const void *a, uint32_t alen,
		const void *b, uint32_t blen, const void *c, uint32_t clen)
{
	memcpy(p, h, sizeof *h);
	p += sizeof *h;
	if (alen)
		memcpy(p, a, alen);
	if (blen)
		memcpy(p + alen, b, blen);
	if (clen)
		memcpy(p + alen + blen, c, clen);
}

void defs_append(uint16_t type, const void *a, uint32_t alen, const void *b, uint32_t blen,
		 const void *c, uint32_t clen)
{
	defs_append_tid(type, 0, a, alen, b, blen, c, clen);
}

size_t defs_pending(void)
{
	return __atomic_load_n(&defs_len, __ATOMIC_RELAXED);
}

static void append(int logged, uint16_t type, uint32_t tid, const void *a, uint32_t alen,
		   const void *b, uint32_t blen, const void *c, uint32_t clen)
{
	struct pfw_header h = { PFW_MAGIC, type, 0, alen + blen + clen, tid };
	size_t need = sizeof h + h.len;
	in_client++;
	spin_lock(&defs_busy, 0);
	if (logged && ATOMIC_LOAD(&cl.ondemand) && room(&log_buf, &log_len, &log_cap, need) == 0) {
		put(log_buf + log_len, &h, a, alen, b, blen, c, clen);
		log_len += need;
	}
	if (queue_live && room(&defs_buf, &defs_len, &defs_cap, need) == 0) {
		put(defs_buf + defs_len, &h, a, alen, b, blen, c, clen);
		__atomic_store_n(&defs_len, defs_len + need, __ATOMIC_RELAXED); /* defs_pending() */
	}
	spin_unlock(&defs_busy);
	in_client--;
}

void defs_append_tid(uint16_t type, uint32_t tid, const void *a, uint32_t alen, const void *b,
		     uint32_t blen, const void *c, uint32_t clen)
{
	append(1, type, tid, a, alen, b, blen, c, clen);
}

void defs_send(uint16_t type, uint32_t tid, const void *a, uint32_t alen, const void *b, uint32_t blen)
{
	append(0, type, tid, a, alen, b, blen, NULL, 0);
}

void defs_replay(void)
{
	in_client++;
	spin_lock(&defs_busy, 0);
	__atomic_store_n(&defs_len, 0, __ATOMIC_RELAXED);
	if (room(&defs_buf, &defs_len, &defs_cap, log_len) == 0) {
		if (log_len)
			memcpy(defs_buf, log_buf, log_len);
		__atomic_store_n(&defs_len, log_len, __ATOMIC_RELAXED);
	}
	queue_live = 1;
	spin_unlock(&defs_busy);
	in_client--;
}

void defs_quiet(void)
{
	spin_lock(&defs_busy, 0);
	queue_live = 0;
	__atomic_store_n(&defs_len, 0, __ATOMIC_RELAXED);
	spin_unlock(&defs_busy);
}

size_t defs_take(unsigned char **buf, size_t *cap, int from_signal)
{
	if (spin_lock(&defs_busy, from_signal) < 0)
		return 0;
	unsigned char *b = defs_buf;
	size_t c = defs_cap, n = defs_len;
	defs_buf = *buf;
	defs_cap = *cap;
	__atomic_store_n(&defs_len, 0, __ATOMIC_RELAXED);
	*buf = b;
	*cap = c;
	spin_unlock(&defs_busy);
	return n;
}

/* A SITE message: the name with the macro's function, file and line. */
static void site_define(const struct profev_site *s, uint32_t id)
{
	char where[2 * 4096];
	size_t fl = s->function ? strnlen(s->function, 4095) : 0;
	size_t il = s->file ? strnlen(s->file, 4095) : 0;
	memcpy(where, s->function, fl);
	memcpy(where + fl, s->file, il);
	struct pfw_site ps = { id, s->category->index, s->line, (uint32_t)strlen(s->name),
			       (uint32_t)fl, (uint32_t)il };
	defs_append(PFW_SITE, &ps, sizeof ps, s->name, ps.name_len, where, (uint32_t)(fl + il));
}

uint32_t defs_string(const char *s, uint32_t len)
{
	pthread_mutex_lock(&site_lock);
	uint32_t id = ++next_string_id;
	defs_append(PFW_STRING, &id, sizeof id, s, len, NULL, 0);
	pthread_mutex_unlock(&site_lock);
	return id;
}

uint64_t profev__site_register(struct profev_site *s)
{
	/* On demand, sites get their ids while nobody is attached too: the
	 * log keeps them for every attach. */
	if (!ATOMIC_LOAD(&cl.active) && !ATOMIC_LOAD(&cl.ondemand))
		return 0;
	pthread_mutex_lock(&site_lock);
	uint64_t w = s->word;
	if (!w) {
		uint32_t id = ++next_string_id;
		/* Queued before the word is published: whoever sees the word
		 * writes records that the flush thread finds after the string. */
		if (s->type & PROFEV__SITE_LOC)
			site_define(s, id);
		else
			defs_append(PFW_STRING, &id, sizeof id, s->name, (uint32_t)strlen(s->name), NULL, 0);
		w = pfw_word(s->type & 0xffff, s->category->index, id);
		ATOMIC_STORE(&s->word, w);
	}
	pthread_mutex_unlock(&site_lock);
	return w;
}
