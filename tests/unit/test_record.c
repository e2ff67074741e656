/* test_record.c: the capture library's encoder (preload/record.c) against the reader's decoder
 * (reader/decode.c): every slot type and every side record encoded by the real encoder comes
 * back from a trace file with the same field values, across delta resets at THREAD and FRAME. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ckt.h"
#include "trace_builder.h"

static struct ckt_slot slot(uint8_t type, uint8_t fn, uint64_t ts, uint64_t a, uint64_t b,
			    uint32_t stack, uint16_t phase)
{
	struct ckt_slot s = { ts, a, b, stack, type, fn, phase };
	return s;
}

static void enc1(struct ckt_enc *e, uint8_t **p, struct ckt_slot s)
{
	assert_int_equal(ckt_record_event(e, p, &s, NULL), 0);
}

static void enc2(struct ckt_enc *e, uint8_t **p, struct ckt_slot s, struct ckt_slot s2)
{
	assert_int_equal(ckt_record_event(e, p, &s, &s2), 0);
}

/* Column buffers for an encoder, as the writer gives it (each can hold a whole frame). */
#define COL_CAP (1u << 20)
static uint8_t *enc_init(struct ckt_enc *e)
{
	uint8_t *cols = malloc((size_t)CKT_NSTREAMS * COL_CAP);
	assert_non_null(cols);
	memset(e, 0, sizeof(*e));
	for (int k = 1; k < CKT_NSTREAMS; k++)
		e->col0[k] = e->col[k] = cols + (size_t)k * COL_CAP;
	return cols;
}

/* One data frame as the writer lays it out: directory, ROW stream, columns; compressed. */
static void put_frame(struct tb *b, const struct ckt_enc *e, const uint8_t *row, size_t n)
{
	uint8_t dir[(CKT_NSTREAMS + 1) * CKT_MAX_VARINT];
	tb_raw(b, dir, ckt_record_directory(e, n, dir));
	tb_raw(b, row, n);
	for (int k = 1; k < CKT_NSTREAMS; k++)
		tb_raw(b, e->col0[k], (size_t)(e->col[k] - e->col0[k]));
	tb_flush(b);
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

	/* header through the encoder's own functions */
	uint8_t *p = ckt_record_header_begin(buf);
	p = ckt_record_kv(p, buf + sizeof(buf), "pid", "777");
	p = ckt_record_kv(p, buf + sizeof(buf), "page_size", "4096");
	p = ckt_record_kv(p, buf + sizeof(buf), "setting.CUZKTRACE_SAMPLE", "0");
	p = ckt_record_header_end(p);
	tb_raw(&b, buf, (size_t)(p - buf));
	tb_flush(&b);

	/* frame 1: two threads, every event kind, addresses and times going both ways */
	p = buf;
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
	enc1(&e, &p, slot(CKT_EV_FREE, 0, 1003, big, 0, 0, 0));
	enc2(&e, &p, slot(CKT_EV_REALLOC, 0, 1004, small, 4096, 5, 2),
	     slot(CKT_EV_EXT, 0, 1010, big + 64, 0, 0, 0));
	enc1(&e, &p, slot(CKT_EV_MMAP, CKT_MAP_ANON | CKT_MAP_FIXED | 3u << 4, 1011, big, 8192, 5, 0));
	enc1(&e, &p, slot(CKT_EV_MUNMAP, 0, 1012, big + 4096, 4096, 0, 0));
	enc2(&e, &p, slot(CKT_EV_MREMAP, 0, 1013, big, 4096, 0, 0),
	     slot(CKT_EV_EXT, 0, 1013, small, 65536, 0, 0));
	enc1(&e, &p, slot(CKT_EV_PHASE, CKT_PHASE_BEGIN, 1014, 2, 0, 0, 0));
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 1015, (uint64_t)-65600, (uint64_t)-3, 0, 0));
	ckt_record_thread(&e, &p, 12);
	enc1(&e, &p, slot(CKT_EV_RSS, 0, 999, 0, 123 << 12, 0, 0)); /* earlier than frame base */
	enc2(&e, &p, slot(CKT_EV_RSS_DETAIL, 0, 1020, 9 << 20, 1 << 20, 0, 0),
	     slot(CKT_EV_EXT, 0, 1020, 2 << 20, 4096, 0, 0));
	enc2(&e, &p, slot(CKT_EV_CUDA_ALLOC, CKT_CU_MEM_ALLOC, 1021, 0x7f00deadbe00ull, 3 << 20, 5, 2),
	     slot(CKT_EV_EXT, 0, 0, CKT_CUDA_DEVICE, 1, 0, 0));
	enc1(&e, &p, slot(CKT_EV_CUDA_FREE, CKT_CU_MEM_FREE, 1022, 0x7f00deadbe00ull, CKT_CUDA_DEVICE, 0, 0));
	ckt_record_lost(&p, 7);
	ckt_record_sync(&p, 1030);
	ckt_record_end(&p, 1040, CKT_END_EXIT, 17, 7);
	put_frame(&b, &e, buf, (size_t)(p - buf));

	char path[64];
	tb_write_bytes(b.out, b.out_len, path);
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	assert_int_equal(ckt_decode_open(path, &d, &err), 0);
	unlink(path);
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
	next(d, &r, CKT_TAG_MREMAP, 11);
	assert_int_equal(r.u.mremap.old_addr, big);
	assert_int_equal(r.u.mremap.old_len, 4096);
	assert_int_equal(r.u.mremap.new_addr, small);
	assert_int_equal(r.u.mremap.new_len, 65536);
	next(d, &r, CKT_TAG_PHASE, 11);
	assert_int_equal(r.ts, 1014);
	assert_int_equal(r.u.phase.op, CKT_PHASE_BEGIN);
	assert_int_equal(r.u.phase.id, 2);
	next(d, &r, CKT_TAG_AGG, 11);
	assert_int_equal(r.ts, 1015);
	assert_int_equal(r.u.agg.bytes, -65600);
	assert_int_equal(r.u.agg.blocks, -3);

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
	next(d, &r, CKT_TAG_LOST, 12);
	assert_int_equal(r.u.lost.count, 7);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unknown_slot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
