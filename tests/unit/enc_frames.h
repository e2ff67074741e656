/* enc_frames.h: data frames made by the capture library's real encoder (preload/record.c),
 * laid out as its writer lays them out, for unit tests that replay what the tracer writes
 * (format version 8's columns, which trace_builder.h's rows do not have). Include after
 * cmocka.h, ckt.h and trace_builder.h. Test code only. */
#ifndef CKT_ENC_FRAMES_H
#define CKT_ENC_FRAMES_H

static inline struct ckt_slot slot(uint8_t type, uint8_t fn, uint64_t ts, uint64_t a, uint64_t b,
				   uint32_t stack, uint16_t phase)
{
	struct ckt_slot s = { ts, a, b, stack, type, fn, phase };
	return s;
}

static inline void enc1(struct ckt_enc *e, uint8_t **p, struct ckt_slot s)
{
	assert_int_equal(ckt_record_event(e, p, &s, NULL), 0);
}

static inline void enc2(struct ckt_enc *e, uint8_t **p, struct ckt_slot s, struct ckt_slot s2)
{
	assert_int_equal(ckt_record_event(e, p, &s, &s2), 0);
}

/* Column buffers for an encoder, as the writer gives it (each can hold a whole frame). */
#define COL_CAP (1u << 20)
static inline uint8_t *enc_init(struct ckt_enc *e)
{
	uint8_t *cols = malloc((size_t)CKT_NSTREAMS * COL_CAP);
	assert_non_null(cols);
	memset(e, 0, sizeof(*e));
	for (int k = 1; k < CKT_NSTREAMS; k++)
		e->col0[k] = e->col[k] = cols + (size_t)k * COL_CAP;
	return cols;
}

/* A frame laid out by hand: directory, ROW, columns. */
static inline size_t lay_out(uint8_t *frame, const struct ckt_enc *e, const uint8_t *row, size_t rn)
{
	size_t n = ckt_record_directory(e, rn, frame);
	memcpy(frame + n, row, rn);
	n += rn;
	for (int k = 1; k < CKT_NSTREAMS; k++) {
		memcpy(frame + n, e->col0[k], (size_t)(e->col[k] - e->col0[k]));
		n += (size_t)(e->col[k] - e->col0[k]);
	}
	return n;
}

/* One data frame as the writer lays it out, compressed. */
static inline void put_frame(struct tb *b, const struct ckt_enc *e, const uint8_t *row, size_t n)
{
	uint8_t *frame = malloc(CKT_NSTREAMS * COL_CAP + 256);
	assert_non_null(frame);
	tb_raw(b, frame, lay_out(frame, e, row, n));
	tb_flush(b);
	free(frame);
}

/* The header frame through the encoder's own functions: kv, NULL-terminated {key, value, ...}
 * pairs (buf: scratch of cap bytes) */
static inline void enc_header(struct tb *b, uint8_t *buf, size_t cap, const char *const *kv)
{
	uint8_t *p = ckt_record_header_begin(buf);
	for (size_t i = 0; kv[i]; i += 2)
		p = ckt_record_kv(p, buf + cap, kv[i], kv[i + 1]);
	p = ckt_record_header_end(p);
	tb_raw(b, buf, (size_t)(p - buf));
	tb_flush(b);
}

#endif
