/* Storing chunks: compress a body when that makes it smaller, checksum it,
 * write it with its header. Either on the caller's thread, or on a thread
 * of the store's own, so that a recorder's thread only codes events while
 * zstd and write(2) run beside it (formats/trace.md, "Chunk").
 *
 * With a thread, a chunk's body is copied into one of two job buffers and
 * written later, in order; the caller waits only when both are taken. An
 * error is sticky and reported by the next call. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zstd.h>
#include "common/write_all.h"
#include "trace/trace_internal.h"

#define JOBS 2

struct job {
	unsigned kind;
	uint32_t count;  /* entries; for raw bytes, the chunks they hold */
	int compress; /* compress if that helps */
	int raw;      /* body is written as it is (file header, copied chunk) */
	struct buf body;
};

struct chunk_store {
	int fd, level;
	chunk_sink_fn sink;      /* instead of fd when set */
	void *sink_ctx;
	ZSTD_CCtx *cctx;
	struct buf zbuf;

	/* Under lock when there is a thread: what was written, and how it
	 * failed. Without one, only the caller touches them. */
	uint64_t bytes, chunks;
	struct profev_error err;

	int threaded, stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;     /* a job was queued, done, or stop was set */
	struct job jobs[JOBS];
	unsigned head, queued;   /* the oldest job, and how many wait */
};

static int write_all(int fd, struct iovec *iov, int n, uint64_t *bytes, struct profev_error *err)
{
	if (writev_all(fd, iov, n, bytes) == 0)
		return 0;
	err_set_at(err, PROFEV_E_IO, *bytes, "write failed at offset %llu: %s",
		   (unsigned long long)*bytes, strerror(errno));
	return PROFEV_E_IO;
}

/* Compress, checksum and write one chunk; bytes counts what was written.
 * 0, or <0 with *err. */
static int store(struct chunk_store *s, const struct job *j, const void *body, size_t len,
		 uint64_t *bytes, struct profev_error *err)
{
	if (j->raw) {
		struct iovec iov = { (void *)body, len };
		if (s->sink) {
			int rc = s->sink(s->sink_ctx, 0, &iov, 1, err);
			if (!rc)
				*bytes += len;
			return rc;
		}
		return write_all(s->fd, &iov, 1, bytes, err);
	}
	struct chunk_header h = { (uint16_t)j->kind, 0, j->count, (uint32_t)len, (uint32_t)len, 0 };
	const void *stored = body;
	if (j->compress && len > 32 && s->level) {
		size_t bound = ZSTD_compressBound(len);
		buf_reset(&s->zbuf);
		if (buf_reserve(&s->zbuf, bound)) {
			err_set_at(err, PROFEV_E_NOMEM, *bytes, "out of memory");
			return PROFEV_E_NOMEM;
		}
		size_t z = ZSTD_compressCCtx(s->cctx, s->zbuf.data, bound, body, len, s->level);
		if (ZSTD_isError(z)) {
			err_set_at(err, PROFEV_E_IO, *bytes, "%s", ZSTD_getErrorName(z));
			return PROFEV_E_IO;
		}
		if (z < len) {
			stored = s->zbuf.data;
			h.stored_size = (uint32_t)z;
			h.flags |= CHUNK_F_ZSTD;
		}
	}
	if (h.stored_size > CHUNK_MAX_STORED) {
		err_set_at(err, PROFEV_E_LIMIT, *bytes, "chunk body over the format's limit");
		return PROFEV_E_LIMIT;
	}
	uint8_t hdr[CHUNK_HEADER_SIZE];
	chunk_header_encode(hdr, &h);
	h.checksum = chunk_checksum(hdr, stored, h.stored_size);
	chunk_header_encode(hdr, &h);
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)stored, h.stored_size } };
	if (s->sink) {
		int rc = s->sink(s->sink_ctx, j->kind, iov, h.stored_size ? 2 : 1, err);
		if (!rc)
			*bytes += sizeof(hdr) + h.stored_size;
		return rc;
	}
	return write_all(s->fd, iov, h.stored_size ? 2 : 1, bytes, err);
}

static void *store_thread(void *arg)
{
	struct chunk_store *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->queued && !s->stop)
			pthread_cond_wait(&s->cond, &s->lock);
		if (!s->queued)
			break;
		struct job *j = &s->jobs[s->head];
		uint64_t bytes = s->bytes;
		int failed = s->err.code != PROFEV_OK;
		pthread_mutex_unlock(&s->lock);
		/* The job's slot and the zstd context are the thread's alone
		 * until the job is done; after an error nothing is written. */
		struct profev_error e;
		err_clear(&e);
		int rc = failed ? 0 : store(s, j, j->body.data, j->body.len, &bytes, &e);
		pthread_mutex_lock(&s->lock);
		if (!failed) {
			s->bytes = bytes;
			s->chunks += rc ? 0 : j->raw ? j->count : 1;
			if (rc)
				s->err = e;
		}
		s->head = (s->head + 1) % JOBS;
		s->queued--;
		pthread_cond_broadcast(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct chunk_store *chunk_store_new(int fd, int level, int threaded)
{
	struct chunk_store *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = fd;
	s->level = level;
	if (!(s->cctx = ZSTD_createCCtx())) {
		free(s);
		return NULL;
	}
	if (threaded) {
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->cond, NULL);
		/* Signals stay with the caller's threads. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		int rc = pthread_create(&s->thread, NULL, store_thread, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc != 0) {
			pthread_mutex_destroy(&s->lock);
			pthread_cond_destroy(&s->cond);
		}
		s->threaded = rc == 0;
	}
	return s;
}

struct chunk_store *chunk_store_new_sink(chunk_sink_fn sink, void *ctx, int level)
{
	struct chunk_store *s = chunk_store_new(-1, level, 0);
	if (s) {
		s->sink = sink;
		s->sink_ctx = ctx;
	}
	return s;
}

/* The sticky error; under lock when threaded. */
static int sticky(struct chunk_store *s, struct profev_error *err)
{
	if (s->err.code == PROFEV_OK)
		return 0;
	*err = s->err;
	return s->err.code;
}

/* Stores the chunk now, or queues a copy for the store's thread. */
static int store_or_queue(struct chunk_store *s, const struct job *j, const void *body, size_t len,
			  struct profev_error *err)
{
	if (!s->threaded) {
		int rc = sticky(s, err);
		if (rc)
			return rc;
		if ((rc = store(s, j, body, len, &s->bytes, &s->err)))
			return sticky(s, err);
		s->chunks += j->raw ? j->count : 1;
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	while (s->queued == JOBS && s->err.code == PROFEV_OK)
		pthread_cond_wait(&s->cond, &s->lock);
	int rc = sticky(s, err);
	if (!rc) {
		struct job *q = &s->jobs[(s->head + s->queued) % JOBS];
		buf_reset(&q->body);
		if (buf_put(&q->body, body, len)) {
			err_set(err, PROFEV_E_NOMEM, "out of memory");
			rc = PROFEV_E_NOMEM;
		} else {
			q->kind = j->kind;
			q->count = j->count;
			q->compress = j->compress;
			q->raw = j->raw;
			s->queued++;
			pthread_cond_broadcast(&s->cond);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int chunk_store_put(struct chunk_store *s, unsigned kind, uint32_t count, const void *body,
		    size_t len, int compress, struct profev_error *err)
{
	struct job j = { kind, count, compress, 0, { 0 } };
	return store_or_queue(s, &j, body, len, err);
}

int chunk_store_raw(struct chunk_store *s, const void *bytes, size_t len, uint32_t chunks,
		    struct profev_error *err)
{
	struct job j = { 0, chunks, 0, 1, { 0 } };
	return store_or_queue(s, &j, bytes, len, err);
}

int chunk_store_drain(struct chunk_store *s, struct profev_error *err)
{
	if (!s->threaded)
		return sticky(s, err);
	pthread_mutex_lock(&s->lock);
	while (s->queued)
		pthread_cond_wait(&s->cond, &s->lock);
	int rc = sticky(s, err);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void chunk_store_counts(struct chunk_store *s, uint64_t *bytes, uint64_t *chunks)
{
	if (s->threaded)
		pthread_mutex_lock(&s->lock);
	*bytes = s->bytes;
	*chunks = s->chunks;
	if (s->threaded)
		pthread_mutex_unlock(&s->lock);
}

void chunk_store_free(struct chunk_store *s)
{
	if (!s)
		return;
	if (s->threaded) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL); /* it writes what was queued first */
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
	}
	for (int i = 0; i < JOBS; i++)
		buf_free(&s->jobs[i].body);
	ZSTD_freeCCtx(s->cctx);
	buf_free(&s->zbuf);
	free(s);
}
