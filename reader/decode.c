/* decode.c: reads a trace file frame by frame (zstd streaming) and parses records into
 * absolute values. It owns the file handle, frame boundaries, truncation detection, the
 * header and the delta state; ordering and meaning of events are left to replay.c.
 */
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE */
#include "decode.h"
#include "event.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Every tracer writes frames of at most 1 MiB decoded (its FRAME_CAP); a frame 16 times that
 * is corruption (or a zstd bomb), and refusing it keeps the frame buffer small (a forged
 * frame of 500 MiB of LOST records was read in 523 MB when the bound was 512 MiB). */
#define CKT_DECODE_MAX_FRAME ((size_t)16 << 20)
#define CKT_DECODE_IN_CHUNK ((size_t)1 << 17)
#define CKT_DECODE_MIN_ZEROS 16 /* zero bytes that end a cut frame, to be named as zeros */

static const uint8_t ckt_decode_zstd_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

/* A cursor that turns the first short or overlong varint into a sticky failure, so a record's
 * fields can be read in sequence and checked once at the end. */
struct ckt_cursor {
	const uint8_t *p, *end;
	bool bad;
	bool overlong; /* the failure was a varint of more than 64 bits (not one the end cut) */
};

struct ckt_decoder {
	FILE *f;
	ZSTD_DStream *zds;
	uint8_t *in_buf;
	ZSTD_inBuffer in;
	uint64_t in_file_off;   /* file offset of in_buf[0] */
	uint64_t snapshot;      /* a regular file's size when opened: what is read of it (a trace
				 * still being written grows; the reader chased it, for good beside
				 * a busy program); UINT64_MAX for a pipe */
	uint64_t frame_off;     /* file offset where the zstd frame being read starts */
	bool eof;
	uint8_t lead[4];        /* first bytes of the file, to tell "not zstd" from "cut short" */
	size_t lead_len;

	uint8_t *frame;         /* the current decompressed frame */
	size_t frame_len, frame_cap, pos;
	uint64_t frame_index;   /* index of the frame in `frame` among the file's frames; 0 = header */
	uint64_t cur_off;       /* file offset where the frame in `frame` starts */
	uint64_t data_off;      /* where the first data frame starts (the header's end) */
	bool reading;           /* in ckt_decode_read_frame: an error is of the frame at frame_off */
	uint64_t limited;       /* ckt_decode_limit's offset, else 0 */
	uint64_t frames_read;

	bool ended, truncated, dropped;
	uint64_t zero_tail, zero_from; /* the zero bytes the file ends in, read as its end, and where */
	uint64_t base_ts, prev_ts, prev_addr, tid;

	/* version 2: the frame's streams; cs[CKT_S_ROW] is unused (d->pos walks the ROW stream,
	 * up to row_end). Version 1: row_end = frame_len and no columns. */
	size_t row_start, row_end;
	struct ckt_cursor cs[CKT_NSTREAMS];
	struct ckt_amodel am;
	/* the seq of each address in am.recent, by the same physical slot (see ckt_record) */
	uint64_t am_seq[CKT_AM_RECENT];
	uint64_t seq;
	uint64_t frame_next;    /* the FRAME seq the next data frame must have: the writer counts
				 * them from 0, one by one */
	bool any_seq;           /* the next data frame may have any seq (ckt_decode_seek_last) */

	struct ckt_header hdr;

	/* stack id -> fingerprint of its frames, phase id -> of its name: each is defined once,
	 * and a second definition that differs is corruption (ckt_decode_redefined) */
	struct ckt_util_map stack_fp, phase_fp;
};

/* Bounds on the header frame: the tracer writes about 30 keys and a few KiB (its arguments
 * are cut at 32 KiB, twice); a forged one of 20 million keys took 1.9 GB. */
#define CKT_DECODE_MAX_HEADER (1 << 20)
#define CKT_DECODE_MAX_KEYS 1024

static int ckt_decode_refill(struct ckt_decoder *d, struct ckt_error *err)
{
	d->in_file_off += d->in.size;
	errno = 0;
	uint64_t room = d->snapshot > d->in_file_off ? d->snapshot - d->in_file_off : 0;
	size_t n = room ? fread(d->in_buf, 1, room < CKT_DECODE_IN_CHUNK ? (size_t)room : CKT_DECODE_IN_CHUNK, d->f) : 0;
	if (n == 0) {
		if (ferror(d->f))
			return ckt_util_err(err, CKT_EIO, "%s", strerror(errno ? errno : EIO));
		d->eof = true;
	}
	if (d->in_file_off == 0) {
		d->lead_len = n < sizeof(d->lead) ? n : sizeof(d->lead);
		memcpy(d->lead, d->in_buf, d->lead_len);
	}
	d->in.src = d->in_buf;
	d->in.size = n;
	d->in.pos = 0;
	return 0;
}

/* The file ends inside the frame at d->frame_off. A killed writer leaves that; so does a
 * corrupted block header (a block that claims more bytes than are left): in a regular file,
 * whole zstd frames from somewhere after the frame's start to the end the decoder reached
 * (not the file's size now: a trace still being written grows) tell the two apart. Returns
 * where they start, or 0 when there are none (the trace was cut). Bounded: a frame is at most
 * CKT_DECODE_MAX_FRAME, and a block at most 128 KiB past it; every offset is walked from at
 * most once (a walk that fails marks the offsets it went through). With lo < end, whole frames
 * that end anywhere from lo to end count too (the file ends in zeros from lo: they are no
 * frame, and a frame's own last bytes may be zeros). */
static uint64_t ckt_decode_frame_after(struct ckt_decoder *d, uint64_t lo, uint64_t end)
{
	struct stat st;
	int fd = fileno(d->f);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || end <= d->frame_off + 4)
		return 0;
	uint64_t left = end - d->frame_off;
	if (left > CKT_DECODE_MAX_FRAME + ((size_t)1 << 17))
		return 0; /* zstd would have refused the frame first */
	uint8_t *buf = malloc(left), *dead = calloc(left / 8 + 1, 1);
	uint64_t found = 0;
	if (buf && dead && pread(fd, buf, left, (off_t)d->frame_off) == (ssize_t)left) {
		const uint8_t *magic = ckt_decode_zstd_magic;
		for (size_t i = 1; i + 4 <= left && !found; i++) {
			const uint8_t *m = memchr(buf + i, magic[0], left - i);
			if (!m)
				break;
			i = (size_t)(m - buf);
			if (i + 4 > left || memcmp(m, magic, 4) != 0)
				continue;
			/* whole frames from here to the end exactly: compressed bytes that happen to
			 * hold the magic are not taken for a frame */
			size_t j = i;
			bool bad = false;
			while (j < left && !(dead[j / 8] >> (j % 8) & 1)) {
				size_t n = ZSTD_findFrameCompressedSize(buf + j, left - j);
				if ((bad = ZSTD_isError(n)))
					break;
				dead[j / 8] |= (uint8_t)(1u << (j % 8)); /* reached from here: walked */
				j += n;
			}
			if (j == left || (bad && d->frame_off + j >= lo))
				found = d->frame_off + i;
			else if (j < left)
				dead[j / 8] |= (uint8_t)(1u << (j % 8));
		}
	}
	free(buf);
	free(dead);
	return found;
}

/* The end of the file's last data past `from` (its size where the file system cannot tell):
 * a hole reads as zeros, so the scan for zeros at the end starts there. A trace extended
 * with `truncate -s 20G`, or preallocated, was read through its zeros a MiB at a time (5 s a
 * GiB: minutes) before 0.2.57. Extents walked with SEEK_DATA and SEEK_HOLE, 65,536 at most. */
static uint64_t ckt_decode_data_end(int fd, uint64_t from, uint64_t size)
{
	uint64_t end = from;
	off_t at = (off_t)from;
	for (int k = 0; k < 65536 && (uint64_t)at < size; k++) {
		off_t data = lseek(fd, at, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? end : size; /* ENXIO: no data past `at` */
		off_t hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return size;
		end = (uint64_t)hole < size ? (uint64_t)hole : size;
		at = hole;
	}
	return (uint64_t)at < size ? size : end;
}

/* Zero bytes the file ends in: what a file system that lost the last writes of a crash leaves
 * (the size was updated, the data never written), or a file preallocated with fallocate. In a
 * regular file: true when it ends in some, *from = where they start (d->frame_off at the
 * lowest: the run is looked for back to the current frame's start only) and *end = its size.
 * Other input (a pipe): true when every byte from d->frame_off on is zero (they are read to
 * the end; zstd took no more than a frame header before it failed, and the frame's start must
 * still be in the buffer), *from = d->frame_off. Reads 1 MiB at a time. */
static bool ckt_decode_zero_end(struct ckt_decoder *d, uint64_t *from, uint64_t *end)
{
	struct stat st;
	const size_t chunk = (size_t)1 << 20;
	uint8_t *buf = malloc(chunk);
	bool ok = false;
	int fd = fileno(d->f);
	if (buf && fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		uint64_t z = ckt_decode_data_end(fd, d->frame_off, (uint64_t)st.st_size); /* the zeros found start here */
		bool more = z > d->frame_off;
		ok = !more; /* no data past the frame's start: all a hole (a frame ending on a block) */
		while (more) {
			size_t k = z - d->frame_off < chunk ? (size_t)(z - d->frame_off) : chunk;
			if (pread(fd, buf, k, (off_t)(z - k)) != (ssize_t)k)
				break; /* a read error, or the file shrank: not known to be zeros */
			size_t i = k;
			while (i > 0 && buf[i - 1] == 0)
				i--;
			z -= k - i;
			more = i == 0 && z > d->frame_off;
			ok = !more;
		}
		ok = ok && z < (uint64_t)st.st_size;
		*from = z;
		*end = (uint64_t)st.st_size;
	} else if (buf && d->frame_off >= d->in_file_off && d->frame_off - d->in_file_off <= d->in.size) {
		size_t at = (size_t)(d->frame_off - d->in_file_off), k;
		uint64_t n = d->in.size - at;
		ok = true;
		for (size_t i = at; i < d->in.size && ok; i++)
			ok = d->in_buf[i] == 0;
		d->in.pos = d->in.size; /* taken */
		while (ok && (k = fread(buf, 1, chunk, d->f)) > 0) {
			for (size_t i = 0; i < k && ok; i++)
				ok = buf[i] == 0;
			n += k;
		}
		ok = ok && n > 0 && !ferror(d->f);
		*from = d->frame_off;
		*end = d->frame_off + n;
	}
	free(buf);
	return ok;
}

/* Whether whole zstd frames run from d->frame_off to end exactly (a regular file). Reads
 * them one by one, each with as many bytes as it needs (from 64 KiB up, doubling, to at most
 * CKT_DECODE_MAX_FRAME and a block): about the rest of the file once. */
static bool ckt_decode_whole_to(struct ckt_decoder *d, uint64_t end)
{
	const size_t cap = CKT_DECODE_MAX_FRAME + ((size_t)1 << 17);
	size_t want = (size_t)1 << 16;
	uint8_t *buf = malloc(cap);
	uint64_t off = d->frame_off;
	while (buf && off < end) {
		size_t k = end - off < want ? (size_t)(end - off) : want;
		if (pread(fileno(d->f), buf, k, (off_t)off) != (ssize_t)k)
			break;
		size_t n = ZSTD_findFrameCompressedSize(buf, k);
		if (ZSTD_isError(n) || n == 0) {
			if (k == want && want < cap) { /* the frame may run past what was read */
				want = want * 2 < cap ? want * 2 : cap;
				continue;
			}
			break;
		}
		off += n;
	}
	free(buf);
	return off == end;
}

/* Decompresses the next whole zstd frame into d->frame. Returns 1 when one was read, 0 at the
 * end of the file (setting d->dropped when the file ends inside a frame), negative on error. */
static int ckt_decode_read_frame(struct ckt_decoder *d, struct ckt_error *err)
{
	const size_t out_chunk = ZSTD_DStreamOutSize();
	bool need_flush = false; /* zstd may hold decoded bytes back when the output was full */

	d->frame_len = 0;
	d->pos = 0;
	d->reading = true; /* until it returns 0 or 1: an error is this frame's */
	for (;;) {
		if (d->in.pos == d->in.size && !need_flush) {
			if (!d->eof) {
				int rc = ckt_decode_refill(d, err);
				if (rc < 0)
					return rc;
			}
			if (d->eof) {
				d->dropped = d->in_file_off + d->in.pos > d->frame_off;
				d->frame_len = 0;
				/* the end of what was read; whole frames may end before zeros the
				 * file ends in (appended after a frame whose block header is corrupt) */
				uint64_t end = d->in_file_off + d->in.size, lo = end, from, zend;
				if (d->dropped && ckt_decode_zero_end(d, &from, &zend) && zend == end &&
				    from > d->frame_off)
					lo = from;
				uint64_t next = d->dropped ? ckt_decode_frame_after(d, lo, end) : 0;
				if (next)
					return ckt_util_err(err, CKT_EFORMAT,
							    "corrupt zstd frame at byte offset %llu: it runs to the end "
							    "of the file, past a whole frame at byte offset %llu",
							    (unsigned long long)d->frame_off, (unsigned long long)next);
				/* zstd read the zeros as empty blocks and ran out of file: a cut
				 * frame, in zeros, as when it refuses them (below); a few zero bytes
				 * are as likely the end of a plain cut (a compressed byte is 0 one
				 * time in 256 or so): CKT_DECODE_MIN_ZEROS at least */
				if (lo != end && end - lo >= CKT_DECODE_MIN_ZEROS && d->frames_read > 0) {
					d->zero_from = lo;
					d->zero_tail = end - lo;
				}
				return 0;
			}
		}
		if (d->frame_cap - d->frame_len < out_chunk) {
			if (d->frame_cap >= CKT_DECODE_MAX_FRAME)
				return ckt_util_err(err, CKT_EFORMAT,
						    "corrupt zstd frame at byte offset %llu: frame is larger than %zu MiB",
						    (unsigned long long)d->frame_off, CKT_DECODE_MAX_FRAME >> 20);
			size_t cap = d->frame_cap ? d->frame_cap * 2 : (size_t)1 << 20;
			uint8_t *p = realloc(d->frame, cap);
			if (!p)
				return ckt_util_err(err, CKT_ENOMEM, "out of memory");
			d->frame = p;
			d->frame_cap = cap;
		}
		ZSTD_outBuffer out = { d->frame + d->frame_len, d->frame_cap - d->frame_len, 0 };
		size_t ret = ZSTD_decompressStream(d->zds, &out, &d->in);
		if (ZSTD_isError(ret)) {
			if (d->frames_read == 0 && ZSTD_getErrorCode(ret) == ZSTD_error_prefix_unknown)
				return ckt_util_err(err, CKT_EFORMAT, "not a cuzktrace trace");
			/* zstd could not get its window's memory: the reader's failure, not the file's
			 * (it read "corrupt zstd frame ...: Allocation error" under a memory limit) */
			if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
				return ckt_util_err(err, CKT_ENOMEM, "out of memory");
			/* The file ends in zeros from this frame's start, or from inside it: no
			 * further from its start than a frame can reach, its frames no longer reaching
			 * the end whole (zeros where blocks were; a frame whose last byte, its
			 * checksum's, is 0, one in 256, still does) and no whole frame before them.
			 * Then the trace ends there (the frame was cut). A pipe is known to end so
			 * only from a frame's start. */
			const uint64_t reach = CKT_DECODE_MAX_FRAME + ((size_t)1 << 17);
			uint64_t from, end;
			bool zeros = ckt_decode_zero_end(d, &from, &end);
			/* zeros from inside the frame, within its reach, no whole frame after them */
			bool zeros_inside = zeros && from > d->frame_off && from - d->frame_off <= reach &&
					    !ckt_decode_frame_after(d, from, end - d->frame_off < reach ? end : d->frame_off + reach);
			if (d->frames_read > 0 && zeros &&
			    (from <= d->frame_off || (zeros_inside && !ckt_decode_whole_to(d, end)))) {
				d->dropped = from > d->frame_off;
				d->zero_from = from;
				d->zero_tail = end - from;
				d->eof = true;
				d->in.pos = d->in.size;
				d->frame_len = 0;
				return 0;
			}
			/* the header frame cut and followed by zeros (a crash before its bytes reached
			 * the disk): said as for a data frame, not as zstd's complaint about them; on
			 * the same terms: enough zeros to be more than a cut's last bytes, within a
			 * frame's reach, and no whole frame after them (a corrupt header in a trace
			 * whose last byte is 0 is corrupt) */
			if (d->frames_read == 0 && zeros_inside && end - from >= CKT_DECODE_MIN_ZEROS)
				return ckt_util_err(err, CKT_EFORMAT,
						    "the file ends inside the header frame, in %llu zero byte%s from "
						    "byte offset %llu (writes lost in a crash, or a preallocated file)",
						    (unsigned long long)(end - from), end - from == 1 ? "" : "s",
						    (unsigned long long)from);
			return ckt_util_err(err, CKT_EFORMAT, "corrupt zstd frame at byte offset %llu: %s",
					    (unsigned long long)d->frame_off, ZSTD_getErrorName(ret));
		}
		d->frame_len += out.pos;
		/* another program's zstd file: said at its first bytes, not after inflating up to
		 * CKT_DECODE_MAX_FRAME of it */
		if (d->frames_read == 0 && d->frame_len >= CKT_MAGIC_LEN &&
		    memcmp(d->frame, CKT_MAGIC, CKT_MAGIC_LEN) != 0)
			return ckt_util_err(err, CKT_EFORMAT, "not a cuzktrace trace");
		/* the tracer's header is a few KiB (64 KiB of arguments at most) */
		if (d->frames_read == 0 && d->frame_len > CKT_DECODE_MAX_HEADER)
			return ckt_util_err(err, CKT_EFORMAT, "corrupt header: larger than %d KiB",
					    CKT_DECODE_MAX_HEADER >> 10);
		need_flush = out.pos == out.size;
		if (ret == 0) {
			d->frame_index = d->frames_read++;
			d->cur_off = d->frame_off;
			d->frame_off = d->in_file_off + d->in.pos;
			d->reading = false;
			return 1;
		}
	}
}

/* ---- header ---- */

static const uint8_t *ckt_decode_get_str(const uint8_t *p, const uint8_t *end, const uint8_t **s,
					 size_t *len)
{
	uint64_t n;
	p = ckt_get_uv(p, end, &n);
	if (!p || n > (uint64_t)(end - p))
		return NULL;
	*s = p;
	*len = (size_t)n;
	return p + n;
}

static char *ckt_decode_dup(const uint8_t *s, size_t len)
{
	char *r = malloc(len + 1);
	if (r) {
		memcpy(r, s, len);
		r[len] = '\0';
	}
	return r;
}

/* The header's page_size: 0 when absent, or not a power of two from 4096 to 1 GiB (munmap
 * rounding needs a power of two; anything else means a damaged header) */
static uint64_t ckt_decode_page_size(const char *v)
{
	char *endp;
	if (!v || !*v || strspn(v, "0123456789") != strlen(v))
		return 0;
	errno = 0;
	unsigned long long ps = strtoull(v, &endp, 10);
	if (errno || ps < 4096 || (ps & (ps - 1)) || ps > (1ull << 30))
		return 0;
	return ps;
}

static int ckt_decode_parse_header(struct ckt_decoder *d, struct ckt_error *err)
{
	const uint8_t *p = d->frame, *end = d->frame + d->frame_len;

	if (d->frame_len < CKT_MAGIC_LEN + 2 || memcmp(p, CKT_MAGIC, CKT_MAGIC_LEN) != 0)
		return ckt_util_err(err, CKT_EFORMAT, "not a cuzktrace trace");
	p += CKT_MAGIC_LEN;
	d->hdr.format_version = (unsigned)p[0] | (unsigned)p[1] << 8;
	p += 2;
	if (d->hdr.format_version < CKT_FORMAT_VERSION_MIN || d->hdr.format_version > CKT_FORMAT_VERSION)
		return ckt_util_err(err, CKT_EFORMAT,
				    "unsupported format version %u (this reader reads %d to %d)",
				    d->hdr.format_version, CKT_FORMAT_VERSION_MIN, CKT_FORMAT_VERSION);
	size_t cap = 0;
	for (;;) {
		const uint8_t *k, *v;
		size_t klen, vlen;
		p = ckt_decode_get_str(p, end, &k, &klen);
		if (!p)
			return ckt_util_err(err, CKT_EFORMAT, "corrupt header: it ends inside a key");
		if (klen == 0)
			break;
		p = ckt_decode_get_str(p, end, &v, &vlen);
		if (!p)
			return ckt_util_err(err, CKT_EFORMAT, "corrupt header: it ends inside the value of a key");
		if (d->hdr.n_kv == CKT_DECODE_MAX_KEYS)
			return ckt_util_err(err, CKT_EFORMAT, "corrupt header: more than %d keys",
					    CKT_DECODE_MAX_KEYS);
		for (size_t i = 0; i < d->hdr.n_kv; i++) /* at most 1024 * 1024 / 2 compares */
			if (d->hdr.kv[i].key_len == klen && memcmp(d->hdr.kv[i].key, k, klen) == 0)
				return ckt_util_err(err, CKT_EFORMAT, "corrupt header: a key appears twice");
		if (d->hdr.n_kv == cap) {
			cap = cap ? cap * 2 : 16;
			struct ckt_header_kv *kv = realloc(d->hdr.kv, cap * sizeof(*kv));
			if (!kv)
				return ckt_util_err(err, CKT_ENOMEM, "out of memory");
			d->hdr.kv = kv;
		}
		struct ckt_header_kv *e = &d->hdr.kv[d->hdr.n_kv];
		e->key = ckt_decode_dup(k, klen);
		e->value = ckt_decode_dup(v, vlen);
		if (!e->key || !e->value) {
			free(e->key);
			free(e->value);
			return ckt_util_err(err, CKT_ENOMEM, "out of memory");
		}
		e->key_len = klen;
		e->value_len = vlen;
		d->hdr.n_kv++;
	}
	d->hdr.page_size = ckt_decode_page_size(ckt_decode_header_get(d, "page_size"));
	return 0;
}

const struct ckt_header *ckt_decode_header(const struct ckt_decoder *d)
{
	return &d->hdr;
}

const struct ckt_header_kv *ckt_decode_header_kv(const struct ckt_decoder *d, const char *key)
{
	size_t len = strlen(key);
	for (size_t i = 0; i < d->hdr.n_kv; i++)
		if (d->hdr.kv[i].key_len == len && memcmp(d->hdr.kv[i].key, key, len) == 0)
			return &d->hdr.kv[i];
	return NULL;
}

const char *ckt_decode_header_get(const struct ckt_decoder *d, const char *key)
{
	const struct ckt_header_kv *kv = ckt_decode_header_kv(d, key);
	return kv ? kv->value : NULL;
}

const struct ckt_header_kv *ckt_decode_args(const struct ckt_decoder *d, char *sep)
{
	const struct ckt_header_kv *argv = NULL;
	for (size_t i = 0; i < d->hdr.n_kv; i++) {
		const struct ckt_header_kv *kv = &d->hdr.kv[i];
		if (kv->key_len == 4 && memcmp(kv->key, "args", 4) == 0) {
			*sep = '\0';
			return kv;
		}
		if (kv->key_len == 4 && memcmp(kv->key, "argv", 4) == 0)
			argv = kv;
	}
	*sep = '\n';
	return argv;
}

uint64_t ckt_decode_args_total(const struct ckt_decoder *d)
{
	char sep;
	const struct ckt_header_kv *args = ckt_decode_args(d, &sep);
	const struct ckt_header_kv *kv = ckt_decode_header_kv(d, "args_total");
	uint64_t total = 0;
	if (!args || !kv || !kv->value_len || kv->value_len > 20)
		return 0;
	for (size_t i = 0; i < kv->value_len; i++) {
		unsigned c = (unsigned char)kv->value[i] - '0';
		if (c > 9 || total > (UINT64_MAX - c) / 10)
			return 0; /* not a number: a forged header */
		total = total * 10 + c;
	}
	return total > args->value_len + 1 ? total : 0; /* + 1: the NUL after the last one */
}

/* ---- open / close ---- */

int ckt_decode_open(const char *path, struct ckt_decoder **out, struct ckt_error *err)
{
	struct ckt_decoder *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d)
		return ckt_util_err(err, CKT_ENOMEM, "out of memory");
	d->f = fopen(path, "rb");
	if (!d->f) {
		rc = ckt_util_err(err, CKT_EIO, "%s", strerror(errno));
		goto fail;
	}
	struct stat st;
	/* read up to the size the file has now (a trace still being written ends there); a
	 * regular file of size 0 is read to its end (a file system that does not say sizes), but
	 * not one of the kernel's: /proc/self/status says 0 and holds text, /proc/kmsg blocks and
	 * takes the kernel's messages away: not a trace, unread (it read "empty file"; since
	 * 0.2.44) */
	bool reg = fstat(fileno(d->f), &st) == 0 && S_ISREG(st.st_mode);
	if (reg && st.st_size == 0 && ckt_util_kernel_file(path)) {
		rc = ckt_util_err(err, CKT_EFORMAT, "not a cuzktrace trace (a file of the kernel's: /proc, /sys)");
		goto fail;
	}
	d->snapshot = reg && st.st_size > 0 ? (uint64_t)st.st_size : UINT64_MAX;
	d->zds = ZSTD_createDStream();
	d->in_buf = malloc(CKT_DECODE_IN_CHUNK);
	if (!d->zds || !d->in_buf) {
		rc = ckt_util_err(err, CKT_ENOMEM, "out of memory");
		goto fail;
	}
	ZSTD_initDStream(d->zds);
	d->in.src = d->in_buf;
	rc = ckt_decode_read_frame(d, err);
	if (rc < 0)
		goto fail;
	if (rc == 0) {
		if (d->in_file_off + d->in.pos == 0)
			rc = ckt_util_err(err, CKT_EFORMAT, "empty file");
		else if (memcmp(d->lead, ckt_decode_zstd_magic, d->lead_len < 4 ? d->lead_len : 4) != 0)
			rc = ckt_util_err(err, CKT_EFORMAT, "not a cuzktrace trace");
		else
			rc = ckt_util_err(err, CKT_EFORMAT, "the file ends inside the header frame");
		goto fail;
	}
	rc = ckt_decode_parse_header(d, err);
	if (rc < 0)
		goto fail;
	d->data_off = d->frame_off;
	d->frame_len = 0;
	d->pos = 0;
	*out = d;
	return 0;
fail:
	ckt_decode_close(d);
	return rc;
}

/* The length of the zstd frame (or skippable frame) at off, from its frame header and block
 * headers alone (RFC 8878, 3.1): 0 when the file does not hold a whole one there. Read with a
 * few small preads, not mmap: a file another process cuts meanwhile (a rerun writing over
 * it) is an error here, not a SIGBUS (libzstd's ZSTD_findFrameCompressedSize wants the whole
 * frame in memory). */
static uint64_t ckt_decode_frame_len(int fd, uint64_t off, uint64_t size)
{
	uint8_t h[8];
	if (size - off < 8 || pread(fd, h, 8, (off_t)off) != 8)
		return 0;
	uint32_t magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	if ((magic & 0xfffffff0u) == 0x184d2a50u) { /* skippable: magic, 4-byte length, bytes */
		uint64_t n = 8 + ((uint64_t)h[4] | (uint64_t)h[5] << 8 | (uint64_t)h[6] << 16 | (uint64_t)h[7] << 24);
		return n <= size - off ? n : 0;
	}
	if (magic != 0xfd2fb528u)
		return 0;
	unsigned fhd = h[4], fcs_flag = fhd >> 6, single = fhd >> 5 & 1, dict_flag = fhd & 3;
	if (fhd & 0x08) /* the reserved bit */
		return 0;
	static const unsigned dict_len[4] = { 0, 1, 2, 4 }, fcs_len[4] = { 0, 2, 4, 8 };
	uint64_t p = off + 5 + !single + dict_len[dict_flag] + (fcs_flag || !single ? fcs_len[fcs_flag] : 1);
	for (;;) { /* blocks: a 3-byte header (last, type, size), then its content */
		if (p + 3 > size || pread(fd, h, 3, (off_t)p) != 3)
			return 0;
		uint32_t bh = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16;
		unsigned type = bh >> 1 & 3;
		if (type == 3)
			return 0;
		p += 3 + (type == 1 ? 1 : bh >> 3);
		if (p > size)
			return 0;
		if (bh & 1)
			break;
	}
	p += fhd & 0x04 ? 4 : 0; /* the content checksum */
	return p <= size ? p - off : 0;
}

int ckt_decode_seek_last(struct ckt_decoder *d, struct ckt_error *err)
{
	/* frame_off: where the frame after the header starts */
	uint64_t size = d->snapshot, off = d->frame_off, last = UINT64_MAX, n, index = d->frames_read;
	if (size == UINT64_MAX)
		return ckt_util_err(err, CKT_EIO, "not a regular file");
	while (off < size && (n = ckt_decode_frame_len(fileno(d->f), off, size)))
		last = off, off += n, index++;
	if (last == UINT64_MAX)
		return 0;
	/* the frame's index among the file's, as a read of them all counts it: an error names it
	 * (since 0.2.45; it named frame 1, the frame after the header) */
	d->frames_read = index - 1;
	if (fseeko(d->f, (off_t)last, SEEK_SET) != 0)
		return ckt_util_err(err, CKT_EIO, "%s", strerror(errno));
	d->in_file_off = last;
	d->in.size = d->in.pos = 0;
	d->eof = false;
	d->frame_off = last;
	d->frame_len = d->pos = 0;
	ZSTD_DCtx_reset(d->zds, ZSTD_reset_session_only);
	d->any_seq = true;
	return 1;
}

enum ckt_decode_tail ckt_decode_tail(const struct ckt_decoder *d)
{
	uint8_t b[4];
	if (d->snapshot == UINT64_MAX || d->frame_off >= d->snapshot)
		return CKT_DECODE_TAIL_NONE;
	return d->snapshot - d->frame_off >= 4 && pread(fileno(d->f), b, 4, (off_t)d->frame_off) == 4 &&
			       !memcmp(b, ckt_decode_zstd_magic, 4)
		       ? CKT_DECODE_TAIL_CUT
		       : CKT_DECODE_TAIL_OTHER;
}

void ckt_decode_close(struct ckt_decoder *d)
{
	if (!d)
		return;
	if (d->f)
		fclose(d->f);
	ZSTD_freeDStream(d->zds);
	free(d->in_buf);
	free(d->frame);
	for (size_t i = 0; i < d->hdr.n_kv; i++) {
		free(d->hdr.kv[i].key);
		free(d->hdr.kv[i].value);
	}
	free(d->hdr.kv);
	ckt_util_map_free(&d->stack_fp);
	ckt_util_map_free(&d->phase_fp);
	free(d);
}

uint64_t ckt_decode_error_frame(const struct ckt_decoder *d)
{
	uint64_t at = d->reading ? d->frame_off : d->cur_off;
	return d->snapshot != UINT64_MAX && at > d->data_off ? at : 0;
}

void ckt_decode_limit(struct ckt_decoder *d, uint64_t off)
{
	if (d->snapshot == UINT64_MAX || off >= d->snapshot)
		return;
	d->snapshot = d->limited = off;
	/* the header's read may have brought bytes past off into the buffer */
	if (off >= d->in_file_off + d->in.pos && off < d->in_file_off + d->in.size)
		d->in.size = (size_t)(off - d->in_file_off);
}

uint64_t ckt_decode_limited(const struct ckt_decoder *d)
{
	return d->limited;
}

bool ckt_decode_regular(const struct ckt_decoder *d)
{
	return d->snapshot != UINT64_MAX;
}

bool ckt_decode_truncated(const struct ckt_decoder *d)
{
	return d->truncated;
}

uint64_t ckt_decode_trailing(struct ckt_decoder *d, bool *zeros)
{
	*zeros = false;
	if (!d->ended)
		return 0;
	/* the END frame ended at frame_off; what is in the buffer after it, then the file's rest */
	uint64_t buffered = d->in.size - d->in.pos;
	struct stat st;
	if (fstat(fileno(d->f), &st) == 0 && S_ISREG(st.st_mode)) {
		uint64_t end = d->in_file_off + d->in.size; /* file offset of what fread gives next */
		uint64_t n = buffered + ((uint64_t)st.st_size > end ? (uint64_t)st.st_size - end : 0), from, to;
		*zeros = n && ckt_decode_zero_end(d, &from, &to) && from <= d->frame_off;
		return n;
	}
	/* a pipe: that there is more, not how much */
	if (buffered || (!d->eof && fgetc(d->f) != EOF))
		return UINT64_MAX;
	return 0;
}

uint64_t ckt_decode_zero_tail_bytes(const struct ckt_decoder *d, uint64_t *from)
{
	*from = d->zero_from;
	return d->zero_tail;
}

bool ckt_decode_dropped_partial(const struct ckt_decoder *d)
{
	return d->dropped;
}

uint64_t ckt_decode_partial_offset(const struct ckt_decoder *d)
{
	return d->frame_off;
}

/* ---- records ---- */

static inline uint64_t ckt_decode_uv(struct ckt_cursor *c)
{
	/* Most fields (fn, phase, small deltas) fit in one byte. After a failure c->p stays on
	 * the failed varint, whose first byte has the continuation bit: this path stays shut. */
	if (__builtin_expect(c->p < c->end && *c->p < 0x80, 1))
		return *c->p++;
	uint64_t v = 0;
	const uint8_t *q = c->bad ? NULL : ckt_get_uv(c->p, c->end, &v);
	if (!q) {
		/* with ten bytes left, only a number too long fails (ckt_get_uv) */
		if (!c->bad)
			c->overlong = c->end - c->p >= 10;
		c->bad = true;
		return 0;
	}
	c->p = q;
	return v;
}

static inline int64_t ckt_decode_sv(struct ckt_cursor *c)
{
	uint64_t u = ckt_decode_uv(c);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static const uint8_t *ckt_decode_str(struct ckt_cursor *c, size_t *len)
{
	const uint8_t *s = NULL;
	const uint8_t *q = c->bad ? NULL : ckt_decode_get_str(c->p, c->end, &s, len);
	if (!q) {
		c->bad = true;
		*len = 0;
		return NULL;
	}
	c->p = q;
	return s;
}

/* Deltas wrap in unsigned arithmetic: a corrupt delta gives a strange value, never UB. */
static uint64_t ckt_decode_dts(struct ckt_decoder *d, struct ckt_cursor *c)
{
	d->prev_ts += (uint64_t)ckt_decode_sv(c);
	return d->prev_ts;
}

static uint64_t ckt_decode_daddr(struct ckt_decoder *d, struct ckt_cursor *c)
{
	d->prev_addr += (uint64_t)ckt_decode_sv(c);
	return d->prev_addr;
}

/* ---- version 2 columns ---- */

/* A 2-byte plane value, or the escape's full value from ESC (sv when sgn). A column that runs
 * out marks the low plane's cursor bad. */
static inline uint64_t ckt_decode_plane(struct ckt_decoder *d, int lo, bool sgn)
{
	struct ckt_cursor *a = &d->cs[lo], *b = &d->cs[lo + 1];
	if (__builtin_expect(a->p >= a->end || b->p >= b->end, 0)) {
		a->bad = true;
		return 0;
	}
	uint64_t v = (uint64_t)*a->p++ | (uint64_t)*b->p++ << 8;
	if (__builtin_expect(v != CKT_PLANE_ESC, 1))
		return v;
	return sgn ? (uint64_t)ckt_decode_sv(&d->cs[CKT_S_ESC]) : ckt_decode_uv(&d->cs[CKT_S_ESC]);
}

static inline uint64_t ckt_decode_col_ts(struct ckt_decoder *d, int lo)
{
	d->prev_ts += ckt_decode_plane(d, lo, true);
	return d->prev_ts;
}

static inline unsigned ckt_decode_acode(struct ckt_decoder *d, int64_t *delta)
{
	struct ckt_cursor *c = &d->cs[CKT_S_ACODE];
	if (__builtin_expect(c->p >= c->end, 0)) {
		c->bad = true;
		return 0;
	}
	unsigned code = *c->p++;
	*delta = code == CKT_ACODE_MISS ? ckt_decode_sv(&d->cs[CKT_S_ADDR]) : 0;
	return code;
}

/* A release: the address, and in *pair the seq of the allocation the model matched (0 on a
 * miss). am_seq follows am.recent's slots: released() shifts entries 0..code-1 one slot on. */
static inline uint64_t ckt_decode_col_release(struct ckt_decoder *d, uint64_t *pair)
{
	int64_t delta;
	unsigned code = ckt_decode_acode(d, &delta);
	uint64_t a = 0;
	*pair = 0;
	if (code != CKT_ACODE_MISS && code < d->am.nrecent) {
		unsigned h = d->am.rhead;
		*pair = d->am_seq[CKT_AM_AT(h, code, CKT_AM_RECENT)];
		for (unsigned k = code; k > 0; k--)
			d->am_seq[CKT_AM_AT(h, k, CKT_AM_RECENT)] = d->am_seq[CKT_AM_AT(h, k - 1, CKT_AM_RECENT)];
	}
	if (ckt_am_dec_release(&d->am, code, delta, &a))
		d->cs[CKT_S_ACODE].bad = true;
	return a;
}

/* An allocation: the address; *seq gets its number, kept in the slot the model pushed it to. */
static inline uint64_t ckt_decode_col_alloc(struct ckt_decoder *d, uint64_t size, uint64_t *seq)
{
	int64_t delta;
	unsigned code = ckt_decode_acode(d, &delta);
	uint64_t a = 0;
	if (ckt_am_dec_alloc(&d->am, code, delta, size, &a))
		d->cs[CKT_S_ACODE].bad = true;
	d->am_seq[d->am.rhead] = *seq = ++d->seq;
	return a;
}

/* No allocation, mapping or running total moves 2^57 bytes or more at once (Linux refuses
 * longer ranges): such a value is corruption, refused before it can overflow a sum. Records
 * of calls that may have failed (CUDA_UNMAP) are not checked. */
#define CKT_DECODE_MAX_BYTES ((uint64_t)1 << 57)
/* The replay rounds a mapping's length up to whole pages (at most 1 GiB, the largest huge
 * page): lengths of mappings stay that far below the bound, so that rounded they do too (a
 * length of 2^57 - 1 became a peak of exactly 2^57 bytes). */
#define CKT_DECODE_MAX_MAP (CKT_DECODE_MAX_BYTES - ((uint64_t)1 << 30))
/* No mapping ends past this (rounded up to its pages, as above): the top of the address space
 * is the kernel's on every Linux (a forged one starting 4 KiB below 2^64 was counted). */
#define CKT_DECODE_MAP_TOP ((uint64_t)0 - ((uint64_t)1 << 30))

/* addr + len, rounded as the replay does, ends past CKT_DECODE_MAP_TOP */
static bool ckt_decode_past_top(uint64_t addr, uint64_t len)
{
	return addr > CKT_DECODE_MAP_TOP || len > CKT_DECODE_MAP_TOP - addr;
}

static bool ckt_decode_huge(uint8_t tag, const struct ckt_record *r)
{
	switch (tag) {
	case CKT_TAG_ALLOC:
		return r->u.alloc.size >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_REALLOC:
		return r->u.realloc.size >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_MMAP:
		return r->u.mmap.len >= CKT_DECODE_MAX_MAP;
	case CKT_TAG_MUNMAP:
		return r->u.munmap.len >= CKT_DECODE_MAX_MAP;
	case CKT_TAG_MPROTECT:
		return r->u.mprotect.len >= CKT_DECODE_MAX_MAP;
	case CKT_TAG_MREMAP:
		return r->u.mremap.old_len >= CKT_DECODE_MAX_MAP || r->u.mremap.new_len >= CKT_DECODE_MAX_MAP;
	case CKT_TAG_CUDA_ALLOC:
		return r->u.cuda_alloc.size >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_CUDA_MAP: /* not CUDA_UNMAP: written before the call, with whatever size the
				* program passed (the replay only takes away ranges it knows) */
		return r->u.cuda_map.size >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_RSS: /* resident memory is memory too: 2^64 - 1 made a peak of 16777216 TiB */
		return r->u.rss.rss >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_RSS_DETAIL:
		return r->u.rss_detail.hwm >= CKT_DECODE_MAX_BYTES || r->u.rss_detail.anon >= CKT_DECODE_MAX_BYTES ||
		       r->u.rss_detail.file >= CKT_DECODE_MAX_BYTES || r->u.rss_detail.shmem >= CKT_DECODE_MAX_BYTES;
	case CKT_TAG_AGG:
		return r->u.agg.bytes >= (int64_t)CKT_DECODE_MAX_BYTES || r->u.agg.bytes <= -(int64_t)CKT_DECODE_MAX_BYTES ||
		       r->u.agg.blocks >= (int64_t)CKT_DECODE_MAX_BYTES || r->u.agg.blocks <= -(int64_t)CKT_DECODE_MAX_BYTES;
	default:
		return false;
	}
}

/* Fields that the tracer writes from a small range and the replay keeps in as few bits: one
 * outside it is corruption, not a value to cut to its low bits (a phase id of 2^32 + 1 read as
 * phase 1). Returns the field's name and sets *max, or NULL when every field is in range. */
static const char *ckt_decode_out_of_range(uint8_t tag, const struct ckt_record *r, uint64_t *v,
					   uint64_t *min, uint64_t *max)
{
	*min = 0;
#define CKT_RANGE(field, name, bound)                                                             \
	do {                                                                                      \
		if ((field) > (bound)) {                                                          \
			*v = (field);                                                             \
			*max = (bound);                                                           \
			return name;                                                              \
		}                                                                                 \
	} while (0)
	switch (tag) {
	case CKT_TAG_THREAD:
		CKT_RANGE(r->tid, "thread id", UINT32_MAX);
		break;
	case CKT_TAG_THREAD_NAME:
		CKT_RANGE(r->u.thread_name.tid, "thread id", UINT32_MAX);
		CKT_RANGE(r->u.thread_name.len, "name length", CKT_MAX_STR);
		break;
	case CKT_TAG_MODULE:
		CKT_RANGE(r->u.module.path_len, "path length", CKT_MAX_PATH);
		CKT_RANGE(r->u.module.build_id_len, "build-id length", CKT_MAX_SHORT);
		break;
	case CKT_TAG_CUDA_DEVICE:
		CKT_RANGE(r->u.cuda_device.ordinal, "CUDA device ordinal", CKT_CUDA_NO_DEVICE);
		CKT_RANGE(r->u.cuda_device.uuid_len, "uuid length", CKT_MAX_SHORT);
		CKT_RANGE(r->u.cuda_device.name_len, "name length", CKT_MAX_SHORT);
		break;
	case CKT_TAG_THREAD_EXIT:
		CKT_RANGE(r->u.thread_exit.tid, "thread id", UINT32_MAX);
		break;
	case CKT_TAG_LIMIT:
		CKT_RANGE(r->u.limit.kind, "limit kind", CKT_LIMIT_KINDS);
		if (r->u.limit.kind == 0) { /* kinds count from 1: 0 was taken and ignored (0.2.49) */
			*v = 0;
			*min = 1;
			*max = CKT_LIMIT_KINDS;
			return "limit kind";
		}
		break;
	case CKT_TAG_AGG: /* nanoseconds, whole microseconds up to 2^32 - 1 of them (71 minutes) */
		CKT_RANGE(r->u.agg.since, "since", UINT32_MAX * 1000ull);
		break;
	case CKT_TAG_ALLOC:
		CKT_RANGE(r->u.alloc.fn, "function", UINT8_MAX);
		CKT_RANGE(r->u.alloc.phase, "phase id", CKT_MAX_PHASE_ID);
		break;
	case CKT_TAG_REALLOC:
		CKT_RANGE(r->u.realloc.phase, "phase id", CKT_MAX_PHASE_ID);
		break;
	case CKT_TAG_MMAP:
		CKT_RANGE(r->u.mmap.flags, "mapping flags", UINT16_MAX);
		CKT_RANGE(r->u.mmap.phase, "phase id", CKT_MAX_PHASE_ID);
		break;
	case CKT_TAG_CUDA_ALLOC:
		CKT_RANGE(r->u.cuda_alloc.kind, "CUDA kind", CKT_CUDA_REGISTERED);
		CKT_RANGE(r->u.cuda_alloc.device, "CUDA device ordinal", CKT_CUDA_NO_DEVICE);
		CKT_RANGE(r->u.cuda_alloc.fn, "function", UINT8_MAX);
		CKT_RANGE(r->u.cuda_alloc.phase, "phase id", CKT_MAX_PHASE_ID);
		break;
	case CKT_TAG_CUDA_FREE:
		CKT_RANGE(r->u.cuda_free.kind, "CUDA kind", CKT_CUDA_REGISTERED);
		CKT_RANGE(r->u.cuda_free.fn, "function", UINT8_MAX);
		break;
	case CKT_TAG_PHASE:
		CKT_RANGE(r->u.phase.op, "phase operation", CKT_PHASE_END);
		CKT_RANGE(r->u.phase.id, "phase id", CKT_MAX_PHASE_ID);
		break;
	case CKT_TAG_PHASE_DEF:
		CKT_RANGE(r->u.phase_def.id, "phase id", CKT_MAX_PHASE_ID);
		CKT_RANGE(r->u.phase_def.len, "name length", CKT_MAX_STR);
		break;
	case CKT_TAG_NOTE:
		CKT_RANGE(r->u.note.phase, "phase id", CKT_MAX_PHASE_ID);
		CKT_RANGE(r->u.note.len, "text length", CKT_MAX_STR);
		break;
	default:
		break;
	}
	return NULL;
#undef CKT_RANGE
}

/* A size no memory has, or a field out of its range: the error, else 0. */
static int ckt_decode_bad_field(struct ckt_decoder *d, uint8_t tag, const struct ckt_record *r,
				struct ckt_error *err)
{
	uint64_t v, min, max;
	const char *what;
	if (ckt_decode_huge(tag, r))
		return ckt_util_err(err, CKT_EFORMAT, "corrupt record (tag 0x%02x) in frame %llu: %s", tag,
				    (unsigned long long)d->frame_index,
				    tag == CKT_TAG_MMAP || tag == CKT_TAG_MUNMAP || tag == CKT_TAG_MPROTECT ||
						    tag == CKT_TAG_MREMAP
					    ? "a mapping of 2^57 - 2^30 bytes or more"
					    : "a size of 2^57 bytes or more");
	/* a mapping that exists (MUNMAP and MPROTECT may be of a call that failed: the replay
	 * only takes away what it knows) */
	if ((tag == CKT_TAG_MMAP && ckt_decode_past_top(r->u.mmap.addr, r->u.mmap.len)) ||
	    (tag == CKT_TAG_MREMAP && (ckt_decode_past_top(r->u.mremap.old_addr, r->u.mremap.old_len) ||
				       ckt_decode_past_top(r->u.mremap.new_addr, r->u.mremap.new_len))))
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt record (tag 0x%02x) in frame %llu: a mapping that ends past the top "
				    "of the address space",
				    tag, (unsigned long long)d->frame_index);
	if ((what = ckt_decode_out_of_range(tag, r, &v, &min, &max)) != NULL) {
		char range[48];
		if (min)
			snprintf(range, sizeof(range), "%llu to %llu", (unsigned long long)min, (unsigned long long)max);
		else
			snprintf(range, sizeof(range), "at most %llu", (unsigned long long)max);
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt record (tag 0x%02x) in frame %llu: %s %llu is out of range (%s)",
				    tag, (unsigned long long)d->frame_index, what, (unsigned long long)v, range);
	}
	return 0;
}

/* A STACK or PHASE_DEF record: the tracer defines each id once. The same definition again
 * changes nothing; another one is corruption: stacks and phases named by it would take
 * whichever the reader kept. The error, else 0 (or CKT_ENOMEM). */
static int ckt_decode_redefined(struct ckt_decoder *d, uint8_t tag, const struct ckt_record *r,
				struct ckt_error *err)
{
	struct ckt_util_map *m;
	uint64_t id, fp, had;
	if (tag == CKT_TAG_STACK) {
		m = &d->stack_fp;
		id = r->u.stack.id;
		fp = ckt_util_hash_bytes(r->u.stack.frames, r->u.stack.frames_len) ^ r->u.stack.nframes;
	} else if (tag == CKT_TAG_PHASE_DEF) {
		m = &d->phase_fp;
		id = r->u.phase_def.id;
		fp = ckt_util_hash_bytes(r->u.phase_def.name, r->u.phase_def.len);
	} else {
		return 0;
	}
	fp >>= 1; /* below UINT64_MAX, as the map wants */
	if (!ckt_util_map_get(m, id, &had))
		return ckt_util_map_put(m, id, fp) < 0 ? ckt_util_err(err, CKT_ENOMEM, "out of memory") : 0;
	if (had == fp)
		return 0;
	return ckt_util_err(err, CKT_EFORMAT, "corrupt record (tag 0x%02x) in frame %llu: %s id %llu defined a second time, %s",
			    tag, (unsigned long long)d->frame_index, tag == CKT_TAG_STACK ? "stack" : "phase",
			    (unsigned long long)id, tag == CKT_TAG_STACK ? "with other frames" : "with another name");
}

/* ALLOC, FREE and REALLOC of a version 2 frame: the tag was in ROW, the fields are in the
 * columns (see ckt_format.h for the order). */
static inline __attribute__((always_inline)) int ckt_decode_columns(struct ckt_decoder *d, struct ckt_record *r,
								    uint8_t tag, struct ckt_error *err)
{
	struct ckt_cursor *meta = &d->cs[CKT_S_META];
	switch (tag) {
	case CKT_TAG_ALLOC:
		r->ts = ckt_decode_col_ts(d, CKT_S_TS_LO);
		r->u.alloc.fn = ckt_decode_uv(meta);
		r->u.alloc.size = ckt_decode_plane(d, CKT_S_SIZE_LO, false);
		r->u.alloc.addr = ckt_decode_col_alloc(d, r->u.alloc.size, &r->u.alloc.seq);
		r->u.alloc.stack = ckt_decode_uv(meta);
		r->u.alloc.phase = ckt_decode_uv(meta);
		break;
	case CKT_TAG_FREE:
		r->ts = ckt_decode_col_ts(d, CKT_S_TSF_LO);
		r->u.free.addr = ckt_decode_col_release(d, &r->u.free.pair);
		break;
	default: /* CKT_TAG_REALLOC */
		r->ts = ckt_decode_col_ts(d, CKT_S_TS_LO);
		r->u.realloc.old_addr = ckt_decode_col_release(d, &r->u.realloc.pair);
		r->u.realloc.dafter = ckt_decode_uv(meta);
		r->u.realloc.size = ckt_decode_plane(d, CKT_S_SIZE_LO, false);
		r->u.realloc.new_addr = ckt_decode_col_alloc(d, r->u.realloc.size, &r->u.realloc.seq);
		r->u.realloc.stack = ckt_decode_uv(meta);
		r->u.realloc.phase = ckt_decode_uv(meta);
		break;
	}
	if (__builtin_expect(meta->bad || d->cs[CKT_S_ACODE].bad || d->cs[CKT_S_ESC].bad ||
				     d->cs[CKT_S_ADDR].bad || d->cs[CKT_S_TS_LO].bad ||
				     d->cs[CKT_S_TSF_LO].bad || d->cs[CKT_S_SIZE_LO].bad,
			     0))
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt record (tag 0x%02x) in frame %llu: its columns are short or inconsistent",
				    tag, (unsigned long long)d->frame_index);
	if (__builtin_expect(tag == CKT_TAG_ALLOC ? r->u.alloc.size >= CKT_DECODE_MAX_BYTES ||
							    r->u.alloc.fn > UINT8_MAX || r->u.alloc.phase > CKT_MAX_PHASE_ID
					       : tag == CKT_TAG_REALLOC && (r->u.realloc.size >= CKT_DECODE_MAX_BYTES ||
									    r->u.realloc.phase > CKT_MAX_PHASE_ID),
			     0))
		return ckt_decode_bad_field(d, tag, r, err);
	r->tid = d->tid;
	d->pos++;
	return 1;
}

/* Version 2: reads the stream directory at the start of the frame and points the cursors at
 * the streams. The lengths must add up to the frame exactly. */
static int ckt_decode_directory(struct ckt_decoder *d, struct ckt_error *err)
{
	struct ckt_cursor c = { d->frame, d->frame + d->frame_len, false, false };
	uint64_t n = ckt_decode_uv(&c), len[CKT_NSTREAMS];
	if (!c.bad && n != CKT_NSTREAMS)
		return ckt_util_err(err, CKT_EFORMAT, "corrupt frame %llu: %llu streams, expected %d",
				    (unsigned long long)d->frame_index, (unsigned long long)n,
				    CKT_NSTREAMS);
	uint64_t total = 0;
	for (int k = 0; k < CKT_NSTREAMS; k++) {
		len[k] = ckt_decode_uv(&c);
		total += len[k] < d->frame_len ? len[k] : d->frame_len + 1;
	}
	if (c.bad || total != (uint64_t)(c.end - c.p))
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt frame %llu: its stream lengths do not add up to its size",
				    (unsigned long long)d->frame_index);
	if (len[0] == 0) /* every data frame has at least its FRAME record */
		return ckt_util_err(err, CKT_EFORMAT, "corrupt frame %llu: its row stream is empty",
				    (unsigned long long)d->frame_index);
	d->pos = d->row_start = (size_t)(c.p - d->frame);
	d->row_end = d->pos + len[0];
	const uint8_t *p = c.p + len[0];
	for (int k = 1; k < CKT_NSTREAMS; k++) {
		d->cs[k] = (struct ckt_cursor){ p, p + len[k], false, false };
		p += len[k];
	}
	return 0;
}

/* Parses one record at d->pos. Returns 1 for a record to hand out, 0 for one consumed here
 * (FRAME, THREAD), negative on corruption. */
static int ckt_decode_record(struct ckt_decoder *d, struct ckt_record *r, struct ckt_error *err)
{
	struct ckt_cursor c = { d->frame + d->pos + 1, d->frame + d->row_end, false, false };
	uint8_t tag = d->frame[d->pos];
	int ret = 1;

	/* every case below sets all fields of its member of r->u; only ts is shared */
	r->ts = 0;
	r->tag = (enum ckt_tag)tag;
	if (d->pos == d->row_start && tag != CKT_TAG_FRAME)
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt record (tag 0x%02x) in frame %llu: a data frame must start with a FRAME record",
				    tag, (unsigned long long)d->frame_index);
	/* version 2's ALLOC, FREE and REALLOC never get here: ckt_decode_next decodes them */
	switch (tag) {
	case CKT_TAG_FRAME: {
		if (d->pos != d->row_start) /* its delta state would start over mid-frame */
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt record (tag 0x01) in frame %llu: a FRAME record inside a frame",
					    (unsigned long long)d->frame_index);
		/* frames are self-contained, but one missing (its events gone: frees of nothing,
		 * blocks never freed) or repeated (every event twice) is corruption */
		uint64_t seq = ckt_decode_uv(&c);
		if (d->any_seq && !c.bad) {
			d->any_seq = false;
			d->frame_next = seq;
		}
		if (!c.bad && seq != d->frame_next && d->frame_next == 0)
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt trace: the first data frame is number %llu, not 0 (frames are "
					    "missing from the start)",
					    (unsigned long long)seq);
		if (!c.bad && seq != d->frame_next)
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt trace: frame %llu is data frame number %llu, after number %llu "
					    "(a frame is missing, repeated or out of order)",
					    (unsigned long long)d->frame_index, (unsigned long long)seq,
					    (unsigned long long)(d->frame_next - 1));
		d->frame_next = seq + 1;
		d->base_ts = ckt_decode_uv(&c);
		d->prev_ts = d->base_ts;
		d->prev_addr = 0; /* no decoding state crosses a frame boundary */
		d->tid = 0;
		ckt_am_reset(&d->am);
		ret = 0;
		break;
	}
	case CKT_TAG_THREAD:
		d->tid = ckt_decode_uv(&c);
		d->prev_ts = d->base_ts;
		d->prev_addr = 0;
		ckt_am_reset(&d->am);
		ret = 0;
		break;
	case CKT_TAG_SYNC:
		r->ts = ckt_decode_uv(&c);
		break;
	case CKT_TAG_END:
		r->ts = ckt_decode_uv(&c);
		r->u.end.reason = ckt_decode_uv(&c);
		r->u.end.events = ckt_decode_uv(&c);
		r->u.end.lost = ckt_decode_uv(&c);
		break;
	case CKT_TAG_LOST:
		r->u.lost.count = ckt_decode_uv(&c);
		break;
	case CKT_TAG_WAITED:
		r->u.waited.ns = ckt_decode_uv(&c);
		r->u.waited.waits = ckt_decode_uv(&c);
		break;
	case CKT_TAG_LIMIT:
		r->ts = ckt_decode_uv(&c);
		r->u.limit.kind = ckt_decode_uv(&c);
		break;
	case CKT_TAG_THREAD_EXIT:
		r->ts = ckt_decode_uv(&c);
		r->u.thread_exit.tid = ckt_decode_uv(&c);
		break;
	case CKT_TAG_THREAD_NAME:
		r->ts = ckt_decode_uv(&c);
		r->u.thread_name.tid = ckt_decode_uv(&c);
		r->u.thread_name.name = ckt_decode_str(&c, &r->u.thread_name.len);
		break;
	case CKT_TAG_PHASE_DEF:
		r->u.phase_def.id = ckt_decode_uv(&c);
		r->u.phase_def.name = ckt_decode_str(&c, &r->u.phase_def.len);
		break;
	case CKT_TAG_PHASE:
		r->ts = ckt_decode_dts(d, &c);
		r->u.phase.op = ckt_decode_uv(&c);
		r->u.phase.id = ckt_decode_uv(&c);
		break;
	case CKT_TAG_AGG:
		r->ts = ckt_decode_dts(d, &c);
		r->u.agg.bytes = ckt_decode_sv(&c);
		r->u.agg.blocks = ckt_decode_sv(&c);
		r->u.agg.since = d->hdr.format_version >= 6 ? ckt_decode_uv(&c) : 0;
		break;
	case CKT_TAG_NOTE:
		r->ts = ckt_decode_uv(&c);
		r->u.note.phase = ckt_decode_uv(&c);
		r->u.note.text = ckt_decode_str(&c, &r->u.note.len);
		break;
	case CKT_TAG_STACK: {
		r->u.stack.id = ckt_decode_uv(&c);
		r->u.stack.nframes = ckt_decode_uv(&c);
		/* every sv takes at least a byte: a count above the bytes left is corrupt, and
		 * checking first keeps a hostile count from looping for long */
		if (!c.bad && r->u.stack.nframes > (uint64_t)(c.end - c.p))
			c.bad = true;
		if (!c.bad && r->u.stack.nframes > CKT_STACK_MAX_FRAMES)
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt record (tag 0x%02x) in frame %llu: a stack of %llu frames "
					    "(at most %d)", tag, (unsigned long long)d->frame_index,
					    (unsigned long long)r->u.stack.nframes, CKT_STACK_MAX_FRAMES);
		r->u.stack.frames = c.p;
		for (uint64_t k = 0; k < r->u.stack.nframes && !c.bad; k++)
			(void)ckt_decode_sv(&c);
		r->u.stack.frames_len = (size_t)(c.p - r->u.stack.frames);
		break;
	}
	case CKT_TAG_MODULE:
		r->u.module.base = ckt_decode_uv(&c);
		r->u.module.lo = ckt_decode_uv(&c);
		r->u.module.hi = ckt_decode_uv(&c);
		r->u.module.path = ckt_decode_str(&c, &r->u.module.path_len);
		r->u.module.build_id = ckt_decode_str(&c, &r->u.module.build_id_len);
		break;
	case CKT_TAG_CUDA_DEVICE:
		r->u.cuda_device.ordinal = ckt_decode_uv(&c);
		r->u.cuda_device.uuid = ckt_decode_str(&c, &r->u.cuda_device.uuid_len);
		r->u.cuda_device.name = ckt_decode_str(&c, &r->u.cuda_device.name_len);
		break;
	case CKT_TAG_CUDA_ALLOC:
		r->ts = ckt_decode_dts(d, &c);
		r->u.cuda_alloc.kind = ckt_decode_uv(&c);
		r->u.cuda_alloc.device = ckt_decode_uv(&c);
		r->u.cuda_alloc.addr = ckt_decode_daddr(d, &c);
		r->u.cuda_alloc.size = ckt_decode_uv(&c);
		r->u.cuda_alloc.stack = ckt_decode_uv(&c);
		r->u.cuda_alloc.phase = ckt_decode_uv(&c);
		r->u.cuda_alloc.fn = ckt_decode_uv(&c);
		break;
	case CKT_TAG_CUDA_FREE:
		r->ts = ckt_decode_dts(d, &c);
		r->u.cuda_free.kind = ckt_decode_uv(&c);
		r->u.cuda_free.addr = ckt_decode_daddr(d, &c);
		r->u.cuda_free.fn = ckt_decode_uv(&c);
		break;
	case CKT_TAG_CUDA_MAP:
	case CKT_TAG_CUDA_UNMAP:
		r->ts = ckt_decode_dts(d, &c);
		r->u.cuda_map.addr = ckt_decode_daddr(d, &c);
		r->u.cuda_map.size = ckt_decode_uv(&c);
		r->u.cuda_map.handle = tag == CKT_TAG_CUDA_MAP ? ckt_decode_uv(&c) : 0;
		break;
	case CKT_TAG_ALLOC:
		r->ts = ckt_decode_dts(d, &c);
		r->u.alloc.fn = ckt_decode_uv(&c);
		r->u.alloc.addr = ckt_decode_daddr(d, &c);
		r->u.alloc.size = ckt_decode_uv(&c);
		r->u.alloc.stack = ckt_decode_uv(&c);
		r->u.alloc.phase = ckt_decode_uv(&c);
		r->u.alloc.seq = 0;
		break;
	case CKT_TAG_FREE:
		r->ts = ckt_decode_dts(d, &c);
		r->u.free.addr = ckt_decode_daddr(d, &c);
		r->u.free.pair = 0;
		break;
	case CKT_TAG_REALLOC:
		r->ts = ckt_decode_dts(d, &c);
		r->u.realloc.old_addr = ckt_decode_daddr(d, &c);
		r->u.realloc.dafter = ckt_decode_uv(&c);
		r->u.realloc.new_addr = ckt_decode_daddr(d, &c);
		r->u.realloc.size = ckt_decode_uv(&c);
		r->u.realloc.stack = ckt_decode_uv(&c);
		r->u.realloc.phase = ckt_decode_uv(&c);
		r->u.realloc.seq = r->u.realloc.pair = 0;
		break;
	case CKT_TAG_MMAP:
		r->ts = ckt_decode_dts(d, &c);
		r->u.mmap.addr = ckt_decode_daddr(d, &c);
		r->u.mmap.len = ckt_decode_uv(&c);
		r->u.mmap.flags = ckt_decode_uv(&c);
		r->u.mmap.prot = ckt_decode_uv(&c);
		r->u.mmap.stack = ckt_decode_uv(&c);
		r->u.mmap.phase = ckt_decode_uv(&c);
		break;
	case CKT_TAG_MUNMAP:
		r->ts = ckt_decode_dts(d, &c);
		r->u.munmap.addr = ckt_decode_daddr(d, &c);
		r->u.munmap.len = ckt_decode_uv(&c);
		break;
	case CKT_TAG_MPROTECT: /* version 5; accepted in a trace of any version, as CUDA_MAP */
		r->ts = ckt_decode_dts(d, &c);
		r->u.mprotect.addr = ckt_decode_daddr(d, &c);
		r->u.mprotect.len = ckt_decode_uv(&c);
		r->u.mprotect.prot = ckt_decode_uv(&c);
		break;
	case CKT_TAG_MREMAP:
		r->ts = ckt_decode_dts(d, &c);
		r->u.mremap.old_addr = ckt_decode_daddr(d, &c);
		r->u.mremap.old_len = ckt_decode_uv(&c);
		r->u.mremap.new_addr = ckt_decode_daddr(d, &c);
		r->u.mremap.new_len = ckt_decode_uv(&c);
		r->u.mremap.dafter = d->hdr.format_version >= 3 ? ckt_decode_uv(&c) : 0;
		break;
	case CKT_TAG_RSS:
		r->ts = ckt_decode_dts(d, &c);
		r->u.rss.rss = ckt_decode_uv(&c);
		break;
	case CKT_TAG_RSS_DETAIL:
		r->ts = ckt_decode_dts(d, &c);
		r->u.rss_detail.hwm = ckt_decode_uv(&c);
		r->u.rss_detail.anon = ckt_decode_uv(&c);
		r->u.rss_detail.file = ckt_decode_uv(&c);
		r->u.rss_detail.shmem = ckt_decode_uv(&c);
		break;
	default:
		/* a tag no tracer writes: its layout is not ours to guess, and the line says so
		 * (it named the tag alone, which read like a record whose fields were wrong) */
		return ckt_util_err(err, CKT_EFORMAT,
				    "corrupt record (tag 0x%02x) in frame %llu: no record has this tag", tag,
				    (unsigned long long)d->frame_index);
	}
	if (c.bad)
		return ckt_util_err(err, CKT_EFORMAT, "corrupt record (tag 0x%02x) in frame %llu: %s", tag,
				    (unsigned long long)d->frame_index,
				    c.overlong ? "a number of more than 64 bits" : "it runs past the end of the frame");
	if (tag == CKT_TAG_END && d->ended)
		return ckt_util_err(err, CKT_EFORMAT, "corrupt record (tag 0x%02x) in frame %llu: a second end record",
				    tag, (unsigned long long)d->frame_index);
	r->tid = d->tid;
	int bad = ckt_decode_bad_field(d, tag, r, err);
	if (!bad)
		bad = ckt_decode_redefined(d, tag, r, err);
	if (bad)
		return bad;
	d->pos = (size_t)(c.p - d->frame);
	if (tag == CKT_TAG_END)
		d->ended = true; /* the rest of this frame is still read; later frames are not */
	return ret;
}

int ckt_decode_next(struct ckt_decoder *d, struct ckt_record *rec, struct ckt_error *err)
{
	for (;;) {
		while (d->pos < d->row_end) {
			/* nearly every record: a heap event of a version 2 frame, its fields in columns */
			uint8_t tag = d->frame[d->pos];
			if (__builtin_expect(tag >= CKT_TAG_ALLOC && tag <= CKT_TAG_REALLOC &&
						     d->hdr.format_version >= 2 && d->pos != d->row_start,
					     1)) {
				rec->tag = (enum ckt_tag)tag;
				return ckt_decode_columns(d, rec, tag, err);
			}
			int rc = ckt_decode_record(d, rec, err);
			if (rc != 0)
				return rc;
		}
		if (d->hdr.format_version >= 2 && d->row_end) {
			for (int k = 1; k < CKT_NSTREAMS; k++)
				if (d->cs[k].p != d->cs[k].end)
					return ckt_util_err(err, CKT_EFORMAT,
							    "corrupt frame %llu: stream %d has %zu bytes no record uses",
							    (unsigned long long)d->frame_index, k,
							    (size_t)(d->cs[k].end - d->cs[k].p));
			d->row_end = 0;
		}
		if (d->ended)
			return 0;
		int rc = ckt_decode_read_frame(d, err);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			d->truncated = true;
			return 0;
		}
		d->row_start = 0;
		d->row_end = d->frame_len;
		/* said plainly, not as the stream directory they fail to be: a zstd frame with no
		 * data (an empty or skippable one), and a second trace's header (a trace appended
		 * to one that was cut) */
		if (d->frame_len == 0)
			return ckt_util_err(err, CKT_EFORMAT, "corrupt frame %llu: it is empty (a zstd frame with no data)",
					    (unsigned long long)d->frame_index);
		if (d->frame_len >= CKT_MAGIC_LEN && memcmp(d->frame, CKT_MAGIC, CKT_MAGIC_LEN) == 0)
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt trace: frame %llu is a trace header (another trace appended "
					    "to this one, which was cut?)",
					    (unsigned long long)d->frame_index);
		if (d->hdr.format_version >= 2 && (rc = ckt_decode_directory(d, err)) < 0)
			return rc;
		if (d->row_end == d->row_start) /* every data frame has its FRAME record */
			return ckt_util_err(err, CKT_EFORMAT, "corrupt frame %llu: it is empty",
					    (unsigned long long)d->frame_index);
	}
}

bool ckt_decode_heap_next(const struct ckt_decoder *d, uint64_t *tid)
{
	if (d->hdr.format_version < 2 || d->pos >= d->row_end || d->pos == d->row_start)
		return false;
	uint8_t tag = d->frame[d->pos];
	*tid = d->tid;
	return tag == CKT_TAG_ALLOC || tag == CKT_TAG_FREE;
}

/* One ALLOC or FREE of ckt_decode_heap: ckt_decode_columns' reads and checks, in its order,
 * with the fields going straight to their places in e (a record is built only for the message
 * of a field out of range). A record reads only the columns of its kind, and a failure is said
 * at the record that meets it, so the cursors of the other columns cannot have failed. (Calling
 * ckt_decode_columns into a local record and copying its fields costs 2.3% more instructions
 * over the whole report of an exact trace: its checks of every column, and the copy.) */
static inline __attribute__((always_inline)) int ckt_decode_heap_one(struct ckt_decoder *d, struct ckt_ev *e,
								     uint64_t *aux, uint8_t tag,
								     struct ckt_error *err)
{
	struct ckt_cursor *meta = &d->cs[CKT_S_META];
	if (tag == CKT_TAG_ALLOC) {
		uint64_t ts = ckt_decode_col_ts(d, CKT_S_TS_LO);
		uint64_t fn = ckt_decode_uv(meta);
		uint64_t size = ckt_decode_plane(d, CKT_S_SIZE_LO, false);
		uint64_t seq;
		uint64_t addr = ckt_decode_col_alloc(d, size, &seq);
		uint64_t stack = ckt_decode_uv(meta);
		uint64_t phase = ckt_decode_uv(meta);
		if (__builtin_expect(meta->bad | d->cs[CKT_S_ACODE].bad | d->cs[CKT_S_ESC].bad |
					     d->cs[CKT_S_ADDR].bad | d->cs[CKT_S_TS_LO].bad | d->cs[CKT_S_SIZE_LO].bad,
				     0))
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt record (tag 0x%02x) in frame %llu: its columns are short or inconsistent",
					    tag, (unsigned long long)d->frame_index);
		if (__builtin_expect(size >= CKT_DECODE_MAX_BYTES || fn > UINT8_MAX || phase > CKT_MAX_PHASE_ID, 0)) {
			struct ckt_record r = { .tag = CKT_TAG_ALLOC, .tid = d->tid, .ts = ts };
			r.u.alloc.fn = fn;
			r.u.alloc.addr = addr;
			r.u.alloc.size = size;
			r.u.alloc.stack = stack;
			r.u.alloc.phase = phase;
			r.u.alloc.seq = seq;
			return ckt_decode_bad_field(d, tag, &r, err);
		}
		e->ts = ts;
		e->addr = addr;
		e->len = size;
		e->stack = stack;
		e->phase = (uint32_t)phase;
		e->flags = 0;
		e->kind = CKT_EV_ALLOC;
		e->fn = (uint8_t)fn;
		*aux = seq;
	} else {
		uint64_t ts = ckt_decode_col_ts(d, CKT_S_TSF_LO);
		uint64_t pair;
		uint64_t addr = ckt_decode_col_release(d, &pair);
		if (__builtin_expect(d->cs[CKT_S_ACODE].bad | d->cs[CKT_S_ESC].bad | d->cs[CKT_S_ADDR].bad |
					     d->cs[CKT_S_TSF_LO].bad,
				     0))
			return ckt_util_err(err, CKT_EFORMAT,
					    "corrupt record (tag 0x%02x) in frame %llu: its columns are short or inconsistent",
					    tag, (unsigned long long)d->frame_index);
		e->ts = ts;
		e->addr = addr;
		e->flags = 0;
		e->kind = CKT_EV_FREE;
		*aux = pair;
	}
	d->pos++;
	return 1;
}

size_t ckt_decode_heap(struct ckt_decoder *d, struct ckt_ev *ev, uint64_t *aux, size_t max, int *rc,
		       struct ckt_error *err)
{
	size_t k = 0;
	*rc = 1;
	if (d->hdr.format_version < 2)
		return 0;
	for (; k < max && d->pos < d->row_end && d->pos != d->row_start; k++) {
		uint8_t tag = d->frame[d->pos];
		if (tag != CKT_TAG_ALLOC && tag != CKT_TAG_FREE)
			break;
		int r = ckt_decode_heap_one(d, &ev[k], &aux[k], tag, err);
		if (r < 0) {
			*rc = r;
			break;
		}
	}
	return k;
}

int ckt_decode_batch(struct ckt_decoder *d, struct ckt_record *recs, size_t max, size_t *n,
		     struct ckt_error *err)
{
	size_t k = 0;
	/* the run of heap events of a version 2 frame, one call for all of them: a call per
	 * record (its saved registers, the caller's loop) was a tenth of the decoder's
	 * instructions on the benchmark's trace */
	if (d->hdr.format_version >= 2) {
		while (k < max && d->pos < d->row_end) {
			uint8_t tag = d->frame[d->pos];
			if (tag < CKT_TAG_ALLOC || tag > CKT_TAG_REALLOC || d->pos == d->row_start)
				break;
			recs[k].tag = (enum ckt_tag)tag;
			int rc = ckt_decode_columns(d, &recs[k], tag, err);
			if (rc < 0) {
				*n = k;
				return rc;
			}
			k++;
		}
	}
	if (k) {
		*n = k;
		return 1;
	}
	int rc = ckt_decode_next(d, recs, err);
	*n = rc > 0;
	return rc;
}
