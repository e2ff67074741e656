/* test_decode.c: reader/decode.c against hand-built files: varints, the header, every record
 * kind with its delta state, each error the reader reports, truncation at every byte and
 * random garbage (which must never crash; run it under ASan/UBSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "report.h"
#include "trace_builder.h"
#include "event.h"

/* ---- varints ---- */

static void test_varint_roundtrip(void **state)
{
	(void)state;
	static const uint64_t uvals[] = { 0, 1, 127, 128, 255, 16383, 16384, 0xffffffffull,
					  0x100000000ull, 1ull << 56, (1ull << 63) - 1, 1ull << 63,
					  UINT64_MAX };
	static const int64_t svals[] = { 0, 1, -1, 63, -64, 64, -65, INT32_MAX, INT32_MIN,
					 INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	uint8_t buf[CKT_MAX_VARINT + 4];

	for (size_t i = 0; i < sizeof(uvals) / sizeof(uvals[0]); i++) {
		uint8_t *e = ckt_put_uv(buf, uvals[i]);
		uint64_t v = 12345;
		assert_true(e - buf <= CKT_MAX_VARINT);
		const uint8_t *q = ckt_get_uv(buf, e, &v);
		assert_ptr_equal(q, e);
		assert_int_equal(v, uvals[i]);
	}
	assert_int_equal(ckt_put_uv(buf, 0) - buf, 1);
	assert_int_equal(ckt_put_uv(buf, 127) - buf, 1);
	assert_int_equal(ckt_put_uv(buf, 128) - buf, 2);
	assert_int_equal(ckt_put_uv(buf, UINT64_MAX) - buf, 10);
	for (size_t i = 0; i < sizeof(svals) / sizeof(svals[0]); i++) {
		uint8_t *e = ckt_put_sv(buf, svals[i]);
		int64_t v = 12345;
		const uint8_t *q = ckt_get_sv(buf, e, &v);
		assert_ptr_equal(q, e);
		assert_true(v == svals[i]);
	}
	/* zigzag keeps small magnitudes short */
	assert_int_equal(ckt_put_sv(buf, -1) - buf, 1);
	assert_int_equal(buf[0], 1);
	assert_int_equal(ckt_put_sv(buf, 1) - buf, 1);
	assert_int_equal(buf[0], 2);
}

static void test_varint_malformed(void **state)
{
	(void)state;
	uint8_t cont[12];
	uint64_t v;
	int64_t s;

	memset(cont, 0x80, sizeof(cont));
	assert_null(ckt_get_uv(cont, cont, &v));            /* empty */
	assert_null(ckt_get_uv(cont, cont + 3, &v));        /* ends inside */
	assert_null(ckt_get_uv(cont, cont + 12, &v));       /* longer than 10 bytes */
	cont[10] = 0x01;
	assert_null(ckt_get_uv(cont, cont + 11, &v));       /* terminator as 11th byte */
	assert_null(ckt_get_sv(cont, cont + 2, &s));
	/* the end pointer is respected even when the bytes after it would terminate */
	uint8_t two[2] = { 0x81, 0x01 };
	assert_null(ckt_get_uv(two, two + 1, &v));
	assert_ptr_equal(ckt_get_uv(two, two + 2, &v), two + 2);
	assert_int_equal(v, 129);
}

static void test_util_format(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1024), "1.00 KiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1610612736), "1.50 GiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 10 * 1024 - 1), "10.0 KiB");
	/* what would print as 1024 of a unit is 1.00 of the next (1023.5 KiB and up) */
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1048063), "1023 KiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1048064), "1.00 MiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 1073217536), "1.00 GiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 123 * 1024 * 1024), "123 MiB");
	assert_string_equal(ckt_util_fmt_bytes(b, sizeof(b), 5ull << 50), "5120 TiB");
	assert_string_equal(ckt_util_fmt_sbytes(b, sizeof(b), -1536), "-1.50 KiB");
	assert_string_equal(ckt_util_fmt_sbytes(b, sizeof(b), INT64_MIN), "-8388608 TiB");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), 0, 6), "0.000000");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), 1234567890, 6), "1.234568");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), 1234567890, 3), "1.235");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), 999999999, 3), "1.000");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), 1499999999, 0), "1");
	/* a time that is not 0 never reads as 0.000 (a tracer wait of 0.2 ms) */
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 0), "0.000");
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 1672000000), "1.672");
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 500000), "0.001");
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 499999), "0.000500");
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 212345), "0.000212");
	assert_string_equal(ckt_util_fmt_secs_nz(b, sizeof(b), 499), "0.000000499");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), UINT64_MAX, 9), "18446744073.709551615");
	assert_string_equal(ckt_util_fmt_secs(b, sizeof(b), UINT64_MAX, 6), "18446744073.709552");
	assert_int_equal(ckt_util_utf8_len((const unsigned char *)"\xc3\xa9", 2), 2);
	assert_int_equal(ckt_util_utf8_len((const unsigned char *)"\xc3", 1), 0);
	assert_int_equal(ckt_util_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	assert_int_equal(ckt_util_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
	assert_int_equal(ckt_util_utf8_len((const unsigned char *)"\xff", 1), 0);
}

/* ---- helpers ---- */

static int open_bytes(const void *p, size_t n, struct ckt_decoder **d, struct ckt_error *err)
{
	char path[64];
	tb_write_bytes(p, n, path);
	int rc = ckt_decode_open(path, d, err);
	unlink(path);
	return rc;
}

static int run_bytes(const void *p, size_t n, struct ckt_replay_stats *st, struct ckt_error *err)
{
	char path[64];
	tb_write_bytes(p, n, path);
	int rc = tb_run(path, st, err);
	unlink(path);
	return rc;
}

/* ---- header ---- */

static void test_header_parse(void **state)
{
	(void)state;
	static const char *const kv[] = { "pid", "77", "future_key", "kept", "argv", "a\nb c",
					  "page_size", "12345", NULL };
	struct tb b;
	struct ckt_decoder *d;
	struct ckt_error err = { 0 };

	tb_init(&b);
	tb_header_kv(&b, TB_VERSION, kv);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
	const struct ckt_header *h = ckt_decode_header(d);
	assert_int_equal(h->format_version, 1);
	assert_int_equal(h->n_kv, 4);
	assert_string_equal(h->kv[1].key, "future_key");
	assert_string_equal(ckt_decode_header_get(d, "pid"), "77");
	assert_string_equal(ckt_decode_header_get(d, "argv"), "a\nb c");
	assert_null(ckt_decode_header_get(d, "exe"));
	assert_int_equal(h->page_size, 0); /* not a power of two: none (the report refuses it) */
	ckt_decode_close(d);
	tb_release(&b);

	tb_init(&b);
	tb_header(&b);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
	assert_string_equal(ckt_decode_header_get(d, "setting.CUZKTRACE_OUTPUT"), "/tmp/x.ckt");
	assert_string_equal(ckt_decode_header_get(d, "exe"), "/usr/bin/prog");
	/* header only: a trace with no END is truncated, with nothing in it */
	struct ckt_record rec;
	assert_int_equal(ckt_decode_next(d, &rec, &err), 0);
	assert_true(ckt_decode_truncated(d));
	assert_false(ckt_decode_dropped_partial(d));
	ckt_decode_close(d);
	tb_release(&b);

	/* page_size: a power of two from 4096 to 1 GiB, both ends included; anything else is none */
	static const struct {
		const char *v;
		uint64_t want;
	} pages[] = { { "4096", 4096 },  { "1073741824", 1ull << 30 }, { "2048", 0 },
		      { "2147483648", 0 }, { "536870912", 1ull << 29 } };
	for (size_t k = 0; k < sizeof(pages) / sizeof(pages[0]); k++) {
		const char *const pkv[] = { "page_size", pages[k].v, NULL };
		tb_init(&b);
		tb_header_kv(&b, TB_VERSION, pkv);
		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		assert_int_equal(ckt_decode_header(d)->page_size, pages[k].want);
		ckt_decode_close(d);
		tb_release(&b);
	}
}

/* args_total: the arguments' whole length, NULs included, where the tracer cut them; no more
 * than what is kept and the NUL after it (12 for "prog\0--flag") is no cut (0). */
static void test_args_total_edge(void **state)
{
	(void)state;
	static const char *const totals[4] = { "11", "12", "13", "x13" };
	static const uint64_t want[4] = { 0, 0, 13, 0 };
	for (int k = 0; k < 4; k++) {
		struct tb b;
		struct ckt_decoder *d;
		struct ckt_error err = { 0 };
		char sep = 'x';
		tb_init(&b);
		tb_raw(&b, CKT_MAGIC, CKT_MAGIC_LEN);
		tb_u8(&b, 1);
		tb_u8(&b, 0);
		tb_str(&b, "args", 4);
		tb_str(&b, "prog\0--flag", 11);
		tb_str(&b, "args_total", 10);
		tb_str(&b, totals[k], strlen(totals[k]));
		tb_uv(&b, 0);
		tb_flush(&b);
		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		const struct ckt_header_kv *kv = ckt_decode_args(d, &sep);
		assert_non_null(kv);
		assert_int_equal(sep, '\0');
		assert_int_equal(kv->value_len, 11);
		assert_int_equal(ckt_decode_args_total(d), want[k]);
		ckt_decode_close(d);
		tb_release(&b);
	}
}

/* What follows the header, as a child trace's line says it: nothing; a zstd magic (4 bytes)
 * that a cut frame starts with; fewer bytes of it, or 4 bytes that are no magic. */
static void test_tail_after_header(void **state)
{
	(void)state;
	static const uint8_t magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const enum ckt_decode_tail want[6] = { CKT_DECODE_TAIL_NONE,  CKT_DECODE_TAIL_OTHER,
						      CKT_DECODE_TAIL_OTHER, CKT_DECODE_TAIL_OTHER,
						      CKT_DECODE_TAIL_CUT,   CKT_DECODE_TAIL_OTHER };
	for (int k = 0; k < 6; k++) {
		struct tb b;
		struct ckt_decoder *d;
		struct ckt_error err = { 0 };
		tb_init(&b);
		tb_header(&b);
		if (k < 5)
			tb_out_raw(&b, magic, (size_t)k);
		else
			tb_out_raw(&b, "abcd", 4);
		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		assert_int_equal(ckt_decode_tail(d), want[k]);
		ckt_decode_close(d);
		tb_release(&b);
	}
}

static void test_header_errors(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };

	/* wrong magic */
	tb_init(&b);
	tb_raw(&b, "NOTATRC", 8);
	tb_u8(&b, 1);
	tb_u8(&b, 0);
	tb_uv(&b, 0);
	tb_flush(&b);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), CKT_EFORMAT);
	assert_null(d);
	assert_string_equal(err.msg, "not a cuzktrace trace");
	tb_release(&b);

	/* wrong version */
	tb_init(&b);
	tb_header_kv(&b, 9, NULL);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "unsupported format version 9 (this reader reads 1 to 8)");
	tb_release(&b);

	/* header without its terminating empty key */
	tb_init(&b);
	tb_raw(&b, CKT_MAGIC, CKT_MAGIC_LEN);
	tb_u8(&b, 1);
	tb_u8(&b, 0);
	tb_str(&b, "pid", 3);
	tb_flush(&b);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "corrupt header: it ends inside the value of a key");
	tb_release(&b);

	/* empty, not zstd, short, nonexistent */
	assert_int_equal(open_bytes("", 0, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "empty file");
	assert_int_equal(open_bytes("hello, world\n", 13, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "not a cuzktrace trace");
	assert_int_equal(open_bytes("hi", 2, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "not a cuzktrace trace");
	assert_int_equal(ckt_decode_open("/nonexistent/trace.ckt", &d, &err), CKT_EIO);
	assert_string_equal(err.msg, "No such file or directory");

	/* a zstd file of something else */
	tb_init(&b);
	tb_raw(&b, "just some text that is not a trace", 34);
	tb_flush(&b);
	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "not a cuzktrace trace");
	tb_release(&b);

	/* cut inside the header frame */
	tb_init(&b);
	tb_header(&b);
	assert_int_equal(open_bytes(b.out, b.out_len - 3, &d, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, "the file ends inside the header frame");
	tb_release(&b);

	/* bounds (the tracer writes about 30 keys, a few KiB): 1024 keys are read, 1025 and a
	 * key twice are not, nor a header over 1 MiB */
	for (int k = 0; k < 4; k++) {
		char key[16];
		tb_init(&b);
		tb_raw(&b, CKT_MAGIC, CKT_MAGIC_LEN);
		tb_u8(&b, 1);
		tb_u8(&b, 0);
		for (int i = 0; i < (k == 1 ? 1025 : k == 0 ? 1024 : 2); i++) {
			snprintf(key, sizeof(key), "k%d", k == 2 ? 0 : i);
			tb_str(&b, key, strlen(key));
			if (k == 3 && i == 1) {
				static char big[(1 << 20) + 1];
				memset(big, 'x', sizeof(big));
				tb_str(&b, big, sizeof(big));
			} else {
				tb_str(&b, "v", 1);
			}
		}
		tb_uv(&b, 0);
		tb_flush(&b);
		static const char *const msgs[4] = { NULL, "corrupt header: more than 1024 keys",
						     "corrupt header: a key appears twice",
						     "corrupt header: larger than 1024 KiB" };
		d = NULL;
		int rc = open_bytes(b.out, b.out_len, &d, &err);
		if (k == 0) {
			assert_int_equal(rc, 0);
			assert_string_equal(ckt_decode_header_get(d, "k1023"), "v");
			ckt_decode_close(d);
		} else {
			assert_int_equal(rc, CKT_EFORMAT);
			assert_string_equal(err.msg, msgs[k]);
		}
		tb_release(&b);
	}
}

/* ---- records ---- */

static void next_ok(struct ckt_decoder *d, struct ckt_record *r, enum ckt_tag tag)
{
	struct ckt_error err = { 0 };
	int rc = ckt_decode_next(d, r, &err);
	if (rc != 1)
		fail_msg("expected a record, got %d: %s", rc, err.msg);
	assert_int_equal(r->tag, tag);
}

static void test_records_and_deltas(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_decoder *d;
	struct ckt_record r;
	struct ckt_error err = { 0 };

	tb_init(&b);
	tb_header(&b);
	tb_frame(&b, 1000);
	tb_thread(&b, 7);
	tb_alloc_ex(&b, 1010, 0x7fff00001000ull, 48, CKT_FN_CALLOC, 5, 2);
	tb_free(&b, 1020, 0x7fff00000010ull); /* negative address delta */
	tb_realloc(&b, 1030, 0x7fff00000010ull, 40, 0x10000, 4096);
	tb_thread(&b, 8);                     /* resets ts to base and addr to 0 */
	tb_mmap(&b, 1005, 0x7f0000000000ull, 8192, CKT_MAP_ANON | CKT_MAP_SHARED);
	tb_munmap(&b, 1006, 0x7f0000001000ull, 4096);
	tb_mremap(&b, 1007, 0x7f0000000000ull, 4096, 0x7e0000000000ull, 65536);
	tb_rss(&b, 1008, 123456789);
	tb_rss_detail(&b, 1009, 1, 2, 3, 4);
	tb_thread_name(&b, 5, 8, "gpu-worker");
	tb_lost(&b, 9);
	tb_sync(&b, 1500);
	tb_flush(&b);
	tb_frame(&b, 2000);
	tb_module(&b, 0x7f0000000000ull, 0x7f0000001000ull, 0x7f0000009000ull, "/lib/libc.so.6", "ab12");
	static const uint64_t frames[] = { 0x401000, 0x7f0000001234ull, 0x400010 };
	tb_stack(&b, 42, frames, 3);
	tb_cuda_device(&b, 0, "GPU-1234", "NVIDIA H200");
	tb_thread(&b, 7);
	tb_cuda_alloc(&b, 2000, CKT_CUDA_DEVICE, 0, 0x7d0000000000ull, 1 << 30, 42, 3, 5);
	tb_cuda_free(&b, 2000, CKT_CUDA_DEVICE, 0x7d0000000000ull, 6);
	tb_free(&b, 2001, 0x10000);
	tb_end(&b, 3000, CKT_END_EXEC, 11, 9);
	tb_flush(&b);
	/* a frame after the END frame is not read, whatever it holds */
	tb_out_raw(&b, "garbage", 7);

	assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
	next_ok(d, &r, CKT_TAG_ALLOC);
	assert_int_equal(r.tid, 7);
	assert_int_equal(r.ts, 1010);
	assert_int_equal(r.u.alloc.addr, 0x7fff00001000ull);
	assert_int_equal(r.u.alloc.size, 48);
	assert_int_equal(r.u.alloc.fn, CKT_FN_CALLOC);
	assert_int_equal(r.u.alloc.stack, 5);
	assert_int_equal(r.u.alloc.phase, 2);
	next_ok(d, &r, CKT_TAG_FREE);
	assert_int_equal(r.ts, 1020);
	assert_int_equal(r.u.free.addr, 0x7fff00000010ull);
	next_ok(d, &r, CKT_TAG_REALLOC);
	assert_int_equal(r.ts, 1030);
	assert_int_equal(r.u.realloc.old_addr, 0x7fff00000010ull);
	assert_int_equal(r.u.realloc.dafter, 40);
	assert_int_equal(r.u.realloc.new_addr, 0x10000);
	assert_int_equal(r.u.realloc.size, 4096);
	next_ok(d, &r, CKT_TAG_MMAP);
	assert_int_equal(r.tid, 8);
	assert_int_equal(r.ts, 1005);
	assert_int_equal(r.u.mmap.addr, 0x7f0000000000ull);
	assert_int_equal(r.u.mmap.len, 8192);
	assert_int_equal(r.u.mmap.flags, CKT_MAP_ANON | CKT_MAP_SHARED);
	assert_int_equal(r.u.mmap.prot, 3);
	next_ok(d, &r, CKT_TAG_MUNMAP);
	assert_int_equal(r.ts, 1006);
	assert_int_equal(r.u.munmap.addr, 0x7f0000001000ull);
	assert_int_equal(r.u.munmap.len, 4096);
	next_ok(d, &r, CKT_TAG_MREMAP);
	assert_int_equal(r.u.mremap.old_addr, 0x7f0000000000ull);
	assert_int_equal(r.u.mremap.old_len, 4096);
	assert_int_equal(r.u.mremap.new_addr, 0x7e0000000000ull);
	assert_int_equal(r.u.mremap.new_len, 65536);
	assert_int_equal(r.u.mremap.dafter, 0); /* version 1: no dafter */
	next_ok(d, &r, CKT_TAG_RSS);
	assert_int_equal(r.ts, 1008);
	assert_int_equal(r.u.rss.rss, 123456789);
	next_ok(d, &r, CKT_TAG_RSS_DETAIL);
	assert_int_equal(r.ts, 1009);
	assert_int_equal(r.u.rss_detail.hwm, 1);
	assert_int_equal(r.u.rss_detail.anon, 2);
	assert_int_equal(r.u.rss_detail.file, 3);
	assert_int_equal(r.u.rss_detail.shmem, 4);
	next_ok(d, &r, CKT_TAG_THREAD_NAME);
	assert_int_equal(r.ts, 5);
	assert_int_equal(r.u.thread_name.tid, 8);
	assert_int_equal(r.u.thread_name.len, 10);
	assert_memory_equal(r.u.thread_name.name, "gpu-worker", 10);
	next_ok(d, &r, CKT_TAG_LOST);
	assert_int_equal(r.u.lost.count, 9);
	next_ok(d, &r, CKT_TAG_SYNC);
	assert_int_equal(r.ts, 1500);
	next_ok(d, &r, CKT_TAG_MODULE);
	assert_int_equal(r.u.module.base, 0x7f0000000000ull);
	assert_int_equal(r.u.module.lo, 0x7f0000001000ull);
	assert_int_equal(r.u.module.hi, 0x7f0000009000ull);
	assert_int_equal(r.u.module.path_len, 14);
	assert_memory_equal(r.u.module.path, "/lib/libc.so.6", 14);
	assert_int_equal(r.u.module.build_id_len, 4);
	next_ok(d, &r, CKT_TAG_STACK);
	assert_int_equal(r.u.stack.id, 42);
	assert_int_equal(r.u.stack.nframes, 3);
	{
		const uint8_t *p = r.u.stack.frames, *e = p + r.u.stack.frames_len;
		uint64_t pc = 0;
		for (int k = 0; k < 3; k++) {
			int64_t dlt = 0;
			p = ckt_get_sv(p, e, &dlt);
			assert_non_null(p);
			pc += (uint64_t)dlt;
			assert_int_equal(pc, frames[k]);
		}
		assert_ptr_equal(p, e);
	}
	next_ok(d, &r, CKT_TAG_CUDA_DEVICE);
	assert_int_equal(r.u.cuda_device.ordinal, 0);
	assert_memory_equal(r.u.cuda_device.uuid, "GPU-1234", 8);
	assert_int_equal(r.u.cuda_device.name_len, 11);
	next_ok(d, &r, CKT_TAG_CUDA_ALLOC);
	assert_int_equal(r.tid, 7);
	assert_int_equal(r.ts, 2000);
	assert_int_equal(r.u.cuda_alloc.kind, CKT_CUDA_DEVICE);
	assert_int_equal(r.u.cuda_alloc.addr, 0x7d0000000000ull);
	assert_int_equal(r.u.cuda_alloc.size, 1 << 30);
	assert_int_equal(r.u.cuda_alloc.stack, 42);
	assert_int_equal(r.u.cuda_alloc.phase, 3);
	assert_int_equal(r.u.cuda_alloc.fn, 5);
	next_ok(d, &r, CKT_TAG_CUDA_FREE);
	assert_int_equal(r.u.cuda_free.addr, 0x7d0000000000ull);
	assert_int_equal(r.u.cuda_free.fn, 6);
	next_ok(d, &r, CKT_TAG_FREE);
	assert_int_equal(r.tid, 7);
	assert_int_equal(r.ts, 2001);
	assert_int_equal(r.u.free.addr, 0x10000);
	next_ok(d, &r, CKT_TAG_END);
	assert_int_equal(r.ts, 3000);
	assert_int_equal(r.u.end.reason, CKT_END_EXEC);
	assert_int_equal(r.u.end.events, 11);
	assert_int_equal(r.u.end.lost, 9);
	assert_int_equal(ckt_decode_next(d, &r, &err), 0);
	assert_false(ckt_decode_truncated(d));
	ckt_decode_close(d);
	tb_release(&b);
}

static void expect_run_error(const struct tb *b, const char *msg)
{
	struct ckt_error err = { 0 };
	struct ckt_replay_stats st;
	assert_int_equal(run_bytes(b->out, b->out_len, &st, &err), CKT_EFORMAT);
	assert_string_equal(err.msg, msg);
}

static void expect_run_ok(const struct tb *b)
{
	struct ckt_error err = { 0 };
	struct ckt_replay_stats st;
	assert_int_equal(run_bytes(b->out, b->out_len, &st, &err), 0);
}

/* A version 2 data frame made by hand: ROW holds the tags and the ROW records, the columns the
 * fields of ALLOC, FREE and REALLOC (ckt_format.h). */
struct cols {
	struct tb s[CKT_NSTREAMS];
	uint64_t prev_ts;
};

static void cols_ts(struct cols *c, int lo, uint64_t ts)
{
	uint64_t dv = ts - c->prev_ts; /* small and positive here: no escape */
	c->prev_ts = ts;
	tb_u8(&c->s[lo], (uint8_t)dv);
	tb_u8(&c->s[lo + 1], (uint8_t)(dv >> 8));
}

static void cols_size(struct cols *c, uint64_t size)
{
	tb_u8(&c->s[CKT_S_SIZE_LO], (uint8_t)size);
	tb_u8(&c->s[CKT_S_SIZE_HI], (uint8_t)(size >> 8));
}

/* an address the model misses: ACODE 0xff, ADDR the delta from its base */
static void cols_miss(struct cols *c, int64_t delta)
{
	tb_u8(&c->s[CKT_S_ACODE], CKT_ACODE_MISS);
	tb_sv(&c->s[CKT_S_ADDR], delta);
}

static void cols_flush(struct cols *c, struct tb *b)
{
	tb_uv(b, CKT_NSTREAMS);
	for (int k = 0; k < CKT_NSTREAMS; k++)
		tb_uv(b, c->s[k].len);
	for (int k = 0; k < CKT_NSTREAMS; k++) {
		tb_raw(b, c->s[k].buf, c->s[k].len);
		tb_release(&c->s[k]);
	}
	tb_flush(b);
}

/* An ALLOC in the columns: its stamp, function, size, the address model's miss of delta, stack
 * and phase. */
static void cols_alloc(struct cols *c, uint64_t ts, uint64_t fn, uint64_t size, int64_t delta, uint64_t stack,
		       uint64_t phase)
{
	tb_u8(&c->s[CKT_S_ROW], CKT_TAG_ALLOC);
	cols_ts(c, CKT_S_TS_LO, ts);
	tb_uv(&c->s[CKT_S_META], fn);
	cols_size(c, size);
	cols_miss(c, delta);
	tb_uv(&c->s[CKT_S_META], stack);
	tb_uv(&c->s[CKT_S_META], phase);
}

/* ckt_decode_heap: a run of ALLOC and FREE records of one thread group goes straight into queue
 * entries, with each ALLOC's seq and each FREE's pair, and stops at any other record (REALLOC,
 * THREAD), where ckt_decode_batch reads on; a field out of range is said as ckt_decode_next
 * says it, after the records before it. */
static void test_heap_runs(void **state)
{
	(void)state;
	static const char *const kv[] = { "pid", "1", "page_size", "4096", NULL };
	struct tb b;
	struct cols c;
	struct ckt_decoder *d;
	struct ckt_record r;
	struct ckt_error err = { 0 };
	struct ckt_ev ev[8];
	uint64_t aux[8], tid = 0;
	size_t n;
	int rc;

	for (int bad = 0; bad < 2; bad++) {
		tb_init(&b);
		tb_header_kv(&b, CKT_FORMAT_VERSION, kv);
		for (int k = 0; k < CKT_NSTREAMS; k++)
			tb_init(&c.s[k]);
		struct tb *row = &c.s[CKT_S_ROW], *meta = &c.s[CKT_S_META];
		tb_u8(row, CKT_TAG_FRAME);
		tb_uv(row, 0);
		tb_uv(row, 1000);
		tb_u8(row, CKT_TAG_THREAD);
		tb_uv(row, 7);
		c.prev_ts = 1000;
		/* ALLOC 0x10000 (32 bytes: class 3), seq 1 */
		cols_alloc(&c, 1001, CKT_FN_MALLOC, 32, 0x10000, 0, 0);
		/* ALLOC 0x20000 (48 bytes: class 4) by calloc, stack 5, phase 2 (or out of range), seq 2 */
		cols_alloc(&c, 1002, CKT_FN_CALLOC, 48, 0x20000 - (0x10000 + 16 * 3), 5, bad ? CKT_MAX_PHASE_ID + 1 : 2);
		/* FREE of the newest allocation (code 0): paired with seq 2 */
		tb_u8(row, CKT_TAG_FREE);
		cols_ts(&c, CKT_S_TSF_LO, 1003);
		tb_u8(&c.s[CKT_S_ACODE], 0);
		/* FREE of an address the model does not hold: no pair */
		tb_u8(row, CKT_TAG_FREE);
		cols_ts(&c, CKT_S_TSF_LO, 1004);
		cols_miss(&c, 0x990000);
		/* REALLOC of 0x10000 (code 0) to 0x30000, 64 bytes (class 5), seq 3 */
		tb_u8(row, CKT_TAG_REALLOC);
		cols_ts(&c, CKT_S_TS_LO, 1005);
		tb_u8(&c.s[CKT_S_ACODE], 0);
		tb_uv(meta, 1);
		cols_size(&c, 64);
		cols_miss(&c, 0x30000 - (0x20000 + 16 * 4));
		tb_uv(meta, 0);
		tb_uv(meta, 0);
		/* ALLOC 0x40000 (16 bytes: class 2), seq 4 */
		cols_alloc(&c, 1006, CKT_FN_MALLOC, 16, 0x40000 - (0x30000 + 16 * 5), 0, 0);
		/* another thread: the model and the time start over */
		tb_u8(row, CKT_TAG_THREAD);
		tb_uv(row, 8);
		c.prev_ts = 1000;
		cols_alloc(&c, 1007, CKT_FN_MALLOC, 16, 0x50000, 0, 0);
		tb_u8(row, CKT_TAG_SYNC);
		tb_uv(row, 2000);
		cols_flush(&c, &b);

		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		assert_false(ckt_decode_heap_next(d, &tid)); /* no frame read yet */
		assert_int_equal(ckt_decode_batch(d, &r, 1, &n, &err), 1);
		assert_int_equal(n, 1);
		assert_int_equal(r.tag, CKT_TAG_ALLOC);
		assert_int_equal(r.u.alloc.addr, 0x10000);
		assert_int_equal(r.u.alloc.seq, 1);
		assert_true(ckt_decode_heap_next(d, &tid));
		assert_int_equal(tid, 7);
		if (bad) {
			/* the error of ckt_decode_next, no record before it */
			n = ckt_decode_heap(d, ev, aux, 8, &rc, &err);
			assert_int_equal(n, 0);
			assert_true(rc < 0);
			assert_string_equal(err.msg, "corrupt record (tag 0x10) in frame 1: phase id 4097 is out of range (at most 4096)");
			ckt_decode_close(d);
			tb_release(&b);
			continue;
		}
		n = ckt_decode_heap(d, ev, aux, 8, &rc, &err);
		assert_int_equal(rc, 1);
		assert_int_equal(n, 3);
		assert_int_equal(ev[0].kind, CKT_EV_ALLOC);
		assert_int_equal(ev[0].ts, 1002);
		assert_int_equal(ev[0].addr, 0x20000);
		assert_int_equal(ev[0].len, 48);
		assert_int_equal(ev[0].fn, CKT_FN_CALLOC);
		assert_int_equal(ev[0].stack, 5);
		assert_int_equal(ev[0].phase, 2);
		assert_int_equal(ev[0].flags, 0);
		assert_int_equal(aux[0], 2);
		assert_int_equal(ev[1].kind, CKT_EV_FREE);
		assert_int_equal(ev[1].ts, 1003);
		assert_int_equal(ev[1].addr, 0x20000);
		assert_int_equal(ev[1].flags, 0);
		assert_int_equal(aux[1], 2);
		assert_int_equal(ev[2].kind, CKT_EV_FREE);
		assert_int_equal(ev[2].ts, 1004);
		assert_int_equal(ev[2].addr, 0x990000);
		assert_int_equal(aux[2], 0);
		/* REALLOC: not a run's */
		assert_false(ckt_decode_heap_next(d, &tid));
		assert_int_equal(ckt_decode_heap(d, ev, aux, 8, &rc, &err), 0);
		assert_int_equal(rc, 1);
		assert_int_equal(ckt_decode_batch(d, &r, 1, &n, &err), 1);
		assert_int_equal(r.tag, CKT_TAG_REALLOC);
		assert_int_equal(r.u.realloc.old_addr, 0x10000);
		assert_int_equal(r.u.realloc.pair, 1);
		assert_int_equal(r.u.realloc.new_addr, 0x30000);
		/* max bounds a run; the THREAD ends it */
		assert_true(ckt_decode_heap_next(d, &tid));
		assert_int_equal(ckt_decode_heap(d, ev, aux, 1, &rc, &err), 1);
		assert_int_equal(ev[0].kind, CKT_EV_ALLOC);
		assert_int_equal(ev[0].addr, 0x40000);
		assert_int_equal(ev[0].ts, 1006);
		assert_int_equal(aux[0], 4);
		assert_false(ckt_decode_heap_next(d, &tid));
		assert_int_equal(ckt_decode_heap(d, ev, aux, 8, &rc, &err), 0);
		next_ok(d, &r, CKT_TAG_ALLOC);
		assert_int_equal(r.tid, 8);
		assert_int_equal(r.ts, 1007);
		assert_int_equal(r.u.alloc.addr, 0x50000);
		next_ok(d, &r, CKT_TAG_SYNC);
		assert_int_equal(ckt_decode_next(d, &r, &err), 0); /* every stream used up */
		ckt_decode_close(d);
		tb_release(&b);
	}
}

/* A version 2 frame of a FRAME and a SYNC record in its ROW stream, its column streams said to
 * hold len[1] to len[CKT_NSTREAMS - 1] bytes (none written: the caller adds what it wants,
 * then flushes) */
static void rows_frame(struct tb *b, const uint64_t *len)
{
	struct tb row;
	tb_init(b);
	tb_header_kv(b, CKT_FORMAT_VERSION, NULL);
	tb_init(&row);
	tb_u8(&row, CKT_TAG_FRAME);
	tb_uv(&row, 0);
	tb_uv(&row, 1000);
	tb_u8(&row, CKT_TAG_SYNC);
	tb_uv(&row, 2000);
	tb_uv(b, CKT_NSTREAMS);
	tb_uv(b, row.len);
	for (int k = 1; k < CKT_NSTREAMS; k++)
		tb_uv(b, len[k]);
	tb_raw(b, row.buf, row.len);
	tb_release(&row);
}

/* Stream lengths of a version 2 frame whose sum wraps 2^64 to the frame's size (two of 2^63)
 * do not add up: refused, not taken for streams that run outside the frame. */
static void test_stream_lengths_wrap(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_error err = { 0 };
	struct ckt_replay_stats st;
	for (int wrap = 0; wrap < 2; wrap++) {
		uint64_t len[CKT_NSTREAMS] = { 0 };
		len[1] = len[2] = wrap ? (uint64_t)1 << 63 : 0;
		rows_frame(&b, len);
		tb_flush(&b);
		if (wrap) {
			expect_run_error(&b, "corrupt frame 1: its stream lengths do not add up to its size");
		} else {
			assert_int_equal(run_bytes(b.out, b.out_len, &st, &err), 0);
			assert_true(st.truncated);
		}
		tb_release(&b);
	}
}

/* A byte that no record reads, in any one of a version 2 frame's column streams (1 to 10): the
 * frame is refused, the stream named. */
static void test_stream_leftover_each(void **state)
{
	(void)state;
	struct tb b;
	for (int s = 1; s < CKT_NSTREAMS; s++) {
		uint64_t len[CKT_NSTREAMS] = { 0 };
		len[s] = 1;
		rows_frame(&b, len);
		tb_u8(&b, 0);
		tb_flush(&b);
		char want[96];
		snprintf(want, sizeof(want), "corrupt frame 1: stream %d has 1 bytes no record uses", s);
		expect_run_error(&b, want);
		tb_release(&b);
	}
}

/* A column frame for the tests below: thread 7's first ALLOC whole (at 1001), the next
 * record's columns to be written into c. */
static void cols_begin(struct tb *b, struct cols *c)
{
	tb_init(b);
	tb_header_kv(b, CKT_FORMAT_VERSION, NULL);
	for (int k = 0; k < CKT_NSTREAMS; k++)
		tb_init(&c->s[k]);
	struct tb *row = &c->s[CKT_S_ROW];
	tb_u8(row, CKT_TAG_FRAME);
	tb_uv(row, 0);
	tb_uv(row, 1000);
	tb_u8(row, CKT_TAG_THREAD);
	tb_uv(row, 7);
	c->prev_ts = 1000;
	cols_alloc(c, 1001, CKT_FN_MALLOC, 32, 0x10000, 0, 0);
}

/* b's frame (cols_begin's, flushed): the first ALLOC read, the record after it refused with
 * want, read by ckt_decode_heap (heap) or ckt_decode_next. Releases b. */
static void expect_second_refused(struct tb *b, bool heap, const char *want)
{
	struct ckt_decoder *d;
	struct ckt_record r;
	struct ckt_error err = { 0 };
	struct ckt_ev ev[4];
	uint64_t aux[4], tid = 0;
	size_t n;
	int rc;
	assert_int_equal(open_bytes(b->out, b->out_len, &d, &err), 0);
	assert_int_equal(ckt_decode_batch(d, &r, 1, &n, &err), 1);
	assert_int_equal(r.tag, CKT_TAG_ALLOC);
	if (heap) {
		assert_true(ckt_decode_heap_next(d, &tid));
		n = ckt_decode_heap(d, ev, aux, 4, &rc, &err);
		assert_int_equal(n, 0);
		assert_int_equal(rc, CKT_EFORMAT);
	} else {
		assert_int_equal(ckt_decode_next(d, &r, &err), CKT_EFORMAT);
	}
	assert_string_equal(err.msg, want);
	ckt_decode_close(d);
	tb_release(b);
}

/* A FREE whose stamp columns (TSF) ran out, or an ALLOC whose stamp columns (TS) did: refused
 * by ckt_decode_heap as by ckt_decode_next, with the same line. */
static void test_heap_short_stamps(void **state)
{
	(void)state;
	for (int way = 0; way < 4; way++) {
		struct tb b;
		struct cols c;
		bool free_short = way % 2 == 0;
		cols_begin(&b, &c);
		struct tb *row = &c.s[CKT_S_ROW];
		if (free_short) {
			tb_u8(row, CKT_TAG_FREE); /* no stamp in TSF_LO and TSF_HI */
			tb_u8(&c.s[CKT_S_ACODE], 0);
		} else {
			tb_u8(row, CKT_TAG_ALLOC); /* no stamp in TS_LO and TS_HI */
			tb_uv(&c.s[CKT_S_META], CKT_FN_MALLOC);
			cols_size(&c, 32);
			cols_miss(&c, 0x1000);
			tb_uv(&c.s[CKT_S_META], 0);
			tb_uv(&c.s[CKT_S_META], 0);
		}
		cols_flush(&c, &b);
		expect_second_refused(&b, way < 2,
				      free_short ? "corrupt record (tag 0x11) in frame 1: its columns are short or inconsistent"
						 : "corrupt record (tag 0x10) in frame 1: its columns are short or inconsistent");
	}
}

/* A size plane holding the escape (0xffff) with nothing left in ESC: refused, in an ALLOC read
 * by ckt_decode_next or ckt_decode_heap and in a REALLOC, not read as a size of 0. */
static void test_columns_escape_short(void **state)
{
	(void)state;
	for (int way = 0; way < 3; way++) {
		struct tb b;
		struct cols c;
		cols_begin(&b, &c);
		struct tb *row = &c.s[CKT_S_ROW], *meta = &c.s[CKT_S_META];
		if (way < 2) {
			tb_u8(row, CKT_TAG_ALLOC);
			cols_ts(&c, CKT_S_TS_LO, 1002);
			tb_uv(meta, CKT_FN_MALLOC);
			cols_size(&c, CKT_PLANE_ESC);
			cols_miss(&c, 0x1000);
			tb_uv(meta, 0);
			tb_uv(meta, 0);
		} else {
			tb_u8(row, CKT_TAG_REALLOC);
			cols_ts(&c, CKT_S_TS_LO, 1002);
			cols_miss(&c, 0x1000);
			tb_uv(meta, 0);
			cols_size(&c, CKT_PLANE_ESC);
			cols_miss(&c, 0x1000);
			tb_uv(meta, 0);
			tb_uv(meta, 0);
		}
		cols_flush(&c, &b);
		expect_second_refused(&b, way == 1,
				      way < 2 ? "corrupt record (tag 0x10) in frame 1: its columns are short or inconsistent"
					      : "corrupt record (tag 0x12) in frame 1: its columns are short or inconsistent");
	}
}

/* A varint of ten bytes whose last holds more than bit 63, as the frame's last bytes: a number of
 * more than 64 bits (ten bytes were there to read), not a record cut by the frame's end; nine
 * bytes with the continuation bit are the latter. */
static void test_overlong_at_end(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct tb b;
		tb_start(&b, 1);
		tb_alloc(&b, 1, 0x1000, 16);
		tb_u8(&b, CKT_TAG_LOST);
		for (int i = 0; i < 9; i++)
			tb_u8(&b, 0xff);
		if (k == 0)
			tb_u8(&b, 0x7f);
		tb_flush(&b);
		expect_run_error(&b, k == 0 ? "corrupt record (tag 0x05) in frame 1: a number of more than 64 bits"
					    : "corrupt record (tag 0x05) in frame 1: it runs past the end of the frame");
		tb_release(&b);
	}
}

static void test_corrupt_records(void **state)
{
	(void)state;
	struct tb b;

	/* unknown tag */
	tb_start(&b, 1);
	tb_alloc(&b, 1, 0x1000, 1);
	tb_u8(&b, 0x99);
	tb_flush(&b);
	expect_run_error(&b, "corrupt record (tag 0x99) in frame 1: no record has this tag");
	tb_release(&b);

	/* reserved tags are refused by a version-1 reader */
	tb_begin(&b);
	tb_sync(&b, 1);
	tb_flush(&b);
	tb_frame(&b, 0);
	tb_u8(&b, 0x31); /* no record has this tag */
	tb_uv(&b, 1);
	tb_flush(&b);
	expect_run_error(&b, "corrupt record (tag 0x31) in frame 2: no record has this tag");
	tb_release(&b);

	/* a STACK whose frame count exceeds what the frame holds */
	tb_begin(&b);
	tb_u8(&b, CKT_TAG_STACK);
	tb_uv(&b, 1);
	tb_uv(&b, 1000000000000ull);
	tb_sv(&b, 5);
	tb_flush(&b);
	expect_run_error(&b, "corrupt record (tag 0x20) in frame 1: it runs past the end of the frame");
	tb_release(&b);

	/* a stack id or phase id defined twice: the same definition again is harmless, another
	 * one is refused (the reader would keep one of them without a word); a different id
	 * with the same frames or name is fine */
	for (int k = 0; k < 4; k++) {
		static const uint64_t f1[2] = { 0x401000, 0x402000 }, f2[2] = { 0x401000, 0x403000 };
		tb_begin(&b);
		if (k < 2) {
			tb_stack(&b, 7, f1, 2);
			tb_stack(&b, 8, f1, 2);
			tb_sync(&b, 1);
			tb_flush(&b);
			tb_frame(&b, 0);
			tb_stack(&b, 7, k ? f2 : f1, 2);
		} else {
			tb_phase_def(&b, 3, "prove");
			tb_phase_def(&b, 4, "prove");
			tb_phase_def(&b, 3, k == 3 ? "proof" : "prove");
		}
		tb_sync(&b, 2);
		tb_flush(&b);
		if (k == 1)
			expect_run_error(&b, "corrupt record (tag 0x20) in frame 2: stack id 7 defined a second "
					     "time, with other frames");
		else if (k == 3)
			expect_run_error(&b, "corrupt record (tag 0x22) in frame 1: phase id 3 defined a second "
					     "time, with another name");
		else
			expect_run_ok(&b);
		tb_release(&b);
	}

	/* a record cut short by the end of its frame */
	tb_begin(&b);
	tb_u8(&b, CKT_TAG_ALLOC);
	tb_sv(&b, 5);
	tb_uv(&b, 0);
	tb_flush(&b);
	expect_run_error(&b, "corrupt record (tag 0x10) in frame 1: it runs past the end of the frame");
	tb_release(&b);

	/* a data frame must begin with FRAME */
	tb_init(&b);
	tb_header(&b);
	tb_thread(&b, 1);
	tb_flush(&b);
	expect_run_error(&b,
			 "corrupt record (tag 0x02) in frame 1: a data frame must start with a FRAME record");
	tb_release(&b);

	/* a FRAME record inside a frame (its delta state would start over there), and an empty
	 * zstd frame between two data frames: each frame begins with FRAME, and only there */
	tb_start(&b, 1);
	tb_alloc(&b, 1, 0x1000, 16);
	tb_frame(&b, 10);
	tb_flush(&b);
	expect_run_error(&b, "corrupt record (tag 0x01) in frame 1: a FRAME record inside a frame");
	tb_release(&b);
	tb_begin(&b);
	tb_sync(&b, 5);
	tb_flush(&b);
	tb_flush(&b); /* nothing in it */
	tb_frame(&b, 10);
	tb_sync(&b, 15);
	tb_flush(&b);
	expect_run_error(&b, "corrupt frame 2: it is empty (a zstd frame with no data)");
	tb_release(&b);

	/* fields the tracer writes from a small range and the replay keeps in fewer bits: the
	 * largest value is read, the next one refused (it was cut to its low bits: a phase id of
	 * 2^32 + 1 became phase 1) */
	for (int k = 0; k < 2 * 8; k++) {
		uint64_t x = (uint64_t)(k % 2);
		tb_begin(&b);
		switch (k / 2) {
		case 0:
			tb_thread(&b, UINT32_MAX + x);
			tb_alloc(&b, 1, 0x1000, 16);
			break;
		case 1:
			tb_thread(&b, 1);
			tb_alloc_ex(&b, 1, 0x1000, 16, CKT_FN_MALLOC, 0, CKT_MAX_PHASE_ID + x);
			break;
		case 2:
			tb_thread(&b, 1);
			tb_alloc_ex(&b, 1, 0x1000, 16, 0x7f + x * 0x81, 0, 0);
			break;
		case 3:
			tb_phase_def(&b, CKT_MAX_PHASE_ID + x, "p");
			break;
		case 4:
			tb_thread(&b, 1);
			tb_phase(&b, 1, CKT_PHASE_END + x, 1);
			break;
		case 5:
			tb_thread(&b, 1);
			tb_cuda_alloc(&b, 1, CKT_CUDA_REGISTERED + x, 0, 0x7f0000000000ull, 4096, 0, 0,
				      CKT_CU_MEM_HOST_REGISTER);
			break;
		case 6:
			tb_thread(&b, 1);
			tb_mmap(&b, 1, 0x7f0000000000ull, 4096, 0xffff + x);
			break;
		case 7:
			tb_thread_exit(&b, 1, UINT32_MAX + x);
			break;
		}
		tb_sync(&b, 10);
		tb_flush(&b);
		if (x) {
			static const char *const msgs[8] = {
				"corrupt record (tag 0x02) in frame 1: thread id 4294967296 is out of range (at most 4294967295)",
				"corrupt record (tag 0x10) in frame 1: phase id 4097 is out of range (at most 4096)",
				"corrupt record (tag 0x10) in frame 1: function 256 is out of range (at most 255)",
				"corrupt record (tag 0x22) in frame 1: phase id 4097 is out of range (at most 4096)",
				"corrupt record (tag 0x23) in frame 1: phase operation 4 is out of range (at most 3)",
				"corrupt record (tag 0x28) in frame 1: CUDA kind 6 is out of range (at most 5)",
				"corrupt record (tag 0x13) in frame 1: mapping flags 65536 is out of range (at most 65535)",
				"corrupt record (tag 0x07) in frame 1: thread id 4294967296 is out of range (at most 4294967295)",
			};
			expect_run_error(&b, msgs[k / 2]);
		} else {
			struct ckt_error err = { 0 };
			struct ckt_replay_stats st;
			assert_int_equal(run_bytes(b.out, b.out_len, &st, &err), 0);
		}
		tb_release(&b);
	}

	/* strings longer than any the tracer writes (names and notes cut at 1024 bytes, paths at
	 * 4096): the longest is read, one byte more refused (a 200,000-byte name per thread of a
	 * forged 80 KB trace took 2 GB) */
	for (int k = 0; k < 2 * 3; k++) {
		static char s[CKT_MAX_PATH + 1];
		size_t x = (size_t)(k % 2);
		memset(s, 'a', sizeof(s));
		s[0] = '/';
		tb_begin(&b);
		if (k / 2 == 0) {
			tb_u8(&b, CKT_TAG_THREAD_NAME);
			tb_uv(&b, 1);
			tb_uv(&b, 7);
			tb_str(&b, s, CKT_MAX_STR + x);
		} else if (k / 2 == 1) {
			tb_u8(&b, CKT_TAG_PHASE_DEF);
			tb_uv(&b, 1);
			tb_str(&b, s, CKT_MAX_STR + x);
		} else {
			tb_u8(&b, CKT_TAG_MODULE);
			tb_uv(&b, 0x400000);
			tb_uv(&b, 0x400000);
			tb_uv(&b, 0x500000);
			tb_str(&b, s, CKT_MAX_PATH + x);
			tb_str(&b, "", 0);
		}
		tb_sync(&b, 10);
		tb_flush(&b);
		if (x) {
			static const char *const msgs[3] = {
				"corrupt record (tag 0x06) in frame 1: name length 1025 is out of range (at most 1024)",
				"corrupt record (tag 0x22) in frame 1: name length 1025 is out of range (at most 1024)",
				"corrupt record (tag 0x21) in frame 1: path length 4097 is out of range (at most 4096)",
			};
			expect_run_error(&b, msgs[k / 2]);
		} else {
			struct ckt_error err = { 0 };
			struct ckt_replay_stats st;
			assert_int_equal(run_bytes(b.out, b.out_len, &st, &err), 0);
		}
		tb_release(&b);
	}

	/* running totals (AGG, the default mode's) in a trace of the exact mode */
	tb_start(&b, 1);
	tb_agg(&b, 1, 4096, 1);
	tb_flush(&b);
	expect_run_error(&b, "corrupt trace: running totals (AGG) in a trace of the exact mode (its header's CUZKTRACE_SAMPLE is 0 or missing)");
	tb_release(&b);

	/* the sampled bit (a sample of the default mode) in a trace of the exact mode, which has
	 * no sampling rate to weigh it by */
	tb_start(&b, 1);
	tb_alloc_ex(&b, 1, 0x1000, 16, CKT_FN_MALLOC | CKT_FN_SAMPLED, 0, 0);
	tb_flush(&b);
	expect_run_error(&b, "corrupt trace: a sampled allocation in a trace of the exact mode (its header's CUZKTRACE_SAMPLE is 0 or missing)");
	tb_release(&b);

	/* a data frame missing (numbers 0, 1, 3), one repeated (0, 1, 1), two swapped (0, 2, 1),
	 * and the first missing (1, 2, 3): whole frames, each valid on its own */
	static const uint64_t seqs[4][3] = { { 0, 1, 3 }, { 0, 1, 1 }, { 0, 2, 1 }, { 1, 2, 3 } };
	static const char *const msgs[4] = {
		"corrupt trace: frame 3 is data frame number 3, after number 1 (a frame is missing, repeated or out of order)",
		"corrupt trace: frame 3 is data frame number 1, after number 1 (a frame is missing, repeated or out of order)",
		"corrupt trace: frame 2 is data frame number 2, after number 0 (a frame is missing, repeated or out of order)",
		"corrupt trace: the first data frame is number 1, not 0 (frames are missing from the start)",
	};
	for (int k = 0; k < 4; k++) {
		tb_init(&b);
		tb_header(&b);
		for (int f = 0; f < 3; f++) {
			b.seq = seqs[k][f];
			tb_frame(&b, 100u * (unsigned)f);
			tb_thread(&b, 1);
			tb_alloc(&b, 100u * (unsigned)f + 1, 0x1000u * (unsigned)(f + 1), 16);
			tb_sync(&b, 100u * (unsigned)f + 50);
			tb_flush(&b);
		}
		expect_run_error(&b, msgs[k]);
		tb_release(&b);
	}
}

/* The first record of b's trace, a SYNC and the flush appended: refused with msg where msg
 * is not NULL, else one of tag, copied to *r (its numbers: what it points to goes with the
 * decoder). Releases b. */
static void first_record(struct tb *b, const char *msg, uint8_t tag, struct ckt_record *r)
{
	struct ckt_decoder *d;
	struct ckt_error err = { 0 };
	tb_sync(b, 2);
	tb_flush(b);
	assert_int_equal(open_bytes(b->out, b->out_len, &d, &err), 0);
	if (msg) {
		assert_int_equal(ckt_decode_next(d, r, &err), CKT_EFORMAT);
		assert_string_equal(err.msg, msg);
	} else {
		next_ok(d, r, tag);
	}
	ckt_decode_close(d);
	tb_release(b);
}

/* A mapping may end at 2^64 - 2^30 (the top of the address space as the decoder bounds it),
 * not a byte past it: an MMAP, and either range of an MREMAP (cases 2 to 4: both ranges
 * ending there read; the old or the new one a byte past it, corrupt). */
static void test_mapping_top(void **state)
{
	(void)state;
	const uint64_t top = (uint64_t)0 - ((uint64_t)1 << 30);
	for (int k = 0; k < 5; k++) {
		struct tb b;
		struct ckt_record r;
		bool remap = k >= 2, past = k == 1 || k >= 3;
		tb_start(&b, 1);
		if (remap)
			tb_mremap(&b, 1, top - 4096, 4096 + (k == 3), top - 8192, 8192 + (k == 4));
		else
			tb_mmap(&b, 1, top - 4096, 4096 + (uint64_t)k, CKT_MAP_ANON);
		char want[96];
		snprintf(want, sizeof(want), "corrupt record (tag 0x%02x) in frame 1: a mapping that ends past the top of "
			 "the address space", remap ? CKT_TAG_MREMAP : CKT_TAG_MMAP);
		first_record(&b, past ? want : NULL, remap ? CKT_TAG_MREMAP : CKT_TAG_MMAP, &r);
		if (k == 0) {
			assert_int_equal(r.u.mmap.addr, top - 4096);
			assert_int_equal(r.u.mmap.len, 4096);
		} else if (k == 2) {
			assert_int_equal(r.u.mremap.old_addr, top - 4096);
			assert_int_equal(r.u.mremap.new_len, 8192);
		}
	}
}

/* A mapping length of 2^57 - 2^30 or more (whole pages of up to 1 GiB would reach 2^57) is
 * corrupt in MUNMAP, MPROTECT and either length of MREMAP; one byte less is read. */
static void test_mapping_huge(void **state)
{
	(void)state;
	const uint64_t max = ((uint64_t)1 << 57) - ((uint64_t)1 << 30);
	for (int k = 0; k < 2 * 4; k++) {
		uint64_t len = max - 1 + (uint64_t)(k % 2);
		struct tb b;
		struct ckt_record r;
		static const uint8_t tags[4] = { CKT_TAG_MUNMAP, CKT_TAG_MPROTECT, CKT_TAG_MREMAP, CKT_TAG_MREMAP };
		tb_start(&b, 1);
		switch (k / 2) {
		case 0:
			tb_munmap(&b, 1, 0x10000, len);
			break;
		case 1:
			tb_mprotect(&b, 1, 0x10000, len, 1);
			break;
		case 2:
			tb_mremap(&b, 1, 0x10000, len, 0x20000, 4096);
			break;
		case 3:
			tb_mremap(&b, 1, 0x10000, 4096, 0x20000, len);
			break;
		}
		char want[128];
		snprintf(want, sizeof(want), "corrupt record (tag 0x%02x) in frame 1: a mapping of 2^57 - 2^30 bytes or more",
			 tags[k / 2]);
		first_record(&b, k % 2 ? want : NULL, tags[k / 2], &r);
	}
}

/* Sizes of 2^57 bytes or more are corrupt in each of RSS_DETAIL's four figures, CUDA_ALLOC and
 * CUDA_MAP; 2^57 - 1 is read, and CUDA_UNMAP (written before a call that may fail) takes any. */
static void test_sizes_huge(void **state)
{
	(void)state;
	const uint64_t max = (uint64_t)1 << 57;
	for (int k = 0; k < 2 * 7; k++) {
		uint64_t v = max - 1 + (uint64_t)(k % 2), f[4] = { 1, 1, 1, 1 };
		struct tb b;
		struct ckt_record r;
		static const uint8_t tags[7] = { CKT_TAG_RSS_DETAIL, CKT_TAG_RSS_DETAIL, CKT_TAG_RSS_DETAIL,
						 CKT_TAG_RSS_DETAIL, CKT_TAG_CUDA_ALLOC, CKT_TAG_CUDA_MAP,
						 CKT_TAG_CUDA_UNMAP };
		tb_start(&b, 1);
		if (k / 2 < 4) {
			f[k / 2] = v;
			tb_rss_detail(&b, 1, f[0], f[1], f[2], f[3]);
		} else if (k / 2 == 4) {
			tb_cuda_alloc(&b, 1, CKT_CUDA_DEVICE, 0, 0x7d0000000000ull, v, 0, 0, 5);
		} else if (k / 2 == 5) {
			tb_cuda_map(&b, 1, 0x7d0000000000ull, v, 9);
		} else {
			tb_cuda_unmap(&b, 1, 0x7d0000000000ull, v);
		}
		char want[128];
		snprintf(want, sizeof(want), "corrupt record (tag 0x%02x) in frame 1: a size of 2^57 bytes or more",
			 tags[k / 2]);
		first_record(&b, k % 2 && k / 2 < 6 ? want : NULL, tags[k / 2], &r);
	}
}

/* More fields of a small range: the largest value is read, the next refused, the field named
 * (CUDA_FREE's kind and function, CUDA_ALLOC's device, a CUDA device's ordinal, uuid and name,
 * a module's build-id, a note's phase and text). */
static void test_field_ranges_more(void **state)
{
	(void)state;
	static char s[CKT_MAX_STR + 1];
	memset(s, 'a', sizeof(s));
	static const char *const msgs[9] = {
		"corrupt record (tag 0x29) in frame 1: CUDA kind 6 is out of range (at most 5)",
		"corrupt record (tag 0x29) in frame 1: function 256 is out of range (at most 255)",
		"corrupt record (tag 0x28) in frame 1: CUDA device ordinal 4294967296 is out of range (at most 4294967295)",
		"corrupt record (tag 0x2a) in frame 1: CUDA device ordinal 4294967296 is out of range (at most 4294967295)",
		"corrupt record (tag 0x2a) in frame 1: uuid length 257 is out of range (at most 256)",
		"corrupt record (tag 0x2a) in frame 1: name length 257 is out of range (at most 256)",
		"corrupt record (tag 0x21) in frame 1: build-id length 257 is out of range (at most 256)",
		"corrupt record (tag 0x24) in frame 1: phase id 4097 is out of range (at most 4096)",
		"corrupt record (tag 0x24) in frame 1: text length 1025 is out of range (at most 1024)",
	};
	for (int k = 0; k < 2 * 9; k++) {
		uint64_t x = (uint64_t)(k % 2);
		struct tb b;
		struct ckt_decoder *d;
		struct ckt_record r;
		struct ckt_error err = { 0 };
		char short_s[CKT_MAX_SHORT + 2];
		memset(short_s, 'b', sizeof(short_s));
		short_s[CKT_MAX_SHORT + x] = '\0';
		tb_start(&b, 1);
		switch (k / 2) {
		case 0:
			tb_cuda_free(&b, 1, CKT_CUDA_REGISTERED + x, 0x7d0000000000ull, 5);
			break;
		case 1:
			tb_cuda_free(&b, 1, CKT_CUDA_DEVICE, 0x7d0000000000ull, 0xff + x);
			break;
		case 2:
			tb_cuda_alloc(&b, 1, CKT_CUDA_DEVICE, CKT_CUDA_NO_DEVICE + x, 0x7d0000000000ull, 4096, 0, 0, 5);
			break;
		case 3:
			tb_cuda_device(&b, CKT_CUDA_NO_DEVICE + x, "GPU-1", "H200");
			break;
		case 4:
			tb_cuda_device(&b, 0, short_s, "H200");
			break;
		case 5:
			tb_cuda_device(&b, 0, "GPU-1", short_s);
			break;
		case 6:
			tb_module(&b, 0x400000, 0x400000, 0x500000, "/bin/x", short_s);
			break;
		case 7:
			tb_note(&b, 1, CKT_MAX_PHASE_ID + x, "n");
			break;
		case 8:
			tb_u8(&b, CKT_TAG_NOTE);
			tb_uv(&b, 1);
			tb_uv(&b, 0);
			tb_str(&b, s, CKT_MAX_STR + x);
			break;
		}
		tb_sync(&b, 2);
		tb_flush(&b);
		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		int rc = ckt_decode_next(d, &r, &err);
		if (x) {
			assert_int_equal(rc, CKT_EFORMAT);
			assert_string_equal(err.msg, msgs[k / 2]);
		} else {
			if (rc != 1)
				fail_msg("case %d: %d: %s", k / 2, rc, err.msg);
			next_ok(d, &r, CKT_TAG_SYNC);
		}
		ckt_decode_close(d);
		tb_release(&b);
	}
}

static void test_corrupt_zstd(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_error err = { 0 };
	struct ckt_replay_stats st;
	char want[128];

	tb_start(&b, 1);
	tb_alloc(&b, 1, 0x1000, 1);
	tb_sync(&b, 2);
	tb_flush(&b);
	size_t off = b.out_len;
	/* zstd magic, then a frame header descriptor with its reserved bit set (the file does
	 * not end in zeros, which would read as a cut frame whose rest a crash lost) */
	tb_out_raw(&b, "\x28\xb5\x2f\xfd\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", 16);
	assert_int_equal(run_bytes(b.out, b.out_len, &st, &err), CKT_EFORMAT);
	snprintf(want, sizeof(want), "corrupt zstd frame at byte offset %zu: ", off);
	assert_memory_equal(err.msg, want, strlen(want));
	assert_true(strlen(err.msg) > strlen(want)); /* the zstd error name follows */

	/* plain garbage after good frames is not a zstd frame either */
	b.out_len = off;
	tb_out_raw(&b, "this is junk appended", 21);
	assert_int_equal(run_bytes(b.out, b.out_len, &st, &err), CKT_EFORMAT);
	assert_memory_equal(err.msg, want, strlen(want));
	tb_release(&b);
}

/* The header frame (one raw block and a checksum) cut after 24 of its 39 bytes, then zeros: 16
 * zero bytes or more are named as zeros a crash left, with where they start; 15 are only as
 * likely as a plain cut's last bytes, and zstd's complaint stands. */
static void test_header_zero_threshold(void **state)
{
	(void)state;
	static const uint8_t hdr[24] = { 0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0xd1, 0x00, 0x00, 0x43, 0x55, 0x5a,
					 0x4b, 0x54, 0x52, 0x43, 0x00, 0x01, 0x00, 0x09, 0x70, 0x61, 0x67, 0x65 };
	static const char *const msgs[3] = {
		"corrupt zstd frame at byte offset 0: Restored data doesn't match checksum",
		"the file ends inside the header frame, in 16 zero bytes from byte offset 24 (writes lost in a crash, or a preallocated file)",
		"the file ends inside the header frame, in 17 zero bytes from byte offset 24 (writes lost in a crash, or a preallocated file)",
	};
	for (size_t n = 15; n <= 17; n++) {
		uint8_t buf[sizeof(hdr) + 17] = { 0 };
		struct ckt_decoder *d = NULL;
		struct ckt_error err = { 0 };
		memcpy(buf, hdr, sizeof(hdr));
		assert_int_equal(open_bytes(buf, sizeof(hdr) + n, &d, &err), CKT_EFORMAT);
		assert_null(d);
		assert_string_equal(err.msg, msgs[n - 15]);
	}
}

/* A last frame whose blocks a crash left as zeros (its frame header written, then n zero
 * bytes, which zstd reads as empty blocks until the file ends): 16 zeros or more are named
 * (where they start, how many), fewer are a plain cut's last bytes. */
static void test_zero_tail_threshold(void **state)
{
	(void)state;
	static const uint8_t fh[6] = { 0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58 }; /* checksum, window */
	static const uint8_t zeros[17] = { 0 };
	for (size_t n = 15; n <= 17; n++) {
		struct tb b;
		struct ckt_decoder *d;
		struct ckt_record r;
		struct ckt_error err = { 0 };
		uint64_t from = 1;
		tb_start(&b, 1);
		tb_alloc(&b, 1, 0x1000, 16);
		tb_sync(&b, 2);
		tb_flush(&b);
		size_t cut = b.out_len;
		tb_out_raw(&b, fh, sizeof(fh));
		tb_out_raw(&b, zeros, n);
		assert_int_equal(open_bytes(b.out, b.out_len, &d, &err), 0);
		next_ok(d, &r, CKT_TAG_ALLOC);
		next_ok(d, &r, CKT_TAG_SYNC);
		assert_int_equal(ckt_decode_next(d, &r, &err), 0);
		assert_true(ckt_decode_truncated(d));
		assert_true(ckt_decode_dropped_partial(d));
		assert_int_equal(ckt_decode_partial_offset(d), cut);
		assert_int_equal(ckt_decode_zero_tail_bytes(d, &from), n >= 16 ? n : 0);
		assert_int_equal(from, n >= 16 ? cut + sizeof(fh) : 0);
		ckt_decode_close(d);
		tb_release(&b);
	}
}

/* Cutting the file at any byte: inside the header it is an error, anywhere later a truncated
 * (or, for the whole file, complete) trace; never a crash. */
static void test_truncate_every_byte(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_error err = { 0 };
	struct ckt_replay_stats st;

	tb_init(&b);
	tb_header(&b);
	for (unsigned f = 0; f < 4; f++) {
		tb_frame(&b, f * 100);
		tb_thread(&b, 1);
		tb_alloc(&b, f * 100 + 10, 0x1000 + f * 0x100, 100);
		tb_thread(&b, 2);
		tb_rss(&b, f * 100 + 20, 1000 * (f + 1));
		tb_sync(&b, f * 100 + 50);
		if (f == 3)
			tb_end(&b, 400, CKT_END_EXIT, 8, 0);
		tb_flush(&b);
	}
	for (size_t cut = 0; cut <= b.out_len; cut++) {
		int rc = run_bytes(b.out, cut, &st, &err);
		if (cut < b.frame_end[0]) {
			assert_int_equal(rc, CKT_EFORMAT);
			continue;
		}
		assert_int_equal(rc, 0);
		size_t complete = 0;
		for (size_t k = 1; k < b.nframes; k++)
			if (b.frame_end[k] <= cut)
				complete = k;
		assert_int_equal(st.truncated, cut != b.out_len);
		assert_int_equal(st.heap_bytes, 100 * complete);
		assert_int_equal(st.rss_samples, complete);
		assert_int_equal(st.duration_ns, cut == b.out_len ? 400 : complete ? (complete - 1) * 100 + 20 : 0);
	}
	tb_release(&b);
}

/* ---- fuzz ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* CKT_FUZZ_SCALE=N runs N times the default iterations (for a longer local run). */
static int fuzz_iters(int base)
{
	const char *e = getenv("CKT_FUZZ_SCALE");
	int k = e ? atoi(e) : 1;
	return base * (k > 0 ? k : 1);
}

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Runs the whole pipeline, reports included, on bytes that may be anything. */
static void fuzz_one(const uint8_t *p, size_t n)
{
	char path[64];
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };

	tb_write_bytes(p, n, path);
	if (ckt_decode_open(path, &d, &err) == 0) {
		struct ckt_replay *r = ckt_replay_new(ckt_decode_header(d)->page_size);
		assert_non_null(r);
		if (ckt_replay_run(d, r, &err) == 0) {
			FILE *devnull = fopen("/dev/null", "w");
			struct ckt_report rep = { path, d, ckt_replay_stats(r), NULL, false, NULL, NULL };
			assert_non_null(devnull);
			ckt_report_json_print(devnull, &rep);
			ckt_report_text_print(devnull, &rep);
			fclose(devnull);
		} else {
			assert_true(err.msg[0] != '\0');
		}
		ckt_replay_free(r);
		ckt_decode_close(d);
	} else {
		assert_true(err.msg[0] != '\0');
	}
	unlink(path);
}

static void test_fuzz_random_bytes(void **state)
{
	(void)state;
	uint8_t buf[2048];

	for (int it = 0; it < fuzz_iters(300); it++) {
		size_t n = (size_t)(rng() % sizeof(buf));
		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rng();
		if (it & 1 && n >= 4)
			memcpy(buf, "\x28\xb5\x2f\xfd", 4); /* get past the zstd magic check */
		fuzz_one(buf, n);
	}
}

/* Valid zstd frames with random record streams: exercises the record parser and replay. */
static void test_fuzz_random_records(void **state)
{
	(void)state;
	static const uint8_t tags[] = { CKT_TAG_THREAD, CKT_TAG_SYNC, CKT_TAG_LOST, CKT_TAG_THREAD_NAME,
					CKT_TAG_ALLOC, CKT_TAG_FREE, CKT_TAG_REALLOC, CKT_TAG_MMAP,
					CKT_TAG_MUNMAP, CKT_TAG_MREMAP, CKT_TAG_RSS, CKT_TAG_RSS_DETAIL,
					CKT_TAG_FRAME, CKT_TAG_END, CKT_TAG_STACK, CKT_TAG_MODULE,
					CKT_TAG_CUDA_ALLOC, CKT_TAG_CUDA_FREE, CKT_TAG_CUDA_DEVICE,
					CKT_TAG_MPROTECT, CKT_TAG_WAITED, CKT_TAG_LIMIT };
	for (int it = 0; it < fuzz_iters(300); it++) {
		struct tb b;
		tb_init(&b);
		tb_header(&b);
		unsigned frames = (unsigned)(rng() % 4) + 1;
		for (unsigned f = 0; f < frames; f++) {
			tb_frame(&b, rng() % 1000);
			unsigned recs = (unsigned)(rng() % 40);
			for (unsigned k = 0; k < recs; k++) {
				tb_u8(&b, tags[rng() % sizeof(tags)]);
				unsigned fields = (unsigned)(rng() % 8);
				for (unsigned x = 0; x < fields; x++) {
					uint64_t v = rng();
					/* mostly small values, sometimes huge ones */
					tb_uv(&b, rng() % 4 ? v % 300 : v);
				}
			}
			tb_flush(&b);
		}
		if (rng() % 3 == 0 && b.out_len > 1)
			b.out_len -= (size_t)(rng() % (b.out_len / 2 + 1));
		fuzz_one(b.out, b.out_len);
		tb_release(&b);
	}
}

static void test_fuzz_bit_flips(void **state)
{
	(void)state;
	struct tb b;
	tb_init(&b);
	tb_header(&b);
	for (unsigned f = 0; f < 3; f++) {
		tb_frame(&b, f * 1000);
		for (unsigned t = 0; t < 3; t++) {
			tb_thread(&b, 10 + t);
			tb_alloc(&b, f * 1000 + t, 0x1000 * (t + 1), 64);
			tb_realloc(&b, f * 1000 + t + 10, 0x1000 * (t + 1), 3, 0x9000 * (t + 1), 128);
			tb_mmap(&b, f * 1000 + t + 20, 0x7f0000000000ull + t * 0x100000, 8192, CKT_MAP_ANON);
			tb_mremap(&b, f * 1000 + t + 30, 0x7f0000000000ull + t * 0x100000, 8192,
				  0x7e0000000000ull + t * 0x100000, 16384);
			tb_munmap(&b, f * 1000 + t + 40, 0x7e0000000000ull + t * 0x100000, 4096);
			tb_rss(&b, f * 1000 + t + 50, 1 << 20);
			tb_free(&b, f * 1000 + t + 60, 0x9000 * (t + 1));
		}
		tb_sync(&b, f * 1000 + 500);
		tb_flush(&b);
	}
	uint8_t *copy = malloc(b.out_len);
	assert_non_null(copy);
	for (int it = 0; it < fuzz_iters(600); it++) {
		memcpy(copy, b.out, b.out_len);
		unsigned flips = (unsigned)(rng() % 4) + 1;
		for (unsigned k = 0; k < flips; k++) {
			size_t pos = (size_t)(rng() % b.out_len);
			copy[pos] ^= (uint8_t)(1u << (rng() % 8));
		}
		fuzz_one(copy, b.out_len);
	}
	free(copy);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_roundtrip),
		cmocka_unit_test(test_varint_malformed),
		cmocka_unit_test(test_util_format),
		cmocka_unit_test(test_header_parse),
		cmocka_unit_test(test_args_total_edge),
		cmocka_unit_test(test_tail_after_header),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_records_and_deltas),
		cmocka_unit_test(test_heap_runs),
		cmocka_unit_test(test_stream_lengths_wrap),
		cmocka_unit_test(test_stream_leftover_each),
		cmocka_unit_test(test_heap_short_stamps),
		cmocka_unit_test(test_columns_escape_short),
		cmocka_unit_test(test_overlong_at_end),
		cmocka_unit_test(test_corrupt_records),
		cmocka_unit_test(test_mapping_top),
		cmocka_unit_test(test_mapping_huge),
		cmocka_unit_test(test_sizes_huge),
		cmocka_unit_test(test_field_ranges_more),
		cmocka_unit_test(test_corrupt_zstd),
		cmocka_unit_test(test_zero_tail_threshold),
		cmocka_unit_test(test_header_zero_threshold),
		cmocka_unit_test(test_truncate_every_byte),
		cmocka_unit_test(test_fuzz_random_bytes),
		cmocka_unit_test(test_fuzz_random_records),
		cmocka_unit_test(test_fuzz_bit_flips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
