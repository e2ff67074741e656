/* trace_builder.h: test-side encoder for hand-built traces. It writes records with the
 * format's own ckt_put_* helpers in the row layout of format version 1 (which readers keep
 * reading; version 2 moves the same records' fields into columns and is tested through the
 * real encoder in test_record.c), compresses each flushed frame with zstd and keeps the file
 * image in memory (frame end offsets included, so tests can cut it anywhere); tb_run replays a
 * file through the real reader modules. Test code only: aborts on allocation failure.
 */
#ifndef CKT_TRACE_BUILDER_H
#define CKT_TRACE_BUILDER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "ckt_format.h"
#include "decode.h"
#include "replay.h"

#define TB_MAX_FRAMES 256
#define TB_VERSION 1 /* the row layout */

struct tb {
	uint8_t *out;           /* the file image: concatenated zstd frames */
	size_t out_len, out_cap;
	uint8_t *buf;           /* records of the frame being built */
	size_t len, cap;
	size_t frame_end[TB_MAX_FRAMES]; /* out_len after each flushed frame */
	size_t nframes;
	uint64_t base_ts, prev_ts, prev_addr;
	uint64_t seq;
};

static inline void tb_grow(uint8_t **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	*p = realloc(*p, c);
	if (!*p)
		abort();
	*cap = c;
}

static inline void tb_init(struct tb *b)
{
	memset(b, 0, sizeof(*b));
}

static inline void tb_release(struct tb *b)
{
	free(b->out);
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

static inline void tb_raw(struct tb *b, const void *p, size_t n)
{
	tb_grow(&b->buf, &b->cap, b->len + n);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

static inline void tb_u8(struct tb *b, uint8_t v)
{
	tb_raw(b, &v, 1);
}

static inline void tb_uv(struct tb *b, uint64_t v)
{
	uint8_t tmp[CKT_MAX_VARINT];
	tb_raw(b, tmp, (size_t)(ckt_put_uv(tmp, v) - tmp));
}

static inline void tb_sv(struct tb *b, int64_t v)
{
	uint8_t tmp[CKT_MAX_VARINT];
	tb_raw(b, tmp, (size_t)(ckt_put_sv(tmp, v) - tmp));
}

static inline void tb_str(struct tb *b, const char *s, size_t n)
{
	tb_uv(b, n);
	tb_raw(b, s, n);
}

/* Appends already-compressed (or deliberately broken) bytes straight to the file image. */
static inline void tb_out_raw(struct tb *b, const void *p, size_t n)
{
	tb_grow(&b->out, &b->out_cap, b->out_len + n);
	memcpy(b->out + b->out_len, p, n);
	b->out_len += n;
}

/* Compresses the records built so far into one zstd frame (even when there are none). */
static inline void tb_flush(struct tb *b)
{
	size_t bound = ZSTD_compressBound(b->len);
	tb_grow(&b->out, &b->out_cap, b->out_len + bound);
	size_t n = ZSTD_compress(b->out + b->out_len, bound, b->buf, b->len, 3);
	if (ZSTD_isError(n))
		abort();
	b->out_len += n;
	if (b->nframes < TB_MAX_FRAMES)
		b->frame_end[b->nframes++] = b->out_len;
	b->len = 0;
}

/* The records built so far as one frame of the column layout (format version 2 and later),
 * for records that are all in the ROW stream (no ALLOC, FREE or REALLOC): the other streams
 * empty. */
static inline void tb_flush_columns(struct tb *b)
{
	uint8_t *rows = b->buf;
	size_t n = b->len;
	b->buf = NULL;
	b->len = b->cap = 0;
	tb_uv(b, CKT_NSTREAMS);
	tb_uv(b, n);
	for (int i = 1; i < CKT_NSTREAMS; i++)
		tb_uv(b, 0);
	tb_raw(b, rows, n);
	free(rows);
	tb_flush(b);
}

/* Header frame: magic, version, then NULL-terminated {key, value, ...} pairs. */
static inline void tb_header_kv(struct tb *b, unsigned version, const char *const *kv)
{
	tb_raw(b, CKT_MAGIC, CKT_MAGIC_LEN);
	tb_u8(b, (uint8_t)(version & 0xff));
	tb_u8(b, (uint8_t)(version >> 8));
	for (; kv && kv[0] && kv[1]; kv += 2) {
		tb_str(b, kv[0], strlen(kv[0]));
		tb_str(b, kv[1], strlen(kv[1]));
	}
	tb_uv(b, 0);
	tb_flush(b);
}

static inline void tb_header(struct tb *b)
{
	static const char *const kv[] = {
		"tracer_version", CKT_TRACER_VERSION, "pid", "4242", "ppid", "1", "exe", "/usr/bin/prog",
		"argv", "prog\n--size\n10", "start_wall_ns", "1700000000000000000", "hostname", "testhost",
		"page_size", "4096", "clock", "monotonic", "setting.CUZKTRACE_OUTPUT", "/tmp/x.ckt", NULL,
	};
	tb_header_kv(b, TB_VERSION, kv);
}

/* FRAME record starting a data frame; resets the delta state like the writer does. */
static inline void tb_frame(struct tb *b, uint64_t base_ts)
{
	tb_u8(b, CKT_TAG_FRAME);
	tb_uv(b, b->seq++);
	tb_uv(b, base_ts);
	b->base_ts = b->prev_ts = base_ts;
	b->prev_addr = 0;
}

static inline void tb_thread(struct tb *b, uint64_t tid);

/* The usual start: a header, a frame at time 0, and thread tid's group. */
/* a trace whose first data frame (number 0) is open, no thread chosen yet */
static inline void tb_begin(struct tb *b)
{
	tb_init(b);
	tb_header(b);
	tb_frame(b, 0);
}

static inline void tb_start(struct tb *b, uint64_t tid)
{
	tb_begin(b);
	tb_thread(b, tid);
}

static inline void tb_thread(struct tb *b, uint64_t tid)
{
	tb_u8(b, CKT_TAG_THREAD);
	tb_uv(b, tid);
	b->prev_ts = b->base_ts;
	b->prev_addr = 0;
}

static inline void tb_dts(struct tb *b, uint64_t ts)
{
	tb_sv(b, (int64_t)(ts - b->prev_ts));
	b->prev_ts = ts;
}

static inline void tb_daddr(struct tb *b, uint64_t addr)
{
	tb_sv(b, (int64_t)(addr - b->prev_addr));
	b->prev_addr = addr;
}

static inline void tb_alloc_ex(struct tb *b, uint64_t ts, uint64_t addr, uint64_t size, uint64_t fn,
			       uint64_t stack, uint64_t phase)
{
	tb_u8(b, CKT_TAG_ALLOC);
	tb_dts(b, ts);
	tb_uv(b, fn);
	tb_daddr(b, addr);
	tb_uv(b, size);
	tb_uv(b, stack);
	tb_uv(b, phase);
}

static inline void tb_alloc(struct tb *b, uint64_t ts, uint64_t addr, uint64_t size)
{
	tb_alloc_ex(b, ts, addr, size, CKT_FN_MALLOC, 0, 0);
}

static inline void tb_free(struct tb *b, uint64_t ts, uint64_t addr)
{
	tb_u8(b, CKT_TAG_FREE);
	tb_dts(b, ts);
	tb_daddr(b, addr);
}

static inline void tb_realloc_ex(struct tb *b, uint64_t ts, uint64_t old_addr, uint64_t dafter,
				 uint64_t new_addr, uint64_t size, uint64_t stack)
{
	tb_u8(b, CKT_TAG_REALLOC);
	tb_dts(b, ts);
	tb_daddr(b, old_addr);
	tb_uv(b, dafter);
	tb_daddr(b, new_addr);
	tb_uv(b, size);
	tb_uv(b, stack);
	tb_uv(b, 0);
}

static inline void tb_realloc(struct tb *b, uint64_t ts, uint64_t old_addr, uint64_t dafter,
			      uint64_t new_addr, uint64_t size)
{
	tb_realloc_ex(b, ts, old_addr, dafter, new_addr, size, 0);
}

/* a read-write mapping with no stack, made in phase id phase */
static inline void tb_mmap_ex(struct tb *b, uint64_t ts, uint64_t addr, uint64_t len, uint64_t flags,
			      uint64_t phase)
{
	tb_u8(b, CKT_TAG_MMAP);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, len);
	tb_uv(b, flags);
	tb_uv(b, 3);
	tb_uv(b, 0);
	tb_uv(b, phase);
}

static inline void tb_mmap(struct tb *b, uint64_t ts, uint64_t addr, uint64_t len, uint64_t flags)
{
	tb_mmap_ex(b, ts, addr, len, flags, 0);
}

static inline void tb_munmap(struct tb *b, uint64_t ts, uint64_t addr, uint64_t len)
{
	tb_u8(b, CKT_TAG_MUNMAP);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, len);
}

static inline void tb_mremap(struct tb *b, uint64_t ts, uint64_t old_addr, uint64_t old_len,
			     uint64_t new_addr, uint64_t new_len)
{
	tb_u8(b, CKT_TAG_MREMAP);
	tb_dts(b, ts);
	tb_daddr(b, old_addr);
	tb_uv(b, old_len);
	tb_daddr(b, new_addr);
	tb_uv(b, new_len);
}

/* MPROTECT (format version 5, read in a trace of any version) */
static inline void tb_mprotect(struct tb *b, uint64_t ts, uint64_t addr, uint64_t len, uint64_t prot)
{
	tb_u8(b, CKT_TAG_MPROTECT);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, len);
	tb_uv(b, prot);
}

static inline void tb_rss(struct tb *b, uint64_t ts, uint64_t rss)
{
	tb_u8(b, CKT_TAG_RSS);
	tb_dts(b, ts);
	tb_uv(b, rss);
}

static inline void tb_rss_detail(struct tb *b, uint64_t ts, uint64_t hwm, uint64_t anon,
				 uint64_t file, uint64_t shmem)
{
	tb_u8(b, CKT_TAG_RSS_DETAIL);
	tb_dts(b, ts);
	tb_uv(b, hwm);
	tb_uv(b, anon);
	tb_uv(b, file);
	tb_uv(b, shmem);
}

static inline void tb_sync(struct tb *b, uint64_t horizon)
{
	tb_u8(b, CKT_TAG_SYNC);
	tb_uv(b, horizon);
}

static inline void tb_lost(struct tb *b, uint64_t count)
{
	tb_u8(b, CKT_TAG_LOST);
	tb_uv(b, count);
}

static inline void tb_waited(struct tb *b, uint64_t ns, uint64_t waits)
{
	tb_u8(b, CKT_TAG_WAITED);
	tb_uv(b, ns);
	tb_uv(b, waits);
}

static inline void tb_limit(struct tb *b, uint64_t ts, uint64_t kind)
{
	tb_u8(b, CKT_TAG_LIMIT);
	tb_uv(b, ts);
	tb_uv(b, kind);
}

static inline void tb_thread_name(struct tb *b, uint64_t ts, uint64_t tid, const char *name)
{
	tb_u8(b, CKT_TAG_THREAD_NAME);
	tb_uv(b, ts);
	tb_uv(b, tid);
	tb_str(b, name, strlen(name));
}

static inline void tb_phase_def(struct tb *b, uint64_t id, const char *name)
{
	tb_u8(b, CKT_TAG_PHASE_DEF);
	tb_uv(b, id);
	tb_str(b, name, strlen(name));
}

/* PHASE in the current thread group; op is CKT_PHASE_* */
static inline void tb_phase(struct tb *b, uint64_t ts, uint64_t op, uint64_t id)
{
	tb_u8(b, CKT_TAG_PHASE);
	tb_dts(b, ts);
	tb_uv(b, op);
	tb_uv(b, id);
}

static inline void tb_note(struct tb *b, uint64_t ts, uint64_t phase, const char *text)
{
	tb_u8(b, CKT_TAG_NOTE);
	tb_uv(b, ts);
	tb_uv(b, phase);
	tb_str(b, text, strlen(text));
}

/* STACK: frames[] are absolute return addresses; written as deltas from the previous one. */
static inline void tb_stack(struct tb *b, uint64_t id, const uint64_t *frames, size_t n)
{
	uint64_t prev = 0;
	tb_u8(b, CKT_TAG_STACK);
	tb_uv(b, id);
	tb_uv(b, n);
	for (size_t i = 0; i < n; i++) {
		tb_sv(b, (int64_t)(frames[i] - prev));
		prev = frames[i];
	}
}

static inline void tb_module(struct tb *b, uint64_t base, uint64_t lo, uint64_t hi, const char *path,
			     const char *build_id)
{
	tb_u8(b, CKT_TAG_MODULE);
	tb_uv(b, base);
	tb_uv(b, lo);
	tb_uv(b, hi);
	tb_str(b, path, strlen(path));
	tb_str(b, build_id, strlen(build_id));
}

static inline void tb_cuda_device(struct tb *b, uint64_t ordinal, const char *uuid, const char *name)
{
	tb_u8(b, CKT_TAG_CUDA_DEVICE);
	tb_uv(b, ordinal);
	tb_str(b, uuid, strlen(uuid));
	tb_str(b, name, strlen(name));
}

static inline void tb_cuda_alloc(struct tb *b, uint64_t ts, uint64_t kind, uint64_t device,
				 uint64_t addr, uint64_t size, uint64_t stack, uint64_t phase, uint64_t fn)
{
	tb_u8(b, CKT_TAG_CUDA_ALLOC);
	tb_dts(b, ts);
	tb_uv(b, kind);
	tb_uv(b, device);
	tb_daddr(b, addr);
	tb_uv(b, size);
	tb_uv(b, stack);
	tb_uv(b, phase);
	tb_uv(b, fn);
}

static inline void tb_cuda_free(struct tb *b, uint64_t ts, uint64_t kind, uint64_t addr, uint64_t fn)
{
	tb_u8(b, CKT_TAG_CUDA_FREE);
	tb_dts(b, ts);
	tb_uv(b, kind);
	tb_daddr(b, addr);
	tb_uv(b, fn);
}

static inline void tb_thread_exit(struct tb *b, uint64_t ts, uint64_t tid)
{
	tb_u8(b, CKT_TAG_THREAD_EXIT);
	tb_uv(b, ts);
	tb_uv(b, tid);
}

static inline void tb_agg(struct tb *b, uint64_t ts, int64_t bytes, int64_t blocks)
{
	tb_u8(b, CKT_TAG_AGG);
	tb_dts(b, ts);
	tb_sv(b, bytes);
	tb_sv(b, blocks);
}

/* A trace of the default mode (CUZKTRACE_SAMPLE=524288, pages of 4096 bytes) of format
 * version `version`, its first data frame (number 0) open, no thread chosen yet */
static inline void tb_begin_sampled(struct tb *b, unsigned version)
{
	static const char *const kv[] = { "page_size", "4096", "setting.CUZKTRACE_SAMPLE", "524288", NULL };
	tb_init(b);
	tb_header_kv(b, version, kv);
	tb_frame(b, 0);
}

/* AGG of format version 6, with its since */
static inline void tb_agg6(struct tb *b, uint64_t ts, int64_t bytes, int64_t blocks, uint64_t since)
{
	tb_agg(b, ts, bytes, blocks);
	tb_uv(b, since);
}

static inline void tb_cuda_map(struct tb *b, uint64_t ts, uint64_t addr, uint64_t size, uint64_t handle)
{
	tb_u8(b, CKT_TAG_CUDA_MAP);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, size);
	tb_uv(b, handle);
}

static inline void tb_cuda_unmap(struct tb *b, uint64_t ts, uint64_t addr, uint64_t size)
{
	tb_u8(b, CKT_TAG_CUDA_UNMAP);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, size);
}

static inline void tb_end(struct tb *b, uint64_t ts, uint64_t reason, uint64_t events, uint64_t lost)
{
	tb_u8(b, CKT_TAG_END);
	tb_uv(b, ts);
	tb_uv(b, reason);
	tb_uv(b, events);
	tb_uv(b, lost);
}

/* Writes n bytes to a fresh temporary file; path receives its name (caller unlinks). */
static inline void tb_write_bytes(const void *p, size_t n, char path[64])
{
	snprintf(path, 64, "/tmp/ckt_test_XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		abort();
	const uint8_t *q = p;
	while (n) {
		ssize_t w = write(fd, q, n);
		if (w <= 0)
			abort();
		q += w;
		n -= (size_t)w;
	}
	close(fd);
}

static inline void tb_write(const struct tb *b, char path[64])
{
	tb_write_bytes(b->out, b->out_len, path);
}

/* Replays path with the real decoder and replay; *st gets the final stats. Returns the first
 * error (err says which) or 0. A sink may be given for the RSS samples. */
static inline int tb_run_how(const char *path, struct ckt_replay_stats *st, struct ckt_error *err,
			     ckt_replay_sample_fn *sink, void *ctx, bool stack_small)
{
	struct ckt_decoder *d = NULL;
	if (st)
		memset(st, 0, sizeof(*st));
	int rc = ckt_decode_open(path, &d, err);
	if (rc < 0)
		return rc;
	struct ckt_replay *r = ckt_replay_new(ckt_decode_header(d)->page_size);
	if (!r)
		abort();
	ckt_replay_set_sample_sink(r, sink, ctx);
	ckt_replay_set_stack_small(r, stack_small);
	/* the default mode's rate, as cuzktrace-report takes it from the header */
	const char *rate = ckt_decode_header_get(d, "setting.CUZKTRACE_SAMPLE");
	if (rate)
		ckt_replay_set_sample(r, strtoull(rate, NULL, 10));
	rc = ckt_replay_run(d, r, err);
	if (st)
		*st = *ckt_replay_stats(r);
	ckt_replay_free(r);
	ckt_decode_close(d);
	return rc;
}

static inline int tb_run_sink(const char *path, struct ckt_replay_stats *st, struct ckt_error *err,
			      ckt_replay_sample_fn *sink, void *ctx)
{
	return tb_run_how(path, st, err, sink, ctx, false);
}

static inline int tb_run(const char *path, struct ckt_replay_stats *st, struct ckt_error *err)
{
	return tb_run_sink(path, st, err, NULL, NULL);
}

/* Builds-to-file-and-replays in one step for the common case. */
static inline int tb_run_tb(const struct tb *b, struct ckt_replay_stats *st, struct ckt_error *err)
{
	char path[64];
	tb_write(b, path);
	int rc = tb_run(path, st, err);
	unlink(path);
	return rc;
}

#endif
