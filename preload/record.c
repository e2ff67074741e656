/* record.c: turns ring slots into trace records (include/ckt_format.h is the contract). Runs in
 * the writer thread only, so it may spend cycles the hot path must not: varints, deltas. */
#include "ckt.h"
#include "ckt_format.h"

#include <string.h>

static inline uint8_t *put_dts(struct ckt_enc *e, uint8_t *p, uint64_t ts)
{
	p = ckt_put_sv(p, (int64_t)(ts - e->prev_ts));
	e->prev_ts = ts;
	return p;
}

static inline uint8_t *put_daddr(struct ckt_enc *e, uint8_t *p, uint64_t a)
{
	p = ckt_put_sv(p, (int64_t)(a - e->prev_addr));
	e->prev_addr = a;
	return p;
}

/* ---- columns (format version 2). Cost per event, measured on the benchmark's trace: about
 * 22 ns to encode (the address model's scans of 16 + 8 entries included), and zstd then
 * spends 9 ns per event instead of 23 on rows. */

/* A 2-byte plane value, or the escape and the full value in ESC (uv, or sv when `sgn`). */
static inline void put_plane(struct ckt_enc *e, int lo, uint64_t v, int sgn, int64_t sv)
{
	if (v < CKT_PLANE_ESC) {
		*e->col[lo]++ = (uint8_t)v;
		*e->col[lo + 1]++ = (uint8_t)(v >> 8);
		return;
	}
	*e->col[lo]++ = 0xff;
	*e->col[lo + 1]++ = 0xff;
	e->col[CKT_S_ESC] = sgn ? ckt_put_sv(e->col[CKT_S_ESC], sv) : ckt_put_uv(e->col[CKT_S_ESC], v);
}

static inline void col_ts(struct ckt_enc *e, int lo, uint64_t ts)
{
	put_plane(e, lo, ts - e->prev_ts, 1, (int64_t)(ts - e->prev_ts));
	e->prev_ts = ts;
}

static inline void col_release(struct ckt_enc *e, uint64_t a)
{
	int64_t d = 0;
	unsigned code = ckt_am_enc_release(&e->am, a, &d);
	*e->col[CKT_S_ACODE]++ = (uint8_t)code;
	if (code == CKT_ACODE_MISS)
		e->col[CKT_S_ADDR] = ckt_put_sv(e->col[CKT_S_ADDR], d);
}

static inline void col_alloc(struct ckt_enc *e, uint64_t a, uint64_t size)
{
	int64_t d = 0;
	unsigned code = ckt_am_enc_alloc(&e->am, a, size, &d);
	*e->col[CKT_S_ACODE]++ = (uint8_t)code;
	if (code == CKT_ACODE_MISS)
		e->col[CKT_S_ADDR] = ckt_put_sv(e->col[CKT_S_ADDR], d);
}

static inline void col_uv(struct ckt_enc *e, int k, uint64_t v)
{
	e->col[k] = ckt_put_uv(e->col[k], v);
}

/* What ALLOC and REALLOC share after their first fields: the new address, the size, the
 * stack and the phase of slot s. */
static inline void col_sized(struct ckt_enc *e, uint64_t a, const struct ckt_slot *s)
{
	uint64_t n = ckt_slot_request(s);
	col_alloc(e, a, n);
	put_plane(e, CKT_S_SIZE_LO, n, 0, 0);
	col_uv(e, CKT_S_META, s->stack);
	col_uv(e, CKT_S_META, s->phase);
}

size_t ckt_record_cols_len(const struct ckt_enc *e)
{
	size_t n = 0;
	for (int k = 1; k < CKT_NSTREAMS; k++)
		n += (size_t)(e->col[k] - e->col0[k]);
	return n;
}

size_t ckt_record_directory(const struct ckt_enc *e, size_t row_len, uint8_t *dir)
{
	uint8_t *p = ckt_put_uv(dir, CKT_NSTREAMS);
	p = ckt_put_uv(p, row_len);
	for (int k = 1; k < CKT_NSTREAMS; k++)
		p = ckt_put_uv(p, (uint64_t)(e->col[k] - e->col0[k]));
	return (size_t)(p - dir);
}

void ckt_record_frame(struct ckt_enc *e, uint8_t **pp, uint64_t seq, uint64_t base_ts)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_FRAME;
	p = ckt_put_uv(p, seq);
	p = ckt_put_uv(p, base_ts);
	e->base_ts = e->prev_ts = base_ts;
	e->prev_addr = 0;
	for (int k = 1; k < CKT_NSTREAMS; k++)
		e->col[k] = e->col0[k];
	ckt_am_reset(&e->am);
	*pp = p;
}

void ckt_record_thread(struct ckt_enc *e, uint8_t **pp, uint64_t tid)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_THREAD;
	p = ckt_put_uv(p, tid);
	e->prev_ts = e->base_ts;
	e->prev_addr = 0;
	ckt_am_reset(&e->am);
	*pp = p;
}

/* CUDA_DEVICE: the UUID in nvidia-smi's spelling, the name cut to 63 bytes so the record
 * stays within CKT_MAX_RECORD (1 + 10 + 1 + 40 + 1 + 63 bytes). */
static uint8_t *record_cuda_device(uint8_t *p, const struct ckt_slot *s, const struct ckt_slot *s2)
{
	static const char hex[] = "0123456789abcdef";
	char uuid[41];
	size_t ul = 0;
	if (s2->ts) {
		uint8_t u[16];
		for (int i = 0; i < 8; i++) {
			u[i] = (uint8_t)(s2->a >> (8 * i));
			u[8 + i] = (uint8_t)(s2->b >> (8 * i));
		}
		memcpy(uuid, "GPU-", 4);
		ul = 4;
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				uuid[ul++] = '-';
			uuid[ul++] = hex[u[i] >> 4];
			uuid[ul++] = hex[u[i] & 15];
		}
	}
	const char *name = (const char *)(uintptr_t)s->b;
	size_t nl = name ? strnlen(name, 63) : 0;
	*p++ = CKT_TAG_CUDA_DEVICE;
	p = ckt_put_uv(p, s->a);
	p = ckt_put_uv(p, ul);
	memcpy(p, uuid, ul);
	p += ul;
	p = ckt_put_uv(p, nl);
	if (nl)
		memcpy(p, name, nl);
	return p + nl;
}

int ckt_record_event(struct ckt_enc *e, uint8_t **pp, const struct ckt_slot *s,
		     const struct ckt_slot *s2)
{
	uint8_t *p = *pp;
	switch (s->type) {
	case CKT_EV_ALLOC:
		*p++ = CKT_TAG_ALLOC;
		col_ts(e, CKT_S_TS_LO, s->ts);
		col_uv(e, CKT_S_META, s->fn & ~CKT_SLOT_WIDE);
		col_sized(e, s->a, s);
		break;
	case CKT_EV_FREE:
		*p++ = CKT_TAG_FREE;
		col_ts(e, CKT_S_TSF_LO, s->ts);
		col_release(e, s->a);
		break;
	case CKT_EV_REALLOC:
		*p++ = CKT_TAG_REALLOC;
		col_ts(e, CKT_S_TS_LO, s->ts);
		col_release(e, s->a);
		col_uv(e, CKT_S_META, s2->ts - s->ts);
		col_sized(e, s2->a, s);
		break;
	case CKT_EV_MMAP:
		*p++ = CKT_TAG_MMAP;
		p = put_dts(e, p, s->ts);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		p = ckt_put_uv(p, s->fn & 0xf);
		p = ckt_put_uv(p, s->fn >> 4);
		p = ckt_put_uv(p, s->stack);
		p = ckt_put_uv(p, s->phase);
		break;
	case CKT_EV_MPROTECT:
		*p++ = CKT_TAG_MPROTECT;
		p = put_dts(e, p, s->ts);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		p = ckt_put_uv(p, s->fn);
		break;
	case CKT_EV_MUNMAP:
		*p++ = CKT_TAG_MUNMAP;
		p = put_dts(e, p, s->ts);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		break;
	case CKT_EV_MREMAP:
		*p++ = CKT_TAG_MREMAP;
		p = put_dts(e, p, s->ts);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		p = put_daddr(e, p, s2->a);
		p = ckt_put_uv(p, s2->b);
		p = ckt_put_uv(p, s2->ts > s->ts ? s2->ts - s->ts : 0); /* dafter (version 3) */
		break;
	case CKT_EV_PHASE:
		*p++ = CKT_TAG_PHASE;
		p = put_dts(e, p, s->ts);
		p = ckt_put_uv(p, s->fn);
		p = ckt_put_uv(p, s->a);
		break;
	case CKT_EV_AGG:
		*p++ = CKT_TAG_AGG;
		p = put_dts(e, p, s->ts);
		p = ckt_put_sv(p, (int64_t)s->a);
		p = ckt_put_sv(p, (int64_t)s->b);
		p = ckt_put_uv(p, (uint64_t)s->stack * 1000); /* since (version 6), in ns */
		break;
	case CKT_EV_RSS:
		*p++ = CKT_TAG_RSS;
		p = put_dts(e, p, s->ts);
		p = ckt_put_uv(p, s->b);
		break;
	case CKT_EV_RSS_DETAIL:
		*p++ = CKT_TAG_RSS_DETAIL;
		p = put_dts(e, p, s->ts);
		p = ckt_put_uv(p, s->a);
		p = ckt_put_uv(p, s->b);
		p = ckt_put_uv(p, s2->a);
		p = ckt_put_uv(p, s2->b);
		break;
	case CKT_EV_CUDA_ALLOC:
		*p++ = CKT_TAG_CUDA_ALLOC;
		p = put_dts(e, p, s->ts);
		p = ckt_put_uv(p, s2->a);
		p = ckt_put_uv(p, s2->b);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		p = ckt_put_uv(p, s->stack);
		p = ckt_put_uv(p, s->phase);
		p = ckt_put_uv(p, s->fn);
		break;
	case CKT_EV_CUDA_FREE:
		*p++ = CKT_TAG_CUDA_FREE;
		p = put_dts(e, p, s->ts);
		p = ckt_put_uv(p, s->b);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->fn);
		break;
	case CKT_EV_CUDA_DEVICE:
		p = record_cuda_device(p, s, s2);
		break;
	case CKT_EV_CUDA_MAP:
	case CKT_EV_CUDA_UNMAP:
		*p++ = s->type == CKT_EV_CUDA_MAP ? CKT_TAG_CUDA_MAP : CKT_TAG_CUDA_UNMAP;
		p = put_dts(e, p, s->ts);
		p = put_daddr(e, p, s->a);
		p = ckt_put_uv(p, s->b);
		if (s->type == CKT_EV_CUDA_MAP)
			p = ckt_put_uv(p, s2->a);
		break;
	default:
		return -1;
	}
	*pp = p;
	return 0;
}

void ckt_record_sync(uint8_t **pp, uint64_t horizon)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_SYNC;
	*pp = ckt_put_uv(p, horizon);
}

void ckt_record_thread_exit(uint8_t **pp, uint64_t ts, uint64_t tid)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_THREAD_EXIT;
	p = ckt_put_uv(p, ts);
	*pp = ckt_put_uv(p, tid);
}

void ckt_record_lost(uint8_t **pp, uint64_t count)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_LOST;
	*pp = ckt_put_uv(p, count);
}

void ckt_record_waited(uint8_t **pp, uint64_t ns, uint64_t waits)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_WAITED;
	p = ckt_put_uv(p, ns);
	*pp = ckt_put_uv(p, waits);
}

void ckt_record_limit(uint8_t **pp, uint64_t ts, unsigned kind)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_LIMIT;
	p = ckt_put_uv(p, ts);
	*pp = ckt_put_uv(p, kind);
}

void ckt_record_end(uint8_t **pp, uint64_t ts, uint64_t reason, uint64_t events, uint64_t lost)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_END;
	p = ckt_put_uv(p, ts);
	p = ckt_put_uv(p, reason);
	p = ckt_put_uv(p, events);
	*pp = ckt_put_uv(p, lost);
}

uint8_t *ckt_record_header_begin(uint8_t *p)
{
	memcpy(p, CKT_MAGIC, CKT_MAGIC_LEN);
	p += CKT_MAGIC_LEN;
	*p++ = CKT_FORMAT_VERSION & 0xff;
	*p++ = CKT_FORMAT_VERSION >> 8;
	return p;
}

/* Appends one key/value pair; returns NULL if it does not fit before end. */
uint8_t *ckt_record_kv(uint8_t *p, const uint8_t *end, const char *k, const char *v)
{
	return ckt_record_kvn(p, end, k, v, strlen(v));
}

uint8_t *ckt_record_kvn(uint8_t *p, const uint8_t *end, const char *k, const char *v, size_t vl)
{
	size_t kl = strlen(k);
	if (!p || (size_t)(end - p) < kl + vl + 2 * CKT_MAX_VARINT + 1)
		return NULL;
	p = ckt_put_uv(p, kl);
	memcpy(p, k, kl);
	p += kl;
	p = ckt_put_uv(p, vl);
	memcpy(p, v, vl);
	return p + vl;
}

uint8_t *ckt_record_header_end(uint8_t *p)
{
	if (p)
		*p++ = 0; /* empty key */
	return p;
}

void ckt_record_stack(uint8_t **pp, uint32_t id, const uint64_t *frames, uint32_t n)
{
	uint8_t *p = *pp;
	*p++ = CKT_TAG_STACK;
	p = ckt_put_uv(p, id);
	p = ckt_put_uv(p, n);
	uint64_t prev = 0;
	for (uint32_t i = 0; i < n; i++) {
		p = ckt_put_sv(p, (int64_t)(frames[i] - prev));
		prev = frames[i];
	}
	*pp = p;
}

static uint8_t *put_str(uint8_t *p, const char *s, size_t n)
{
	p = ckt_put_uv(p, n);
	memcpy(p, s, n);
	return p + n;
}

uint8_t *ckt_record_module(uint8_t *p, const uint8_t *end, uint64_t base, uint64_t lo, uint64_t hi,
			   const char *path, const char *build_id)
{
	size_t pl = strlen(path), bl = strlen(build_id);
	if ((size_t)(end - p) < 1 + 3 * CKT_MAX_VARINT + 2 * CKT_MAX_VARINT + pl + bl)
		return NULL;
	*p++ = CKT_TAG_MODULE;
	p = ckt_put_uv(p, base);
	p = ckt_put_uv(p, lo);
	p = ckt_put_uv(p, hi);
	p = put_str(p, path, pl);
	return put_str(p, build_id, bl);
}

/* a phase name, a note or a thread name: at most CKT_MAX_STR bytes, cut between characters
 * (a name cut inside one showed U+FFFD at its end) */
static uint8_t *put_cut(uint8_t *p, const char *s, size_t n)
{
	return put_str(p, s, ckt_utf8_cut(s, n, CKT_MAX_STR));
}

uint8_t *ckt_record_phase_def(uint8_t *p, uint32_t id, const char *name)
{
	*p++ = CKT_TAG_PHASE_DEF;
	p = ckt_put_uv(p, id);
	return put_cut(p, name, strlen(name));
}

uint8_t *ckt_record_note(uint8_t *p, uint64_t ts, uint32_t phase, const char *text, size_t n)
{
	*p++ = CKT_TAG_NOTE;
	p = ckt_put_uv(p, ts);
	p = ckt_put_uv(p, phase);
	return put_cut(p, text, n);
}

uint8_t *ckt_record_thread_name(uint8_t *p, uint64_t ts, uint64_t tid, const char *name)
{
	*p++ = CKT_TAG_THREAD_NAME;
	p = ckt_put_uv(p, ts);
	p = ckt_put_uv(p, tid);
	return put_cut(p, name, strlen(name));
}
