/* util.h: small helpers shared by the reader modules: the error record that travels upward
 * to main.c, and the number formatting (human byte units, seconds) every report uses.
 */
#ifndef CKT_UTIL_H
#define CKT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Reader error regime: functions return 0 (or a positive count) on success and a negative
 * CKT_E* code on failure, with the human sentence in the ckt_error they were given.
 * Only main.c prints it, as "cuzktrace-report: error: '<file>': <msg>". */
enum ckt_errcode {
	CKT_EOK = 0,
	CKT_EIO = -1,      /* the file could not be opened or read: msg is strerror() */
	CKT_EFORMAT = -2,  /* not a trace, wrong version, corrupt zstd or record */
	CKT_ENOMEM = -3,
};

struct ckt_error {
	int code;
	char msg[256];
};

/* Records code and a printf-style message in err (which may be NULL); returns code, so a
 * caller can write `return ckt_util_err(err, CKT_EFORMAT, "...")`. */
int ckt_util_err(struct ckt_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "1.50 GiB": binary units B KiB MiB GiB TiB with three significant digits (values at or
 * above 1000 of a unit keep four, e.g. "1000 KiB"). Returns buf. */
char *ckt_util_fmt_bytes(char *buf, size_t n, uint64_t bytes);
/* The same for a signed quantity (the unexplained RSS remainder can be negative). */
char *ckt_util_fmt_sbytes(char *buf, size_t n, int64_t bytes);
/* ns as seconds with `decimals` (0..9) digits, rounded half up with integer math so text,
 * JSON and CSV agree to the last digit. Returns buf. */
char *ckt_util_fmt_secs(char *buf, size_t n, uint64_t ns, int decimals);
/* The same with 3 decimals, or 6 or 9 where a time that is not 0 would read as 0.000 (a wait
 * of 0.2 ms is not none). Returns buf. */
char *ckt_util_fmt_secs_nz(char *buf, size_t n, uint64_t ns);

/* Length (1..4) of the valid UTF-8 sequence that starts at s (n > 0 bytes available), or 0
 * when s does not start one (stray continuation byte, overlong form, surrogate, > U+10FFFF). */
size_t ckt_util_utf8_len(const unsigned char *s, size_t n);
/* Length (1..4) of the printable character at s (n > 0 bytes available): valid UTF-8 and not
 * a control character (C0, DEL, C1), a line or paragraph separator or a bidirectional
 * override; 0 for a byte every output shows as '?' (text, CSV, stderr): a terminal or a CSV
 * reader must not be driven by bytes from a trace file. */
size_t ckt_util_clean_len(const unsigned char *s, size_t n);
/* Where ckt_util_clean_len is 0: how many bytes at s show as one '?' (a whole character when it
 * is valid UTF-8: a line separator is one '?', not three; else the one invalid byte). */
size_t ckt_util_unclean_len(const unsigned char *s, size_t n);
/* Cleans s in place as ckt_util_put_clean writes it; returns its new length (not more). */
size_t ckt_util_clean(char *s, size_t n);
/* Writes str with control bytes and invalid UTF-8 shown as '?' (ckt_util_clean_len). */
size_t ckt_util_put_clean(FILE *out, const char *str, size_t n); /* returns the characters written */

/* A decimal number: digits only (no sign, space or base prefix), at most UINT64_MAX. false,
 * *v untouched, for anything else. */
bool ckt_util_dec_u64(const char *s, uint64_t *v);
/* The length of name[0..len) without the generic arguments it ends in ("build_aux<u64>" ->
 * 9, "build_aux"); len when it ends in none. */
size_t ckt_util_sans_generics(const char *name, size_t len);
/* A demangled C++ name[0..len) without GCC's ABI tags ("ns::make_row[abi:cxx11](unsigned long)"
 * -> "ns::make_row(unsigned long)") into buf (n bytes, NUL-terminated; buf may be name itself:
 * the copy only moves bytes down). Returns its length (len where there was none), or
 * (size_t)-1 where buf is too small. */
size_t ckt_util_sans_abi_tags(const char *name, size_t len, char *buf, size_t n);
/* Writes str (NUL-terminated) cleaned, with each `sep` written as `as`. */
void ckt_util_put_clean_sep(FILE *out, const char *str, char sep, const char *as);
/* Writes str as one CSV field (RFC 4180), cleaned the same way: quoted when `always` or when it
 * holds a comma or a quote, quotes doubled. */
void ckt_util_put_csv(FILE *out, const char *str, bool always);
/* The inside of a quoted CSV field: str cleaned, quotes doubled (no quotes around it). */
void ckt_util_put_csv_inner(FILE *out, const char *str);

/* An output file written whole or not at all. A regular file, or a name not taken yet (a
 * symbolic link that leads nowhere yet: the name it leads to), is written under a temporary
 * name beside it (".<name>.XXXXXX"). Closed with ok, the temporary is copied over an existing
 * file in place (its inode, links, owner, mode and ACLs stay), or renamed to a new name (0666
 * less the umask; copied where the rename fails); closed without ok (the trace turned out
 * corrupt midway, a write failed) the temporary goes and what was there stays as it was.
 * Anything else (a pipe, /dev/stdout, /dev/null), or a directory where no temporary can be
 * made, is written in place. */
struct ckt_util_out {
	FILE *f;
	char *tmp, *dst; /* NULL when written in place */
	bool exists;     /* dst existed: copied over at the end */
	bool to_stdout;  /* "-": f is an unnamed temporary, copied to stdout at the end */
};
/* The directory of the temporary the "-" output was put together in when that output failed
 * there (not in its copy to stdout), else NULL. */
const char *ckt_util_out_stage_failed(void);
/* path "-" is standard output. 0, or -errno (nothing left behind) */
int ckt_util_out_open(struct ckt_util_out *o, const char *path);
/* Removes the temporaries of the file outputs still open, for a reader that must end at once
 * (_exit: no close runs). Allocates nothing. */
void ckt_util_out_abandon(void);
/* The name a symbolic link that leads nowhere yet leads to (links followed up to 8 deep),
 * malloc'ed; NULL when path is no such link (or the links lead round). */
char *ckt_util_link_target(const char *path);
/* Closes o (nothing when it is not open); with ok the file is put in place. 0, or -errno of
 * the first failure, writes before included (ferror): then nothing was put in place. */
int ckt_util_out_close(struct ckt_util_out *o, bool ok);

/* Fibonacci hashing for addresses and tids (their low bits are often zero), keyed: a trace
 * cannot choose addresses that all land in one probe run of the reader's tables without
 * knowing the key (with none, 120,000 forged addresses took 13 s, each one probing past all
 * the others). The key is random per run (ckt_util_hash_init); no output depends on where a
 * key lands, only the time it takes. */
extern uint64_t ckt_util_hash_key;
void ckt_util_hash_init(void);
/* Raises a small stack limit (ulimit -s), and under an address-space limit grows the main
 * thread's stack at start so that a deep call made when memory runs out does not die growing
 * it (util.c); call first thing in main. The stack limit in bytes where it stays under what
 * the reader may need (the hard limit), else 0. */
uint64_t ckt_util_stack_reserve(void);
/* path lies on a file system of the kernel's (/proc, /sys, debugfs, tracefs), whose files may
 * say they are regular and empty and still block a read, or take what they hold away from
 * whoever reads them (/proc/kmsg) */
bool ckt_util_kernel_file(const char *path);
static inline uint64_t ckt_util_hash64(uint64_t x)
{
	x ^= ckt_util_hash_key;
	x ^= x >> 31;
	return x * 0x9e3779b97f4a7c15ull;
}

/* ---- big tables ----
 * The replay's live map and event queues and the sites' stacks are read at random or streamed
 * through; at a few MiB and up, 4 KiB pages make every access a TLB miss too (the page walk
 * cost a quarter of the merge loop). Such tables get their own mapping, asking for huge pages,
 * in whole huge pages on a huge page's boundary (since 0.2.48: the kernel gives them only to
 * the aligned 2 MiB runs of a mapping); small ones stay with malloc. Memory comes zeroed either
 * way. NULL when out of memory. */
void *ckt_util_big_alloc(size_t bytes);
/* p from ckt_util_big_alloc(bytes), or NULL */
void ckt_util_big_free(void *p, size_t bytes);
/* The memory a table of `bytes` takes: from 2 MiB on, its length rounded up to whole huge
 * pages where that adds at most a quarter (5 MiB take 6, all of it resident once touched: the
 * kernel backs each 2 MiB run with one page), else to whole pages (2.5 MiB take 2.5) */
size_t ckt_util_big_size(size_t bytes);
/* p, a table of `bytes` from ckt_util_big_alloc (or NULL), made a table of new_bytes (more)
 * whose first `bytes` are p's: from 2 MiB on its pages are moved there, not copied, and only
 * the rest is new memory (zeroed); p is gone. NULL when memory lacks (p unchanged). */
void *ckt_util_big_extend(void *p, size_t bytes, size_t new_bytes);
/* *p, a table of *cap elements of elem bytes, made one of twice the room (at least `first`)
 * that keeps them all (ckt_util_big_extend); 0 or CKT_ENOMEM (*p unchanged) */
int ckt_util_big_grow(void **p, size_t *cap, size_t elem, size_t first);

/* The first slot of key in an open-addressing table of cap slots (a power of two, 2 or
 * more): the top bits of the product above, the best mixed. Keys that count up (the tracer's
 * stack ids, phase ids, thread ids) each get a slot of their own there; the product's bits
 * from 32 up ran them into clusters (1.8 probes a lookup at 27% load: a stack table of
 * thousands of stacks paid a cache miss a probe). */
static inline size_t ckt_util_home(uint64_t key, size_t cap)
{
	return (size_t)(ckt_util_hash64(key) >> (64 - __builtin_ctzll(cap)));
}

/* The keyed hash of n bytes (a fingerprint: equal bytes, equal hash). */
uint64_t ckt_util_hash_bytes(const uint8_t *s, size_t n);

/* An array v of *cap elements of elem bytes, full, made twice as big (first elements when
 * *cap is 0): the new array, *cap updated; NULL when memory lacks (v and *cap unchanged). */
void *ckt_util_grow(void *v, size_t *cap, size_t elem, size_t first);

/* The first index i of v[0..n), sorted by field, with v[i].field not below key (n when none) */
#define CKT_UTIL_LOWER_BOUND(v, n, field, key)                               \
	__extension__({                                                      \
		size_t lo_ = 0, hi_ = (n);                                   \
		while (lo_ < hi_) {                                          \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                 \
			if ((v)[mid_].field < (key))                         \
				lo_ = mid_ + 1;                              \
			else                                                 \
				hi_ = mid_;                                  \
		}                                                            \
		lo_;                                                         \
	})

/* A small map of 64-bit keys to values below UINT64_MAX: open addressing, at most half full.
 * Zero-initialized, it is empty. */
struct ckt_util_map {
	uint64_t *keys;
	uint64_t *vals; /* value + 1; 0 = empty slot */
	size_t cap, n;
};
/* true and *val when key is in m */
bool ckt_util_map_get(const struct ckt_util_map *m, uint64_t key, uint64_t *val);
/* key -> val (val < UINT64_MAX), replacing what it held; 0 or CKT_ENOMEM */
int ckt_util_map_put(struct ckt_util_map *m, uint64_t key, uint64_t val);
void ckt_util_map_free(struct ckt_util_map *m);

/* An END record's reason CKT_END_SIGNAL + n (ckt_end_signal): the signal's name ("SIGTERM"; "signal 40" for one without a short name) in buf: true; false for a
 * reason that is no signal's */
bool ckt_util_end_signal_name(uint64_t reason, char *buf, size_t size);

/* A process is writing the trace at path now: the tracer holds an exclusive lock on the file
 * while it traces (flock), which /proc/locks lists ("FLOCK ADVISORY WRITE <pid>
 * <major>:<minor>:<inode> ..."). Read there, not tried: a lock of the reader's own, even for a
 * moment, sent a tracer starting then on the same name to a per-pid name. */
bool ckt_util_being_written(const char *path);

#endif
