/* decode.h: turns a trace file into a stream of records with absolute timestamps and
 * addresses. It owns the file, the zstd stream, frame boundaries, the header and the per-thread
 * delta state; what the records mean (ordering, live sets, peaks) is replay's business.
 */
#ifndef CKT_DECODE_H
#define CKT_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ckt_format.h"
#include "util.h"

/* Header of the trace (frame 0). Every key is kept, in file order, including ones this
 * reader does not know; values are byte strings (NUL-terminated for convenience, but use
 * the length: nothing stops a value from holding a NUL). */
struct ckt_header_kv {
	char *key;
	size_t key_len;
	char *value;
	size_t value_len;
};

struct ckt_header {
	unsigned format_version;
	struct ckt_header_kv *kv;
	size_t n_kv;
	uint64_t page_size; /* from "page_size"; 0 when absent or not a power of two from 4096 to 1 GiB */
};

struct ckt_ev; /* event.h */

/* Not a record of the file (its tags are bytes): a run of ALLOC and FREE records of thread tid
 * already decoded into queue entries (ckt_decode_heap), which the decoder thread of --jobs 2
 * hands to the replay in a batch of records (readahead.c, ckt_replay_feed). */
#define CKT_REC_HEAP_RUN ((enum ckt_tag)0x100)

/* One decoded record. ts and addresses are absolute (the deltas are already applied); tid is
 * the thread of the THREAD group the record sits in (0 before any THREAD in a frame).
 * FRAME and THREAD are consumed by the decoder and never returned. */
struct ckt_record {
	enum ckt_tag tag;
	uint64_t tid;
	uint64_t ts; /* events; END's ts; SYNC's horizon */
	union {
		/* seq and pair (version 2 and later; 0 in version 1): every allocated address
		 * (ALLOC, REALLOC's new one) gets a seq, counting from 1; a release (FREE,
		 * REALLOC's old address) the address model matched to an allocation of the same
		 * thread in the same frame carries that allocation's seq in pair, else 0. Such a
		 * release frees exactly the block that allocation made (the model's recent list
		 * holds the newest allocations of the thread group not yet released). */
		struct { uint64_t fn, addr, size, stack, phase, seq; } alloc;
		struct { uint64_t addr, pair; } free;
		struct { uint64_t old_addr, dafter, new_addr, size, stack, phase, seq, pair; } realloc;
		struct { uint64_t addr, len, flags, prot, stack, phase; } mmap;
		struct { uint64_t addr, len; } munmap;
		struct { uint64_t addr, len, prot; } mprotect; /* version 5 */
		struct { uint64_t old_addr, old_len, new_addr, new_len, dafter; } mremap;
		struct { uint64_t rss; } rss;
		struct { uint64_t hwm, anon, file, shmem; } rss_detail;
		struct { uint64_t reason, events, lost; } end;
		struct { uint64_t count; } lost;
		struct { uint64_t ns, waits; } waited; /* version 7 */
		struct { uint64_t kind; } limit;       /* version 8 (ts: when) */
		struct { uint64_t kind, device, addr, size, stack, phase, fn; } cuda_alloc;
		struct { uint64_t kind, addr, fn; } cuda_free;
		/* CUDA_MAP and CUDA_UNMAP (handle 0) */
		struct { uint64_t addr, size, handle; } cuda_map;
		/* Pointers below point into the decoder's frame buffer: valid until the next call. */
		struct { uint64_t tid; const uint8_t *name; size_t len; } thread_name; /* ts = from */
		struct { uint64_t tid; } thread_exit; /* ts = when */
		struct { uint64_t id; const uint8_t *name; size_t len; } phase_def;
		struct { uint64_t op, id; } phase; /* op: enum ckt_phase_op */
		/* since: version 6, 0 before (ckt_format.h) */
		struct { int64_t bytes, blocks; uint64_t since; } agg;
		struct { uint64_t phase; const uint8_t *text; size_t len; } note; /* ts = when */
		/* frames: nframes sv deltas (already validated), each frame minus the previous one
		 * starting from 0; walk them with ckt_get_sv up to frames + frames_len */
		struct { uint64_t id, nframes; const uint8_t *frames; size_t frames_len; } stack;
		struct {
			uint64_t base, lo, hi;
			const uint8_t *path, *build_id;
			size_t path_len, build_id_len;
		} module;
		struct {
			uint64_t ordinal;
			const uint8_t *uuid, *name;
			size_t uuid_len, name_len;
		} cuda_device;
		/* CKT_REC_HEAP_RUN: n events of ckt_decode_heap, and their aux values */
		struct { const struct ckt_ev *ev; const uint64_t *aux; size_t n; } heap_run;
	} u;
};

struct ckt_decoder;

/* Opens path, reads and checks the header frame. On failure returns a negative CKT_E* code,
 * *out stays NULL and err says why ("empty file", "not a cuzktrace trace",
 * "unsupported format version 9 (this reader reads 1 to 8)", strerror() for I/O). */
int ckt_decode_open(const char *path, struct ckt_decoder **out, struct ckt_error *err);

/* Right after ckt_decode_open of a regular file: positions d at the last whole zstd frame
 * after the header, found by walking the frames' block headers (a few bytes of each block are
 * read), so that ckt_decode_next reads that frame alone (any FRAME seq accepted) and tells how
 * the trace ends (ckt_decode_truncated: no END there) without reading the rest. 1 when
 * positioned, 0 when no whole frame follows the header (the trace holds no event), negative
 * with err set (not a regular file, mmap or seek failed). */
int ckt_decode_seek_last(struct ckt_decoder *d, struct ckt_error *err);

/* After an error of ckt_decode_next (or a batch, or a heap run): where the zstd frame it came
 * from starts, in a regular file, when whole data frames come before it (the reader's
 * --salvage reads up to there); else 0. */
uint64_t ckt_decode_error_frame(const struct ckt_decoder *d);

/* Right after ckt_decode_open of a regular file: no byte at or past off is read, as if the
 * file ended there (--salvage, at a frame's start: a trace cut between frames). */
void ckt_decode_limit(struct ckt_decoder *d, uint64_t off);
/* ckt_decode_limit's offset, or 0 */
uint64_t ckt_decode_limited(const struct ckt_decoder *d);

/* After ckt_decode_seek_last returned 0: what follows the header. A child's trace whose first
 * frame was cut (a full disk, a copy cut short) was listed as killed before its first flush. */
enum ckt_decode_tail {
	CKT_DECODE_TAIL_NONE,  /* nothing: the header alone */
	CKT_DECODE_TAIL_CUT,   /* the start of a zstd frame the file ends inside */
	CKT_DECODE_TAIL_OTHER, /* bytes that begin no frame (zeros of a crash, or damage) */
};
enum ckt_decode_tail ckt_decode_tail(const struct ckt_decoder *d);

/* True when the trace is a regular file (read up to its size when opened), not a pipe. */
bool ckt_decode_regular(const struct ckt_decoder *d);

/* The header parsed by ckt_decode_open; owned by the decoder. */
const struct ckt_header *ckt_decode_header(const struct ckt_decoder *d);
/* The program's arguments, one after the other, each ended by *sep (the last one by the end of
 * the value): the "args" key (NUL between them, tracer 0.2.8 on), else "argv" ('\n' between
 * them: an argument that held one reads as two). NULL when the header has neither. */
const struct ckt_header_kv *ckt_decode_args(const struct ckt_decoder *d, char *sep);
/* The whole command line's length in bytes when the header keeps only its start (the
 * "args_total" key, tracer 0.2.11 on: a number larger than the arguments kept), else 0. */
uint64_t ckt_decode_args_total(const struct ckt_decoder *d);
/* A header key's entry, or NULL when absent. */
const struct ckt_header_kv *ckt_decode_header_kv(const struct ckt_decoder *d, const char *key);
/* Value of a header key, or NULL when absent. */
const char *ckt_decode_header_get(const struct ckt_decoder *d, const char *key);

/* Next record: returns 1 and fills *rec, 0 at the end of the trace (after the frame holding
 * END, or at end of file), negative CKT_E* on a corrupt frame or record or a read error.
 * A file that ends inside a zstd frame is not an error: that frame is dropped and the trace
 * counts as truncated. Memory: one decompressed frame at a time. */
int ckt_decode_next(struct ckt_decoder *d, struct ckt_record *rec, struct ckt_error *err);

/* ckt_decode_next for up to max records at once (max > 0): *n records go to recs, which the
 * caller takes in order before the return value, 1 (more to come), 0 (the end) or negative
 * (the error of the record after them, in err). Only the last record may point into the
 * frame buffer, and its pointers stay valid until the next call. */
int ckt_decode_batch(struct ckt_decoder *d, struct ckt_record *recs, size_t max, size_t *n,
		     struct ckt_error *err);

/* The run of ALLOC and FREE records at the decoder's position, for the replay to queue without
 * a struct ckt_record in between (ckt_replay_run): true when the next record is one of a version
 * 2 frame, with *tid its thread (that of its THREAD group). */
bool ckt_decode_heap_next(const struct ckt_decoder *d, uint64_t *tid);
/* Decodes that run, up to max records and no further than its end (any other record, REALLOC
 * included, or the frame's end: ckt_decode_batch reads those), straight into ev[]: ts, kind
 * (CKT_EV_ALLOC or CKT_EV_FREE), flags 0, addr, and for an ALLOC len (its size), stack, phase
 * and fn, as the replay queues them; aux[i] gets an ALLOC's seq or a FREE's pair (struct
 * ckt_record). Returns how many, all of *tid's thread; *rc is 1, or negative with err set
 * for a corrupt record after them, as ckt_decode_batch would have said. */
size_t ckt_decode_heap(struct ckt_decoder *d, struct ckt_ev *ev, uint64_t *aux, size_t max, int *rc,
		       struct ckt_error *err);

/* After ckt_decode_next returned 0: true when the trace has no END record (a killed process,
 * whether or not the file also ends inside a frame). */
bool ckt_decode_truncated(const struct ckt_decoder *d);
/* After ckt_decode_next returned 0: bytes in the file after the frame holding END (another
 * trace appended, or garbage), which are not read; UINT64_MAX when there are some but the
 * input is not a regular file (a pipe). 0 for a trace without END. *zeros: they are all zero
 * bytes (a regular file only). */
uint64_t ckt_decode_trailing(struct ckt_decoder *d, bool *zeros);
/* After ckt_decode_next returned 0: the number of zero bytes the file ends in (a crash's lost
 * writes, a preallocated file), read as the trace's end, and in *from where they start; 0 when
 * none. They start where a frame would, or inside the last frame, which is then dropped
 * (ckt_decode_dropped_partial). The trace counts as truncated: no frame before them held END. */
uint64_t ckt_decode_zero_tail_bytes(const struct ckt_decoder *d, uint64_t *from);
/* After ckt_decode_next returned 0: true when a partial last zstd frame was dropped. */
bool ckt_decode_dropped_partial(const struct ckt_decoder *d);
/* The byte offset where that partial frame starts. */
uint64_t ckt_decode_partial_offset(const struct ckt_decoder *d);

void ckt_decode_close(struct ckt_decoder *d);

#endif
