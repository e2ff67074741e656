/* test_record.c: the capture library's encoder (preload/record.c) against the reader's decoder
 * (reader/decode.c): every slot type and every side record encoded by the real encoder comes
 * back from a trace file with the same field values, across delta resets at THREAD and FRAME. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ckt.h"
#include "xorshift.h"
#include "trace_builder.h"
#include "enc_frames.h"

/* The trace built so far, written to a file and opened with the real decoder. */
static struct ckt_decoder *open_built(const struct tb *b)
{
	char path[64];
	tb_write_bytes(b->out, b->out_len, path);
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	int rc = ckt_decode_open(path, &d, &err);
	unlink(path);
	if (rc)
		fail_msg("open: %s", err.msg);
	return d;
}

static void next(struct ckt_decoder *d, struct ckt_record *r, enum ckt_tag tag, uint64_t tid)
{
	struct ckt_error err = { 0 };
	int rc = ckt_decode_next(d, r, &err);
	if (rc != 1)
		fail_msg("expected tag 0x%02x, got rc %d: %s", tag, rc, err.msg);
	assert_int_equal(r->tag, tag);
	assert_int_equal(r->tid, tid);
}

static void test_round_trip(void **state)
{
	(void)state;
	static uint8_t buf[1 << 16];
	struct tb b;
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e);
	tb_init(&b);

	static const char *const kv[] = { "pid", "777", "page_size", "4096", "setting.CUZKTRACE_SAMPLE", "0", NULL };
	enc_header(&b, buf, sizeof(buf), kv);

	/* frame 1: two threads, every event kind, addresses and times going both ways */
	uint8_t *p = buf;
	ckt_record_frame(&e, &p, 0, 1000);
	uint64_t big = 0x7f0000000000ull, small = 0x555500001000ull;
	p = ckt_record_thread_name(p, 990, 11, "rayon-synth-3");
	p = ckt_record_phase_def(p, 2, "synthesis");
	p = ckt_record_note(p, 995, 2, "TIMELINE,1,SYNTH_START", 22);
	uint64_t frames[3] = { 0x401000, 0x7f0000001234ull, 0x401000 };
	ckt_record_stack(&p, 5, frames, 3);
	p = ckt_record_module(p, buf + sizeof(buf), 0x7f0000000000ull, 0x7f0000000000ull,
			      0x7f0000200000ull, "/usr/lib/libx.so", "abcdef01");
	ckt_record_thread(&e, &p, 11);
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_CALLOC, 1001, big, 1 << 20, 5, 2));
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, 1002, small, 24, 0, 0));
	/* the hooks' slot packing: the usable excess above the request is not written, nor the
	 * slot-only flag of a request of 2^48 bytes or more */
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC, 1002, small + 4096, 100 | 4ull << 48, 0, 0));
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_SLOT_WIDE, 1002, big + (1ull << 40),
			  1ull << 50, 0, 0));
	enc1(&e, &p, slot(CKT_EV_FREE, 0, 1003, big, 0, 0, 0));
	enc2(&e, &p, slot(CKT_EV_REALLOC, 0, 1004, small, 4096, 5, 2),
	     slot(CKT_EV_EXT, 0, 1010, big + 64, 0, 0, 0));
	enc1(&e, &p, slot(CKT_EV_MMAP, CKT_MAP_ANON | CKT_MAP_FIXED | 3u << 4, 1011, big, 8192, 5, 0));
	enc1(&e, &p, slot(CKT_EV_MUNMAP, 0, 1012, big + 4096, 4096, 0, 0));
	enc1(&e, &p, slot(CKT_EV_MPROTECT, 0, 1012, big, 4096, 0, 0)); /* to PROT_NONE */
	enc1(&e, &p, slot(CKT_EV_MPROTECT, 5, 1013, big, 4096, 0, 0)); /* read + exec */
	enc2(&e, &p, slot(CKT_EV_MREMAP, 0, 1013, big, 4096, 0, 0),
	     slot(CKT_EV_EXT, 0, 1019, small, 65536, 0, 0)); /* the new range 6 ns after */
	enc1(&e, &p, slot(CKT_EV_PHASE, CKT_PHASE_BEGIN, 1014, 2, 0, 0, 0));
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 1015, (uint64_t)-65600, (uint64_t)-3, 0, 0));
	/* a total sent late: since (version 6) in microseconds in the slot, nanoseconds in the
	 * record (the cap, 71 minutes) */
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 1016, 4096, 40, UINT32_MAX, 0));
	ckt_record_thread(&e, &p, 12);
	enc1(&e, &p, slot(CKT_EV_RSS, 0, 999, 0, 123 << 12, 0, 0)); /* earlier than frame base */
	enc2(&e, &p, slot(CKT_EV_RSS_DETAIL, 0, 1020, 9 << 20, 1 << 20, 0, 0),
	     slot(CKT_EV_EXT, 0, 1020, 2 << 20, 4096, 0, 0));
	enc2(&e, &p, slot(CKT_EV_CUDA_ALLOC, CKT_CU_MEM_ALLOC, 1021, 0x7f00deadbe00ull, 3 << 20, 5, 2),
	     slot(CKT_EV_EXT, 0, 0, CKT_CUDA_DEVICE, 1, 0, 0));
	enc1(&e, &p, slot(CKT_EV_CUDA_FREE, CKT_CU_MEM_FREE, 1022, 0x7f00deadbe00ull, CKT_CUDA_DEVICE, 0, 0));
	enc2(&e, &p, slot(CKT_EV_CUDA_MAP, 0, 1023, 0x7f3000000000ull, 2 << 20, 0, 0),
	     slot(CKT_EV_EXT, 0, 0, 0xfeedf00dull, 0, 0, 0));
	enc1(&e, &p, slot(CKT_EV_CUDA_UNMAP, 0, 1024, 0x7f3000000000ull, 4 << 20, 0, 0));
	ckt_record_lost(&p, 7);
	ckt_record_waited(&p, 1234567890123ull, 42);
	ckt_record_limit(&p, 1025, CKT_LIMIT_MODULES);
	ckt_record_sync(&p, 1030);
	ckt_record_end(&p, 1040, CKT_END_EXIT, 17, 7);
	put_frame(&b, &e, buf, (size_t)(p - buf));

	struct ckt_decoder *d = open_built(&b);
	struct ckt_error err = { 0 };
	assert_string_equal(ckt_decode_header_get(d, "pid"), "777");
	assert_string_equal(ckt_decode_header_get(d, "setting.CUZKTRACE_SAMPLE"), "0");

	struct ckt_record r;
	next(d, &r, CKT_TAG_THREAD_NAME, 0);
	assert_int_equal(r.ts, 990);
	assert_int_equal(r.u.thread_name.tid, 11);
	assert_memory_equal(r.u.thread_name.name, "rayon-synth-3", 13);
	next(d, &r, CKT_TAG_PHASE_DEF, 0);
	assert_int_equal(r.u.phase_def.id, 2);
	assert_memory_equal(r.u.phase_def.name, "synthesis", 9);
	next(d, &r, CKT_TAG_NOTE, 0);
	assert_int_equal(r.ts, 995);
	assert_int_equal(r.u.note.phase, 2);
	assert_int_equal(r.u.note.len, 22);
	next(d, &r, CKT_TAG_STACK, 0);
	assert_int_equal(r.u.stack.id, 5);
	assert_int_equal(r.u.stack.nframes, 3);
	const uint8_t *f = r.u.stack.frames;
	uint64_t prev = 0;
	for (int i = 0; i < 3; i++) {
		int64_t dv = 0;
		f = ckt_get_sv(f, r.u.stack.frames + r.u.stack.frames_len, &dv);
		assert_non_null(f);
		prev += (uint64_t)dv;
		assert_int_equal(prev, frames[i]);
	}
	next(d, &r, CKT_TAG_MODULE, 0);
	assert_int_equal(r.u.module.base, 0x7f0000000000ull);
	assert_int_equal(r.u.module.hi, 0x7f0000200000ull);
	assert_memory_equal(r.u.module.path, "/usr/lib/libx.so", 16);
	assert_memory_equal(r.u.module.build_id, "abcdef01", 8);

	next(d, &r, CKT_TAG_ALLOC, 11);
	assert_int_equal(r.ts, 1001);
	assert_int_equal(r.u.alloc.fn, CKT_FN_CALLOC);
	assert_int_equal(r.u.alloc.addr, big);
	assert_int_equal(r.u.alloc.size, 1 << 20);
	assert_int_equal(r.u.alloc.stack, 5);
	assert_int_equal(r.u.alloc.phase, 2);
	next(d, &r, CKT_TAG_ALLOC, 11);
	assert_int_equal(r.u.alloc.fn, CKT_FN_MALLOC | CKT_FN_SAMPLED);
	assert_int_equal(r.u.alloc.addr, small);
	next(d, &r, CKT_TAG_ALLOC, 11);
	assert_int_equal(r.u.alloc.size, 100);
	assert_int_equal(r.u.alloc.addr, small + 4096);
	next(d, &r, CKT_TAG_ALLOC, 11);
	assert_int_equal(r.u.alloc.size, 1ull << 50);
	assert_int_equal(r.u.alloc.fn, CKT_FN_MALLOC);
	assert_int_equal(r.u.alloc.addr, big + (1ull << 40));
	next(d, &r, CKT_TAG_FREE, 11);
	assert_int_equal(r.ts, 1003);
	assert_int_equal(r.u.free.addr, big);
	next(d, &r, CKT_TAG_REALLOC, 11);
	assert_int_equal(r.ts, 1004);
	assert_int_equal(r.u.realloc.old_addr, small);
	assert_int_equal(r.u.realloc.dafter, 6);
	assert_int_equal(r.u.realloc.new_addr, big + 64);
	assert_int_equal(r.u.realloc.size, 4096);
	next(d, &r, CKT_TAG_MMAP, 11);
	assert_int_equal(r.u.mmap.addr, big);
	assert_int_equal(r.u.mmap.len, 8192);
	assert_int_equal(r.u.mmap.flags, CKT_MAP_ANON | CKT_MAP_FIXED);
	assert_int_equal(r.u.mmap.prot, 3);
	assert_int_equal(r.u.mmap.stack, 5);
	next(d, &r, CKT_TAG_MUNMAP, 11);
	assert_int_equal(r.u.munmap.addr, big + 4096);
	assert_int_equal(r.u.munmap.len, 4096);
	next(d, &r, CKT_TAG_MPROTECT, 11);
	assert_int_equal(r.ts, 1012);
	assert_int_equal(r.u.mprotect.addr, big);
	assert_int_equal(r.u.mprotect.len, 4096);
	assert_int_equal(r.u.mprotect.prot, 0);
	next(d, &r, CKT_TAG_MPROTECT, 11);
	assert_int_equal(r.ts, 1013);
	assert_int_equal(r.u.mprotect.prot, 5);
	next(d, &r, CKT_TAG_MREMAP, 11);
	assert_int_equal(r.u.mremap.old_addr, big);
	assert_int_equal(r.u.mremap.old_len, 4096);
	assert_int_equal(r.u.mremap.new_addr, small);
	assert_int_equal(r.u.mremap.new_len, 65536);
	assert_int_equal(r.ts, 1013);
	assert_int_equal(r.u.mremap.dafter, 6); /* format version 3 */
	next(d, &r, CKT_TAG_PHASE, 11);
	assert_int_equal(r.ts, 1014);
	assert_int_equal(r.u.phase.op, CKT_PHASE_BEGIN);
	assert_int_equal(r.u.phase.id, 2);
	next(d, &r, CKT_TAG_AGG, 11);
	assert_int_equal(r.ts, 1015);
	assert_int_equal(r.u.agg.bytes, -65600);
	assert_int_equal(r.u.agg.blocks, -3);
	assert_int_equal(r.u.agg.since, 0);
	next(d, &r, CKT_TAG_AGG, 11);
	assert_int_equal(r.ts, 1016);
	assert_int_equal(r.u.agg.bytes, 4096);
	assert_int_equal(r.u.agg.blocks, 40);
	assert_int_equal(r.u.agg.since, (uint64_t)UINT32_MAX * 1000);

	next(d, &r, CKT_TAG_RSS, 12);
	assert_int_equal(r.ts, 999);
	assert_int_equal(r.u.rss.rss, 123 << 12);
	next(d, &r, CKT_TAG_RSS_DETAIL, 12);
	assert_int_equal(r.u.rss_detail.hwm, 9 << 20);
	assert_int_equal(r.u.rss_detail.anon, 1 << 20);
	assert_int_equal(r.u.rss_detail.file, 2 << 20);
	assert_int_equal(r.u.rss_detail.shmem, 4096);
	next(d, &r, CKT_TAG_CUDA_ALLOC, 12);
	assert_int_equal(r.ts, 1021);
	assert_int_equal(r.u.cuda_alloc.kind, CKT_CUDA_DEVICE);
	assert_int_equal(r.u.cuda_alloc.device, 1);
	assert_int_equal(r.u.cuda_alloc.addr, 0x7f00deadbe00ull);
	assert_int_equal(r.u.cuda_alloc.size, 3 << 20);
	assert_int_equal(r.u.cuda_alloc.fn, CKT_CU_MEM_ALLOC);
	next(d, &r, CKT_TAG_CUDA_FREE, 12);
	assert_int_equal(r.u.cuda_free.addr, 0x7f00deadbe00ull);
	assert_int_equal(r.u.cuda_free.kind, CKT_CUDA_DEVICE);
	next(d, &r, CKT_TAG_CUDA_MAP, 12);
	assert_int_equal(r.ts, 1023);
	assert_int_equal(r.u.cuda_map.addr, 0x7f3000000000ull);
	assert_int_equal(r.u.cuda_map.size, 2 << 20);
	assert_int_equal(r.u.cuda_map.handle, 0xfeedf00dull);
	next(d, &r, CKT_TAG_CUDA_UNMAP, 12);
	assert_int_equal(r.ts, 1024);
	assert_int_equal(r.u.cuda_map.addr, 0x7f3000000000ull);
	assert_int_equal(r.u.cuda_map.size, 4 << 20);
	next(d, &r, CKT_TAG_LOST, 12);
	assert_int_equal(r.u.lost.count, 7);
	next(d, &r, CKT_TAG_WAITED, 12);
	assert_int_equal(r.u.waited.ns, 1234567890123ull);
	assert_int_equal(r.u.waited.waits, 42);
	next(d, &r, CKT_TAG_LIMIT, 12);
	assert_int_equal(r.ts, 1025);
	assert_int_equal(r.u.limit.kind, CKT_LIMIT_MODULES);
	next(d, &r, CKT_TAG_SYNC, 12);
	assert_int_equal(r.ts, 1030);
	next(d, &r, CKT_TAG_END, 12);
	assert_int_equal(r.ts, 1040);
	assert_int_equal(r.u.end.reason, CKT_END_EXIT);
	assert_int_equal(r.u.end.events, 17);
	assert_int_equal(r.u.end.lost, 7);
	assert_int_equal(ckt_decode_next(d, &r, &err), 0);
	assert_false(ckt_decode_truncated(d));
	ckt_decode_close(d);
	tb_release(&b);
	free(cols);
}

/* A slot type the encoder does not know is refused (the writer counts it lost), and writes
 * nothing. */
static void test_unknown_slot(void **state)
{
	(void)state;
	uint8_t buf[64], *p = buf;
	struct ckt_enc e = { 0 };
	struct ckt_slot s = slot(250, 0, 1, 2, 3, 0, 0);
	assert_int_equal(ckt_record_event(&e, &p, &s, NULL), -1);
	assert_ptr_equal(p, buf);
}

/* ---- format version 2: many events through the real encoder's columns and address model ---- */

struct ev {
	uint8_t type, fn;
	uint64_t ts, a, b, after, new_a;
	uint32_t stack;
	uint16_t phase;
	uint64_t tid;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	return xorshift64(&rng_state);
}

/* A glibc-like allocator per thread: a free'd block is handed back for the next request of its
 * size class (hits), fresh blocks come from a bump pointer (misses), some blocks live long and
 * are freed out of order, times move forward by small and huge steps and sometimes go back (a
 * signal handler's event), sizes cross the 2-byte plane escape and the class cap. */
static size_t gen_events(struct ev *ev, size_t n)
{
	uint64_t live[3][64] = { { 0 } }, bump[3] = { 0x555500000000ull, 0x7f1000000000ull,
						       0x7f2000000000ull };
	uint64_t lsize[3][64] = { { 0 } }, lastfree[3][128] = { { 0 } }, ts[3] = { 5000, 5000, 5000 };
	size_t k = 0;
	while (k < n) {
		unsigned t = (unsigned)(rnd() % 3), slot = (unsigned)(rnd() % 64);
		uint64_t r = rnd();
		struct ev *e = &ev[k];
		memset(e, 0, sizeof(*e));
		e->tid = 100 + t;
		uint64_t step = r % 50 == 0 ? 70000 + r % 100000 : r % 300;
		if (r % 997 == 0 && ts[t] > 2000)
			ts[t] -= 1000; /* back in time */
		else
			ts[t] += step;
		e->ts = ts[t];
		/* 2016..2040 crosses the last size class (2025..2031 round up past it) */
		uint64_t size = r % 13 == 0	 ? 70000 + r % 5000000
				: r % 11 == 0 ? 2016 + (r >> 12) % 25
					      : 1 + (r >> 8) % 600;
		unsigned c = ckt_am_class(size);
		if (live[t][slot]) {
			if (r % 17 == 0 && k + 1 < n) { /* realloc */
				e->type = CKT_EV_REALLOC;
				e->a = live[t][slot];
				e->b = size;
				e->after = e->ts + r % 40;
				e->new_a = lastfree[t][c] ? lastfree[t][c] : (bump[t] += 16 * c + 16);
				lastfree[t][c] = 0;
				lastfree[t][ckt_am_class(lsize[t][slot])] = e->a;
				live[t][slot] = e->new_a;
				lsize[t][slot] = size;
				e->stack = (uint32_t)(r >> 40) % 5;
				e->phase = (uint16_t)((r >> 50) % 3);
			} else {
				e->type = CKT_EV_FREE;
				e->a = live[t][slot];
				lastfree[t][ckt_am_class(lsize[t][slot])] = e->a;
				live[t][slot] = 0;
			}
		} else {
			e->type = CKT_EV_ALLOC;
			e->fn = (uint8_t)(r % 5 == 0 ? CKT_FN_CALLOC : CKT_FN_MALLOC);
			e->b = size;
			e->a = lastfree[t][c] && r % 7 ? lastfree[t][c] : (bump[t] += 16 * c + 16);
			if (e->a == lastfree[t][c])
				lastfree[t][c] = 0;
			live[t][slot] = e->a;
			lsize[t][slot] = size;
			e->stack = (uint32_t)(r >> 40) % 5;
			e->phase = (uint16_t)((r >> 50) % 3);
		}
		k++;
	}
	return k;
}

static void test_columns_round_trip(void **state)
{
	(void)state;
	enum { N = 200000 };
	struct ev *ev = calloc(N, sizeof(*ev));
	uint8_t *row = malloc(COL_CAP), *p;
	bool *gstart = calloc(N, sizeof(*gstart)); /* the event starts a thread group */
	assert_non_null(ev);
	assert_non_null(row);
	assert_non_null(gstart);
	size_t n = gen_events(ev, N);
	struct tb b;
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e);
	tb_init(&b);
	tb_header_kv(&b, CKT_FORMAT_VERSION, NULL);

	/* frames of random length; within a frame, runs of one thread's events as the writer
	 * drains (a thread's events keep their order; the test does not need time order) */
	size_t i = 0, frames = 0;
	while (i < n) {
		p = row;
		ckt_record_frame(&e, &p, frames++, ev[i].ts - 100);
		size_t end = i + 1 + rnd() % 20000;
		uint64_t cur = 0;
		for (; i < n && i < end; i++) {
			if (ev[i].tid != cur) {
				ckt_record_thread(&e, &p, ev[i].tid);
				cur = ev[i].tid;
				gstart[i] = true;
			}
			struct ckt_slot s = slot(ev[i].type, ev[i].fn, ev[i].ts, ev[i].a, ev[i].b,
						 ev[i].stack, ev[i].phase);
			struct ckt_slot s2 = slot(CKT_EV_EXT, 0, ev[i].after, ev[i].new_a, 0, 0, 0);
			assert_int_equal(ckt_record_event(&e, &p, &s, &s2), 0);
		}
		ckt_record_sync(&p, ev[i - 1].ts);
		put_frame(&b, &e, row, (size_t)(p - row));
	}

	struct ckt_decoder *d = open_built(&b);
	struct ckt_error err = { 0 };
	struct ckt_record r;
	size_t hits = 0, paired = 0, newest = 0;
	/* the pairing contract (ckt_record's seq and pair), kept apart from the model: every
	 * allocation numbered from 1; a release names the seq of the newest unreleased allocation
	 * of its address in its thread group or 0, and it must name it when that allocation is the
	 * group's newest unreleased one */
	uint64_t seq = 0;
	struct { uint64_t addr, seq; } open[256];
	size_t n_open = 0;
#define RELEASE(a_, got)                                                                       \
	do {                                                                                     \
		size_t j_ = n_open;                                                              \
		while (j_ > 0 && open[j_ - 1].addr != (a_))                                    \
			j_--;                                                                    \
		uint64_t want_ = j_ ? open[j_ - 1].seq : 0;                                      \
		if ((got) != 0)                                                                  \
			assert_int_equal((got), want_);                                          \
		if (want_ && j_ == n_open) {                                                     \
			assert_int_equal((got), want_);                                          \
			newest++;                                                                \
		}                                                                                \
		paired += (got) != 0;                                                            \
		if (j_) {                                                                        \
			memmove(&open[j_ - 1], &open[j_], (n_open - j_) * sizeof(open[0]));      \
			n_open--;                                                                \
		}                                                                                \
	} while (0)
#define ALLOCATED(a_, got)                                                                     \
	do {                                                                                     \
		assert_int_equal((got), ++seq);                                                  \
		assert_true(n_open < sizeof(open) / sizeof(open[0]));                            \
		open[n_open].addr = (a_);                                                      \
		open[n_open++].seq = seq;                                                        \
	} while (0)
	for (size_t k = 0; k < n; k++) {
		int rc = ckt_decode_next(d, &r, &err);
		while (rc == 1 && r.tag == CKT_TAG_SYNC)
			rc = ckt_decode_next(d, &r, &err);
		if (rc != 1)
			fail_msg("event %zu: rc %d: %s", k, rc, err.msg);
		const struct ev *x = &ev[k];
		assert_int_equal(r.tid, x->tid);
		assert_int_equal(r.ts, x->ts);
		if (gstart[k])
			n_open = 0;
		if (x->type == CKT_EV_ALLOC) {
			assert_int_equal(r.tag, CKT_TAG_ALLOC);
			ALLOCATED(x->a, r.u.alloc.seq);
			assert_int_equal(r.u.alloc.addr, x->a);
			assert_int_equal(r.u.alloc.size, x->b);
			assert_int_equal(r.u.alloc.fn, x->fn);
			assert_int_equal(r.u.alloc.stack, x->stack);
			assert_int_equal(r.u.alloc.phase, x->phase);
		} else if (x->type == CKT_EV_FREE) {
			assert_int_equal(r.tag, CKT_TAG_FREE);
			assert_int_equal(r.u.free.addr, x->a);
			RELEASE(x->a, r.u.free.pair);
		} else {
			assert_int_equal(r.tag, CKT_TAG_REALLOC);
			assert_int_equal(r.u.realloc.old_addr, x->a);
			assert_int_equal(r.u.realloc.new_addr, x->new_a);
			assert_int_equal(r.u.realloc.size, x->b);
			assert_int_equal(r.u.realloc.dafter, x->after - x->ts);
			assert_int_equal(r.u.realloc.stack, x->stack);
			assert_int_equal(r.u.realloc.phase, x->phase);
			RELEASE(x->a, r.u.realloc.pair);
			ALLOCATED(x->new_a, r.u.realloc.seq);
		}
		hits++;
	}
#undef RELEASE
#undef ALLOCATED
	assert_int_equal(hits, n);
	/* both cases occur: paired releases, and the newest allocation released */
	assert_true(newest > 0);
	assert_true(paired >= newest);
	print_message("columns round trip: %zu events, %zu releases paired (%zu with the newest)\n",
		      n, paired, newest);
	assert_int_equal(ckt_decode_next(d, &r, &err), 1);
	assert_int_equal(r.tag, CKT_TAG_SYNC);
	assert_int_equal(ckt_decode_next(d, &r, &err), 0);
	assert_true(ckt_decode_truncated(d)); /* no END record: a killed process's trace */
	ckt_decode_close(d);
	tb_release(&b);
	free(cols);
	free(row);
	free(ev);
	free(gstart);
}

/* ---- the replay's pairing fast path against its table path ----
 * The same events as version 1 rows (no address model: every block goes through the replay's
 * live table) and as version 2 columns by the real encoder (blocks the model pairs skip it):
 * every figure must come out the same, per stack and phase too. Three threads in time order,
 * written thread group by thread group per frame (the replay must merge them); most blocks
 * are freed soon by their own thread (paired), some live long, some are freed by another
 * thread, some are reallocated; frames cut groups, so pairs also cross frame ends (unpaired). */
struct key_sum {
	int64_t cur[4][3], at_peak[4][3]; /* by stack 0..3 and phase 0..2 */
	int64_t max[4][3];                /* each key's own highest */
	uint64_t calls;                   /* runs handed over (struct ckt_run) */
	int64_t peak_cur;
	uint64_t heap_epoch;
	const uint64_t *epochs;
};

static void key_bytes(void *ctx, const struct ckt_attr *a, const struct ckt_run *run)
{
	struct key_sum *k = ctx;
	k->calls++;
	if (a->space == CKT_SPACE_HEAP && a->stack < 4 && a->phase < 3) {
		int64_t *c = &k->cur[a->stack][a->phase], *m = &k->max[a->stack][a->phase];
		if (*c + run->rise > *m)
			*m = *c + run->rise;
		*c += run->delta;
	}
}

static void key_peak(void *ctx, enum ckt_moment m, uint64_t ts)
{
	struct key_sum *k = ctx;
	(void)ts;
	if (m == CKT_AT_PEAK_HEAP)
		memcpy(k->at_peak, k->cur, sizeof(k->cur));
}

/* runs: changes handed to observers in runs; ahead: decoded on a second thread (--jobs 2,
 * ckt_replay_run_ahead); max_held: the bound of events held for time order (0: the default) */
static void replay_keys_way(const struct tb *b, struct ckt_replay_stats *st, struct key_sum *k,
			    bool runs, bool ahead, uint64_t max_held)
{
	char path[64];
	tb_write(b, path);
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	if (ckt_decode_open(path, &d, &err))
		fail_msg("open: %s", err.msg);
	unlink(path);
	struct ckt_replay *r = ckt_replay_new(4096);
	assert_non_null(r);
	memset(k, 0, sizeof(*k));
	struct ckt_observer o = { .ctx = k, .bytes = key_bytes, .peak = key_peak };
	assert_int_equal(ckt_replay_observe(r, &o), 0);
	if (!runs)
		ckt_replay_runs_off(r);
	if (max_held)
		ckt_replay_set_max_held(r, max_held);
	if ((ahead ? ckt_replay_run_ahead : ckt_replay_run)(d, r, &err))
		fail_msg("replay: %s", err.msg);
	*st = *ckt_replay_stats(r);
	ckt_replay_free(r);
	ckt_decode_close(d);
}

static void replay_keys(const struct tb *b, struct ckt_replay_stats *st, struct key_sum *k)
{
	replay_keys_way(b, st, k, true, false, 0);
}

/* The same figures, one key's and the whole trace's, the way they were reached aside */
static void expect_same_keys(const struct ckt_replay_stats *a, const struct key_sum *ka,
			     const struct ckt_replay_stats *b, const struct key_sum *kb)
{
	assert_int_equal(a->events, b->events);
	assert_memory_equal(a->counts, b->counts, sizeof(a->counts));
	assert_int_equal(a->paired, b->paired);
	assert_int_equal(a->late_events, b->late_events);
	assert_int_equal(a->backward_events, b->backward_events);
	assert_int_equal(a->replayed_early, b->replayed_early);
	assert_int_equal(a->max_held, b->max_held);
	assert_int_equal(a->inconsistencies, b->inconsistencies);
	assert_int_equal(a->peak_heap.bytes, b->peak_heap.bytes);
	assert_int_equal(a->peak_heap.ts, b->peak_heap.ts);
	assert_int_equal(a->heap_bytes, b->heap_bytes);
	assert_int_equal(a->heap_blocks, b->heap_blocks);
	assert_memory_equal(ka->cur, kb->cur, sizeof(ka->cur));
	assert_memory_equal(ka->at_peak, kb->at_peak, sizeof(ka->at_peak));
	assert_memory_equal(ka->max, kb->max, sizeof(ka->max));
	assert_int_equal(ka->calls, kb->calls);
}

/* Writes events (in time order) twice: as version 1 rows into *rows and through the real
 * encoder as columns into *cols_tb. A frame ends after each event count listed in cuts
 * (0-terminated; NULL: frames of random length); within a frame each thread's events form one
 * group, groups in the order of the threads' first event there. An event of type
 * CKT_EV_LOST_TEST writes a LOST record of count `a` after the frame's groups. */
#define CKT_EV_LOST_TEST 0xee
static size_t build_both(const struct ev *ev, size_t n, const size_t *cuts, struct tb *rows,
			 struct tb *cols_tb)
{
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e), *row = malloc(COL_CAP), *p;
	assert_non_null(row);
	tb_init(rows);
	tb_init(cols_tb);
	tb_header(rows);
	tb_header_kv(cols_tb, CKT_FORMAT_VERSION, NULL);
	size_t i = 0, frames = 0;
	while (i < n) {
		size_t end = cuts ? *cuts++ : i + 1 + rnd() % 3000;
		if (end > n || end <= i)
			end = n;
		uint64_t base = ev[i].ts - 10, tids[16];
		size_t nt = 0;
		for (size_t k = i; k < end; k++) {
			size_t j = 0;
			while (j < nt && tids[j] != ev[k].tid)
				j++;
			if (j == nt && ev[k].type != CKT_EV_LOST_TEST) {
				assert_true(nt < 16);
				tids[nt++] = ev[k].tid;
			}
		}
		p = row;
		ckt_record_frame(&e, &p, frames, base);
		tb_frame(rows, base);
		for (size_t t = 0; t < nt; t++) {
			ckt_record_thread(&e, &p, tids[t]);
			tb_thread(rows, tids[t]);
			for (size_t k = i; k < end; k++) {
				const struct ev *x = &ev[k];
				if (x->tid != tids[t] || x->type == CKT_EV_LOST_TEST)
					continue;
				struct ckt_slot s1 = slot(x->type, x->fn, x->ts, x->a, x->b, x->stack, x->phase);
				struct ckt_slot s2 = slot(CKT_EV_EXT, 0, x->after, x->new_a, 0, 0, 0);
				assert_int_equal(ckt_record_event(&e, &p, &s1, &s2), 0);
				if (x->type == CKT_EV_ALLOC) {
					tb_alloc_ex(rows, x->ts, x->a, x->b, x->fn, x->stack, x->phase);
				} else if (x->type == CKT_EV_FREE) {
					tb_free(rows, x->ts, x->a);
				} else {
					tb_u8(rows, CKT_TAG_REALLOC);
					tb_dts(rows, x->ts);
					tb_daddr(rows, x->a);
					tb_uv(rows, x->after - x->ts);
					tb_daddr(rows, x->new_a);
					tb_uv(rows, x->b);
					tb_uv(rows, x->stack);
					tb_uv(rows, x->phase);
				}
			}
		}
		for (size_t k = i; k < end; k++)
			if (ev[k].type == CKT_EV_LOST_TEST) {
				ckt_record_lost(&p, ev[k].a);
				tb_lost(rows, ev[k].a);
			}
		ckt_record_sync(&p, ev[end - 1].ts + 1);
		tb_sync(rows, ev[end - 1].ts + 1);
		put_frame(cols_tb, &e, row, (size_t)(p - row));
		tb_flush(rows);
		frames++;
		i = end;
	}
	free(cols);
	free(row);
	return frames;
}

static void test_columns_pairing_replay(void **state)
{
	(void)state;
	enum { N = 60000, NT = 3, LIVE = 32 };
	struct ev *ev = calloc(N, sizeof(*ev));
	assert_non_null(ev);
	/* the events, in global time order */
	uint64_t live[NT][LIVE] = { { 0 } }, lsize[NT][LIVE] = { { 0 } }, pending[NT] = { 0 };
	uint64_t psize[NT] = { 0 }, bump = 0x555500000000ull, ts = 1000;
	uint64_t lastfree[NT][CKT_AM_CLASSES] = { { 0 } };
	size_t n = 0;
	while (n < N) {
		uint64_t r = rnd();
		unsigned t = (unsigned)(r % NT), slot = (unsigned)((r >> 8) % LIVE);
		struct ev *e = &ev[n];
		memset(e, 0, sizeof(*e));
		e->tid = 200 + t;
		e->ts = ts += 1 + (r >> 20) % 3;
		e->stack = (uint32_t)((r >> 30) % 4);
		e->phase = (uint16_t)((r >> 34) % 3);
		uint64_t size = 1 + (r >> 40) % 700;
		unsigned c = ckt_am_class(size);
		if (pending[t]) { /* the block this thread allocated last: freed soon */
			e->type = CKT_EV_FREE;
			e->a = pending[t];
			lastfree[t][ckt_am_class(psize[t])] = e->a;
			pending[t] = 0;
		} else if (r % 5 == 0 && live[(t + 1) % NT][slot]) { /* another thread's block */
			unsigned o = (t + 1) % NT;
			e->type = CKT_EV_FREE;
			e->a = live[o][slot];
			live[o][slot] = 0;
		} else if (r % 7 == 0 && live[t][slot]) {
			e->type = CKT_EV_REALLOC;
			e->a = live[t][slot];
			e->b = size;
			e->after = e->ts + (r >> 50) % 3;
			ts = e->after;
			e->new_a = lastfree[t][c] ? lastfree[t][c] : (bump += 16 * c + 16);
			lastfree[t][c] = 0;
			lastfree[t][ckt_am_class(lsize[t][slot])] = e->a;
			live[t][slot] = e->new_a;
			lsize[t][slot] = size;
		} else {
			e->type = CKT_EV_ALLOC;
			e->fn = CKT_FN_MALLOC;
			e->b = size;
			e->a = lastfree[t][c] ? lastfree[t][c] : (bump += 16 * c + 16);
			lastfree[t][c] = 0;
			if (r % 4 != 0 || live[t][slot]) {
				pending[t] = e->a; /* most are freed soon */
				psize[t] = size;
			} else {
				live[t][slot] = e->a;
				lsize[t][slot] = size;
			}
		}
		n++;
	}

	/* both encodings, frame by frame (frames of random length), thread group by thread group */
	struct tb rows, cols_tb;
	size_t frames = build_both(ev, n, NULL, &rows, &cols_tb);

	struct ckt_replay_stats a, b;
	struct key_sum ka, kb;
	replay_keys(&rows, &a, &ka);
	replay_keys(&cols_tb, &b, &kb);
	print_message("pairing: %zu events in %zu frames, %llu blocks paired\n", n, frames,
		      (unsigned long long)b.paired);
	assert_int_equal(a.paired, 0);
	assert_true(b.paired > n / 4); /* most blocks are freed soon by their thread */
	assert_int_equal(a.events, n);
	assert_int_equal(b.events, n);
	for (int k = 0; k < CKT_KIND_COUNT; k++)
		assert_int_equal(a.counts[k], b.counts[k]);
	assert_int_equal(a.late_events, 0);
	assert_int_equal(b.late_events, 0);
	assert_int_equal(a.inconsistencies, 0);
	assert_int_equal(b.inconsistencies, 0);
	assert_true(a.peak_heap.bytes > 0);
	assert_int_equal(a.peak_heap.bytes, b.peak_heap.bytes);
	assert_int_equal(a.peak_heap.ts, b.peak_heap.ts);
	assert_int_equal(a.heap_bytes, b.heap_bytes);
	assert_int_equal(a.heap_blocks, b.heap_blocks);
	assert_true(a.heap_blocks > 0);
	assert_memory_equal(ka.cur, kb.cur, sizeof(ka.cur));
	assert_memory_equal(ka.at_peak, kb.at_peak, sizeof(ka.at_peak));
	assert_memory_equal(ka.max, kb.max, sizeof(ka.max));
	/* runs of changes (consecutive heap changes of one stack and phase, handed over in one
	 * call) against every change alone: the same figures, each key's own maximum included */
	struct ckt_replay_stats c;
	struct key_sum kc;
	replay_keys_way(&cols_tb, &c, &kc, false, false, 0);
	assert_int_equal(c.peak_heap.bytes, b.peak_heap.bytes);
	assert_memory_equal(kc.cur, kb.cur, sizeof(kc.cur));
	assert_memory_equal(kc.at_peak, kb.at_peak, sizeof(kc.at_peak));
	assert_memory_equal(kc.max, kb.max, sizeof(kc.max));
	assert_int_equal(kc.calls, b.counts[CKT_KIND_ALLOC] + b.counts[CKT_KIND_FREE] +
				     2 * b.counts[CKT_KIND_REALLOC]);
	print_message("runs: %llu calls for %llu changes\n", (unsigned long long)kb.calls,
		      (unsigned long long)kc.calls);
	assert_true(kb.calls < kc.calls * 9 / 10);
	/* decoded ahead on a second thread (--jobs 2), where runs of heap events go to the replay
	 * as CKT_REC_HEAP_RUN records copied into the queues: every figure the same; and so with
	 * a bound of held events far below a frame's (replayed early, some events late), checked
	 * between runs and before each piece of a run */
	struct ckt_replay_stats dd;
	struct key_sum kd;
	replay_keys_way(&cols_tb, &dd, &kd, true, true, 0);
	expect_same_keys(&b, &kb, &dd, &kd);
	struct ckt_replay_stats h1, h2;
	struct key_sum kh1, kh2;
	replay_keys_way(&cols_tb, &h1, &kh1, true, false, 300);
	replay_keys_way(&cols_tb, &h2, &kh2, true, true, 300);
	print_message("--max-held 300: %llu replayed early, %llu late\n",
		      (unsigned long long)h1.replayed_early, (unsigned long long)h1.late_events);
	assert_true(h1.replayed_early > 0);
	assert_true(h1.late_events > 0);
	expect_same_keys(&h1, &kh1, &h2, &kh2);
	int64_t sum = 0;
	for (int s = 0; s < 4; s++)
		for (int f = 0; f < 3; f++)
			sum += ka.at_peak[s][f];
	assert_int_equal(sum, (int64_t)a.peak_heap.bytes);
	tb_release(&rows);
	tb_release(&cols_tb);
	free(ev);
}

/* Blocks handed between threads, which the model of one thread cannot see: the pairing is a
 * hint, and the figures must stay those of the rows (no pairing). */
static void pair_case(const struct ev *ev, size_t n, const size_t *cuts, uint64_t want_paired,
		      uint64_t peak_rows, uint64_t peak_cols, uint64_t incons)
{
	struct tb rows, cols_tb;
	struct ckt_replay_stats a, b;
	struct key_sum ka, kb;
	build_both(ev, n, cuts, &rows, &cols_tb);
	replay_keys(&rows, &a, &ka);
	replay_keys(&cols_tb, &b, &kb);
	assert_int_equal(a.paired, 0);
	assert_int_equal(b.paired, want_paired);
	assert_int_equal(a.peak_heap.bytes, peak_rows);
	assert_int_equal(b.peak_heap.bytes, peak_cols);
	assert_int_equal(a.inconsistencies, incons);
	assert_int_equal(b.inconsistencies, incons);
	assert_int_equal(a.heap_bytes, b.heap_bytes);
	assert_int_equal(a.heap_blocks, b.heap_blocks);
	assert_memory_equal(ka.cur, kb.cur, sizeof(ka.cur));
	if (peak_rows == peak_cols)
		assert_memory_equal(ka.at_peak, kb.at_peak, sizeof(ka.at_peak));
	tb_release(&rows);
	tb_release(&cols_tb);
}

#define EV(t, ty, ts_, addr, size, st)                                                              \
	{ .type = (ty), .fn = CKT_FN_MALLOC, .ts = (ts_), .a = (addr), .b = (size), .stack = (st), \
	  .tid = (t) }

static void test_columns_pairing_handoff(void **state)
{
	(void)state;
	const uint64_t X = 0x555500001000ull;
	/* A allocates X and later frees it; in between B frees A's block, gets X back from its
	 * tcache (200 bytes) and hands it to A, so A's free frees B's block. A's model pairs A's
	 * free with A's own allocation. */
	const struct ev ev[] = {
		EV(1, CKT_EV_ALLOC, 10, X, 100, 1),
		EV(2, CKT_EV_FREE, 20, X, 0, 0),
		EV(2, CKT_EV_ALLOC, 30, X, 200, 2),
		EV(1, CKT_EV_FREE, 40, X, 0, 0),
		EV(1, CKT_EV_ALLOC, 50, X + 4096, 10, 3),
	};
	pair_case(ev, 5, NULL, 1, 200, 200, 0);
	/* then B allocates and frees X itself: both threads pair, B's block is young too */
	const struct ev ev2[] = {
		EV(1, CKT_EV_ALLOC, 10, X, 100, 1),
		EV(2, CKT_EV_FREE, 20, X, 0, 0),
		EV(2, CKT_EV_ALLOC, 30, X, 200, 2),
		EV(1, CKT_EV_FREE, 40, X, 0, 0),
		EV(2, CKT_EV_ALLOC, 50, X, 300, 3),
		EV(2, CKT_EV_FREE, 60, X, 0, 0),
	};
	pair_case(ev2, 6, NULL, 2, 300, 300, 0);
}

static void test_columns_pairing_lost_free(void **state)
{
	(void)state;
	const uint64_t X = 0x555500001000ull;
	/* B's free of X was dropped (LOST, written in the flush of A's use of X): A's allocation
	 * of X finds B's block still live and counts it, as with rows */
	const struct ev ev[] = {
		EV(2, CKT_EV_ALLOC, 10, X, 100, 1),
		EV(1, CKT_EV_ALLOC, 20, X, 50, 2),
		EV(1, CKT_EV_FREE, 30, X, 0, 0),
		{ .type = CKT_EV_LOST_TEST, .ts = 30, .a = 1, .tid = 2 },
	};
	const size_t cuts[] = { 1, 4, 0 };
	pair_case(ev, 4, cuts, 1, 100, 100, 1);
	/* The same free missing with no LOST record (a free the tracer could not record): the young
	 * allocation of X does not look in the big table, so B's stale block stays counted until
	 * the next allocation of X that looks (an unpaired one). The peak includes it (150; the
	 * rows say 100); the count and the figures from then on agree. */
	const struct ev ev2[] = {
		EV(2, CKT_EV_ALLOC, 10, X, 100, 1),
		EV(1, CKT_EV_ALLOC, 20, X, 50, 2),
		EV(1, CKT_EV_FREE, 30, X, 0, 0),
		EV(3, CKT_EV_ALLOC, 40, X, 70, 3),
	};
	const size_t cuts2[] = { 1, 3, 4, 0 };
	pair_case(ev2, 4, cuts2, 1, 100, 150, 1);
}

/* The model predicts: in the generated workload most addresses are coded as hits (one byte,
 * usually 0), and the escapes are exercised too. */
static void test_columns_model_codes(void **state)
{
	(void)state;
	struct ckt_amodel m;
	int64_t d = 0;
	ckt_am_reset(&m);
	/* a miss, then free and reuse of the same block: hit at index 0 both ways */
	assert_int_equal(ckt_am_enc_alloc(&m, 0x1000, 100, &d), CKT_ACODE_MISS);
	assert_int_equal(d, 0x1000);
	assert_int_equal(ckt_am_enc_release(&m, 0x1000, &d), 0);
	assert_int_equal(ckt_am_enc_alloc(&m, 0x1000, 99, &d), 0); /* same class (112) */
	/* the next fresh block right after it: delta 0 from the predicted heap top */
	assert_int_equal(ckt_am_enc_alloc(&m, 0x1000 + 16 * ckt_am_class(99), 24, &d), CKT_ACODE_MISS);
	assert_int_equal(d, (int64_t)(0x1000 + 16 * ckt_am_class(99)) - (int64_t)(0x1000 + 16 * ckt_am_class(100)));
	/* a release of something never allocated here: escape, delta from the last escaped release */
	assert_int_equal(ckt_am_enc_release(&m, 0x9000, &d), CKT_ACODE_MISS);
	assert_int_equal(d, 0x9000);
	assert_int_equal(ckt_am_enc_release(&m, 0x8ff0, &d), CKT_ACODE_MISS);
	assert_int_equal(d, -16);
	/* 17 allocations: the oldest falls out of the recent list */
	ckt_am_reset(&m);
	for (uint64_t k = 0; k < 17; k++)
		(void)ckt_am_enc_alloc(&m, 0x10000 + k * 64, 40, &d);
	assert_int_equal(ckt_am_enc_release(&m, 0x10000, &d), CKT_ACODE_MISS);
	assert_int_equal(ckt_am_enc_release(&m, 0x10000 + 64, &d), 15);
	assert_int_equal(ckt_am_enc_release(&m, 0x10000 + 16 * 64, &d), 0);
	/* sizes at and beyond the class cap share the last class */
	assert_int_equal(ckt_am_class(1), 2);
	assert_int_equal(ckt_am_class(24), 2);
	assert_int_equal(ckt_am_class(25), 3);
	assert_int_equal(ckt_am_class(2024), CKT_AM_CLASSES - 1); /* a 2032-byte chunk */
	for (uint64_t size = 2025; size <= 2031; size++) /* a 2048-byte chunk: capped */
		assert_int_equal(ckt_am_class(size), CKT_AM_CLASSES - 1);
	for (uint64_t size = 0; size < 70000; size++)
		assert_true(ckt_am_class(size) < CKT_AM_CLASSES);
	assert_int_equal(ckt_am_class(5000000), CKT_AM_CLASSES - 1);
	assert_int_equal(ckt_am_class(UINT64_MAX), CKT_AM_CLASSES - 1);
}

/* One FREE in a version 2 frame, with the frame's bytes given by the test: for corruption. */
static int decode_frame_bytes(const uint8_t *frame, size_t n, struct ckt_error *err)
{
	struct tb b;
	tb_init(&b);
	tb_header_kv(&b, CKT_FORMAT_VERSION, NULL);
	tb_raw(&b, frame, n);
	tb_flush(&b);
	struct ckt_decoder *d = open_built(&b);
	tb_release(&b);
	int rc;
	struct ckt_record r;
	while ((rc = ckt_decode_next(d, &r, err)) == 1)
		;
	ckt_decode_close(d);
	return rc;
}

static void test_columns_corrupt(void **state)
{
	(void)state;
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e), row[256], *p = row, frame[512];
	struct ckt_error err = { 0 };
	ckt_record_frame(&e, &p, 0, 1000);
	ckt_record_thread(&e, &p, 7);
	struct ckt_slot a = slot(CKT_EV_ALLOC, CKT_FN_MALLOC, 1001, 0x5000, 48, 0, 0);
	struct ckt_slot f = slot(CKT_EV_FREE, 0, 1002, 0x5000, 0, 0, 0);
	assert_int_equal(ckt_record_event(&e, &p, &a, NULL), 0);
	assert_int_equal(ckt_record_event(&e, &p, &f, NULL), 0);
	size_t rn = (size_t)(p - row);
	size_t n = lay_out(frame, &e, row, rn);
	assert_int_equal(decode_frame_bytes(frame, n, &err), 0); /* intact: ends without END */

	uint8_t bad[512];
	memcpy(bad, frame, n);
	bad[0] = 3; /* stream count */
	assert_int_equal(decode_frame_bytes(bad, n, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "corrupt frame 1: 3 streams, expected 11");

	memcpy(bad, frame, n);
	bad[1]++; /* ROW one byte longer than the frame holds */
	assert_int_equal(decode_frame_bytes(bad, n, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "corrupt frame 1: its stream lengths do not add up to its size");

	/* the FREE's address code names a recent allocation that does not exist */
	size_t acode = 1 + CKT_NSTREAMS + rn;
	for (int k = 1; k < CKT_S_ACODE; k++)
		acode += (size_t)(e.col[k] - e.col0[k]);
	memcpy(bad, frame, n);
	assert_int_equal(bad[acode + 1], 0); /* FREE: hit at index 0 */
	bad[acode + 1] = 5;
	assert_int_equal(decode_frame_bytes(bad, n, &err), CKT_EFORMAT);
	assert_string_equal(err.msg,
			    "corrupt record (tag 0x11) in frame 1: its columns are short or inconsistent");

	/* a frame with nothing in it, not even its FRAME record */
	uint8_t empty[1 + CKT_NSTREAMS] = { CKT_NSTREAMS };
	assert_int_equal(decode_frame_bytes(empty, sizeof(empty), &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "corrupt frame 1: its row stream is empty");

	/* a byte in a column that no record reads */
	*e.col[CKT_S_META]++ = 0;
	n = lay_out(bad, &e, row, rn);
	assert_int_equal(decode_frame_bytes(bad, n, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "corrupt frame 1: stream 9 has 1 bytes no record uses");
	free(cols);

	/* a size no allocation can have (2^57 bytes and up), in the columns: refused before it
	 * reaches a sum; 2^57 - 1 is read */
	for (int k = 0; k < 2; k++) {
		uint64_t size = ((uint64_t)1 << 57) - 1 + (uint64_t)k;
		cols = enc_init(&e);
		p = row;
		ckt_record_frame(&e, &p, 0, 1000);
		ckt_record_thread(&e, &p, 7);
		struct ckt_slot w = slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_SLOT_WIDE, 1001, 0x5000, size, 0, 0);
		assert_int_equal(ckt_record_event(&e, &p, &w, NULL), 0);
		n = lay_out(frame, &e, row, (size_t)(p - row));
		assert_int_equal(decode_frame_bytes(frame, n, &err), k ? CKT_EFORMAT : 0);
		if (k)
			assert_string_equal(err.msg, "corrupt record (tag 0x10) in frame 1: a size of 2^57 bytes or more");
		free(cols);
	}

	/* a phase id past the tracer's 4096, in the columns (ALLOC, REALLOC): refused, not cut to
	 * the replay's bits; 4096 is read */
	for (int k = 0; k < 4; k++) {
		uint16_t phase = (uint16_t)(CKT_MAX_PHASE_ID + k % 2);
		cols = enc_init(&e);
		p = row;
		ckt_record_frame(&e, &p, 0, 1000);
		ckt_record_thread(&e, &p, 7);
		struct ckt_slot w = k < 2 ? slot(CKT_EV_ALLOC, CKT_FN_MALLOC, 1001, 0x5000, 64, 0, phase)
					  : slot(CKT_EV_REALLOC, 0, 1001, 0, 64, 0, phase);
		struct ckt_slot w2 = slot(CKT_EV_EXT, 0, 1002, 0x5000, 0, 0, 0);
		assert_int_equal(ckt_record_event(&e, &p, &w, k < 2 ? NULL : &w2), 0);
		n = lay_out(frame, &e, row, (size_t)(p - row));
		assert_int_equal(decode_frame_bytes(frame, n, &err), k % 2 ? CKT_EFORMAT : 0);
		if (k % 2)
			assert_string_equal(err.msg, k < 2 ? "corrupt record (tag 0x10) in frame 1: phase id 4097 is out of range (at most 4096)"
							   : "corrupt record (tag 0x12) in frame 1: phase id 4097 is out of range (at most 4096)");
		free(cols);
	}
}

/* Damaged version 2 frames, built by the real encoder and then hit by a few random byte
 * changes anywhere (directory, row stream, columns): every one is either read to the end or
 * refused as corrupt with a message, never a crash or a read outside the frame (the
 * sanitizer build checks the latter). */
static void test_columns_fuzz(void **state)
{
	(void)state;
	enum { N = 3000, ROUNDS = 600 };
	struct ev *ev = calloc(N, sizeof(*ev));
	uint8_t *row = malloc(COL_CAP), *frame = malloc(CKT_NSTREAMS * COL_CAP + 256), *p;
	assert_non_null(ev);
	assert_non_null(row);
	assert_non_null(frame);
	size_t n = gen_events(ev, N);
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e);
	p = row;
	ckt_record_frame(&e, &p, 0, 1000);
	uint64_t cur = 0;
	for (size_t i = 0; i < n; i++) {
		if (ev[i].tid != cur)
			ckt_record_thread(&e, &p, cur = ev[i].tid);
		struct ckt_slot s = slot(ev[i].type, ev[i].fn, ev[i].ts, ev[i].a, ev[i].b, ev[i].stack,
					 ev[i].phase);
		struct ckt_slot s2 = slot(CKT_EV_EXT, 0, ev[i].after, ev[i].new_a, 0, 0, 0);
		assert_int_equal(ckt_record_event(&e, &p, &s, &s2), 0);
	}
	ckt_record_sync(&p, ev[n - 1].ts);
	ckt_record_end(&p, ev[n - 1].ts + 1, CKT_END_EXIT, n, 0);
	size_t len = lay_out(frame, &e, row, (size_t)(p - row));
	int refused = 0, read = 0;
	for (int round = 0; round < ROUNDS; round++) {
		uint8_t *bad = malloc(len);
		assert_non_null(bad);
		memcpy(bad, frame, len);
		int hits = 1 + (int)(rnd() % 3);
		for (int k = 0; k < hits; k++) {
			/* half the hits in the first 64 bytes: the directory and the first records */
			size_t at = rnd() % 2 ? rnd() % 64 : rnd() % len;
			bad[at] = (uint8_t)rnd();
		}
		struct tb b;
		tb_init(&b);
		tb_header_kv(&b, CKT_FORMAT_VERSION, NULL);
		tb_raw(&b, bad, len);
		tb_flush(&b);
		char path[64];
		tb_write_bytes(b.out, b.out_len, path);
		tb_release(&b);
		free(bad);
		struct ckt_replay_stats st;
		struct ckt_error err = { 0 };
		int rc = tb_run(path, &st, &err);
		unlink(path);
		if (rc == 0) {
			read++;
		} else {
			assert_int_equal(rc, CKT_EFORMAT);
			assert_true(strncmp(err.msg, "corrupt ", 8) == 0);
			refused++;
		}
	}
	assert_int_equal(read + refused, ROUNDS);
	assert_true(refused > ROUNDS / 2); /* most damage is noticed */
	free(cols);
	free(frame);
	free(row);
	free(ev);
}

/* ckt_utf8_cut and ckt_utf8_skip (ckt.h): names and notes cut between UTF-8 characters */
static void test_utf8_cuts(void **state)
{
	(void)state;
	const char *e = "ab\xe2\x82\xac" "cd"; /* a, b, the 3 bytes of a euro sign, c, d */
	assert_int_equal(ckt_utf8_cut(e, 7, 7), 7);  /* it fits */
	assert_int_equal(ckt_utf8_cut(e, 7, 5), 5);  /* after the euro sign */
	assert_int_equal(ckt_utf8_cut(e, 7, 4), 2);  /* inside it: before it */
	assert_int_equal(ckt_utf8_cut(e, 7, 3), 2);
	assert_int_equal(ckt_utf8_cut(e, 7, 2), 2);
	assert_int_equal(ckt_utf8_cut(e + 2, 5, 1), 0); /* a cut inside the first character */
	assert_int_equal(ckt_utf8_cut(e + 2, 5, 3), 3);
	assert_int_equal(ckt_utf8_skip(e + 3, 4), 2); /* starting inside it: its 2 bytes left */
	assert_int_equal(ckt_utf8_skip(e + 4, 3), 1);
	assert_int_equal(ckt_utf8_skip(e, 7), 0);
	/* bytes that are no UTF-8 (continuation bytes only) are cut where they fall */
	char junk[16];
	memset(junk, 0x80, sizeof(junk));
	assert_int_equal(ckt_utf8_cut(junk, 16, 10), 10);
	assert_int_equal(ckt_utf8_skip(junk, 16), 0);
	assert_int_equal(ckt_utf8_skip(junk, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unknown_slot),
		cmocka_unit_test(test_columns_round_trip),
		cmocka_unit_test(test_columns_pairing_replay),
		cmocka_unit_test(test_columns_pairing_handoff),
		cmocka_unit_test(test_columns_pairing_lost_free),
		cmocka_unit_test(test_columns_model_codes),
		cmocka_unit_test(test_columns_corrupt),
		cmocka_unit_test(test_columns_fuzz),
		cmocka_unit_test(test_utf8_cuts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
