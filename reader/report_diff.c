/* report_diff.c: --diff BASE, the answer to "did my change move the peak?": the peaks of two
 * traces side by side with the change, then the live bytes at the peaks by phase and by
 * function, the rows that changed most first.
 *
 * Sites are matched by function: a site's name without its " (file:line)" (its lines move
 * when the code around it changes, and a site that only moved is no change); the bytes of
 * several sites of one function add up. A function without symbols is its module+offset,
 * which matches only in the same build. Phases are matched by name. In the default mode the
 * bytes by site and by phase are estimates, as in the report of each trace.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phase_rules.h"
#include "util.h"

/* One name's bytes in each trace. */
struct ckt_diff_row {
	const char *name; /* what rows are matched by */
	size_t len;
	const char *label; /* shown after it in parentheses (a GPU's name), or NULL */
	uint64_t bytes[2]; /* base, trace */
	uint64_t samples[2]; /* the default mode's samples among them (0 for devices) */
	uint64_t count[2];   /* live heap blocks (functions; 0 where unknown: phases, thread groups) */
	uint64_t hbytes[2];  /* their bytes */
	/* of bytes, what the samples stand for (the rest was recorded block by block, exact:
	 * phases, thread groups and, since 0.2.42, functions); in the allocation calls' rows,
	 * their estimate's variance instead (ckt_diff_calls) */
	uint64_t est[2];
	uint8_t joined;      /* ckt_diff_join_bare: 1 + the side of the bare rows it took */
	uint8_t side;        /* the trace a row was added for (before rows are merged) */
	uint8_t probe;       /* a site's row that ckt_diff_split_files looks at only, then drops */
	/* a function's site: the name of the source file it is in ("a.c" of "helper
	 * (/src/a.c:3)"), NULL without one (module+offset); file: the same where it tells the row
	 * apart from another function of its name (ckt_diff_split_files), else NULL */
	const char *src, *file;
	size_t src_len, file_len;
	/* heap bytes whose blocks' sizes are unknown (a phase's or thread group's at the peak
	 * heap or RSS: count[] and hbytes[] 0): they may be under the sampling rate (ckt_diff_noise) */
	bool unsized;
};

struct ckt_diff_rows {
	struct ckt_diff_row *v;
	size_t n, cap;
	int err;
};

/* a row of one side: count its live heap blocks and hbytes their bytes, 0 where the report
 * keeps none (see count[]) */
static void ckt_diff_add(struct ckt_diff_rows *r, const char *name, size_t len, int side, uint64_t bytes,
			 uint64_t samples, uint64_t count, uint64_t hbytes, uint64_t est)
{
	if (r->n == r->cap) {
		struct ckt_diff_row *v = ckt_util_grow(r->v, &r->cap, sizeof(*v), 64);
		if (!v) {
			r->err = ENOMEM;
			return;
		}
		r->v = v;
	}
	r->v[r->n++] = (struct ckt_diff_row){ name, len, NULL, { side == 0 ? bytes : 0, side == 1 ? bytes : 0 },
					      { side == 0 ? samples : 0, side == 1 ? samples : 0 },
					      { side == 0 ? count : 0, side == 1 ? count : 0 },
					      { side == 0 ? hbytes : 0, side == 1 ? hbytes : 0 },
					      { side == 0 ? est : 0, side == 1 ? est : 0 }, 0, (uint8_t)side, 0,
					      NULL, NULL, 0, 0, false };
}

/* a row of a phase or thread group at moment m: heap bytes whose blocks' sizes the report does
 * not keep (at the peak RSS beside its mappings and pinned memory; GPU memory has none) */
static void ckt_diff_add_unsized(struct ckt_diff_rows *r, const char *name, size_t len, int side, uint64_t bytes,
				 uint64_t samples, uint64_t est, enum ckt_moment m)
{
	size_t n = r->n;
	ckt_diff_add(r, name, len, side, bytes, samples, 0, 0, est);
	if (r->n > n)
		r->v[n].unsized = m == CKT_AT_PEAK_HEAP || m == CKT_AT_PEAK_RSS;
}

static int ckt_diff_name_cmp(const void *pa, const void *pb)
{
	const struct ckt_diff_row *a = pa, *b = pb;
	int c = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);
	if (c || a->len != b->len)
		return c ? c : (a->len > b->len) - (a->len < b->len);
	/* then by file, where it tells two functions of one name apart (none first) */
	if (!a->file || !b->file)
		return (a->file != NULL) - (b->file != NULL);
	c = memcmp(a->file, b->file, a->file_len < b->file_len ? a->file_len : b->file_len);
	return c ? c : (a->file_len > b->file_len) - (a->file_len < b->file_len);
}

/* trace - base, held at the int64 bounds (a forged trace's estimates can reach them) */
static int64_t ckt_diff_sub(uint64_t base, uint64_t cur)
{
	if (cur >= base)
		return cur - base > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(cur - base);
	return base - cur > (uint64_t)INT64_MAX ? -INT64_MAX : -(int64_t)(base - cur);
}

static int64_t ckt_diff_change(const struct ckt_diff_row *r)
{
	return ckt_diff_sub(r->bytes[0], r->bytes[1]);
}

static uint64_t ckt_diff_add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t ckt_diff_abs(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

/* largest change first (either way), then the larger bytes, then by name */
static int ckt_diff_change_cmp(const void *pa, const void *pb)
{
	const struct ckt_diff_row *a = pa, *b = pb;
	uint64_t ca = ckt_diff_abs(ckt_diff_change(a)), cb = ckt_diff_abs(ckt_diff_change(b));
	if (ca != cb)
		return ca > cb ? -1 : 1;
	uint64_t ma = a->bytes[0] > a->bytes[1] ? a->bytes[0] : a->bytes[1];
	uint64_t mb = b->bytes[0] > b->bytes[1] ? b->bytes[0] : b->bytes[1];
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return ckt_diff_name_cmp(pa, pb);
}

/* Rows of one name joined (bytes summed per side), then in order of change. */
static void ckt_diff_merge(struct ckt_diff_rows *r)
{
	size_t w = 0;
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), ckt_diff_name_cmp);
	for (size_t i = 0; i < r->n; i++) {
		if (w && ckt_diff_name_cmp(&r->v[w - 1], &r->v[i]) == 0) {
			r->v[w - 1].bytes[0] = ckt_diff_add_sat(r->v[w - 1].bytes[0], r->v[i].bytes[0]);
			r->v[w - 1].bytes[1] = ckt_diff_add_sat(r->v[w - 1].bytes[1], r->v[i].bytes[1]);
			r->v[w - 1].samples[0] += r->v[i].samples[0];
			r->v[w - 1].samples[1] += r->v[i].samples[1];
			r->v[w - 1].count[0] += r->v[i].count[0];
			r->v[w - 1].count[1] += r->v[i].count[1];
			r->v[w - 1].hbytes[0] += r->v[i].hbytes[0];
			r->v[w - 1].hbytes[1] += r->v[i].hbytes[1];
			r->v[w - 1].est[0] = ckt_diff_add_sat(r->v[w - 1].est[0], r->v[i].est[0]);
			r->v[w - 1].est[1] = ckt_diff_add_sat(r->v[w - 1].est[1], r->v[i].est[1]);
			if (!r->v[w - 1].label)
				r->v[w - 1].label = r->v[i].label;
			r->v[w - 1].unsized |= r->v[i].unsized;
		} else {
			r->v[w++] = r->v[i];
		}
	}
	r->n = w;
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), ckt_diff_change_cmp);
}

/* The function of a site ("function (file:line)", "function (module+0xoff)"; sites.c): its
 * name without the last balanced " (...)" that ends it. Balanced: a C++ name keeps its
 * parameters (alloc_with(void (*)(int), unsigned long)), and a source path may hold " (". A
 * path with a lone parenthesis cannot be balanced: then up to the first " (". */
static size_t ckt_diff_function_len(const char *site)
{
	size_t n = strlen(site), depth = 0;
	if (n == 0 || site[n - 1] != ')')
		return n;
	for (size_t i = n; i-- > 0;) {
		if (site[i] == ')') {
			depth++;
		} else if (site[i] == '(' && --depth == 0) {
			if (i > 0 && site[i - 1] == ' ')
				return i - 1;
			break;
		}
	}
	const char *p = strstr(site, " ("); /* none in "(no call stack)": kept whole */
	return p ? (size_t)(p - site) : n;
}

/* A row of a site at function length flen, with the name of the source file its function is
 * in: the last path component of its "(file:line)" ("a.c" of "helper (/src/a.c:3)"); none
 * for a site without a line ("helper (prog+0x1139)", "prog+0x1139") */
static void ckt_diff_add_site(struct ckt_diff_rows *r, const char *site, int side, uint64_t bytes,
			      uint64_t samples, uint64_t count, uint64_t hbytes, uint64_t est)
{
	size_t flen = ckt_diff_function_len(site), n = strlen(site), at = r->n;
	ckt_diff_add(r, site, flen, side, bytes, samples, count, hbytes, est);
	if (r->n == at || n < flen + 6 || site[flen] != ' ' || site[flen + 1] != '(' || site[n - 1] != ')')
		return;
	const char *loc = site + flen + 2, *colon = site + n - 1, *base = loc;
	while (colon > loc && colon[-1] >= '0' && colon[-1] <= '9')
		colon--;
	if (colon == site + n - 1 || colon - 1 <= loc || colon[-1] != ':')
		return;
	colon--;
	for (const char *p = loc; p < colon; p++)
		if (*p == '/')
			base = p + 1;
	if (base < colon) {
		r->v[at].src = base;
		r->v[at].src_len = (size_t)(colon - base);
	}
}

/* Two functions of one name in one trace, in two source files (C's static functions, C++'s
 * of internal linkage: "helper" of a.c and "helper" of b.c), are two rows in both traces, each
 * shown with its file's name ("helper (a.c)"): their bytes were one row, which read "no
 * change" when 4 MiB moved from one to the other (before 0.2.40). A name that is in one file
 * in each trace stays one row, whatever the file: a function moved to another file is no
 * change. Every site of either trace is looked at too, so that a name is apart at every moment
 * and in the calls or nowhere (since 0.2.59 also the sites that only allocated CUDA
 * device memory: 4 MiB moved between two "dev_alloc" read "no change" at the peak GPU). Before ckt_diff_merge, while each row
 * is of one trace (side). */
static void ckt_diff_split_files(struct ckt_diff_rows *r, const struct ckt_report *const rep[2])
{
	for (int side = 0; side < 2; side++) {
		const struct ckt_sites *s = rep[side]->sites;
		const char *key;
		for (size_t i = 0; s && !r->err && (key = ckt_sites_key(s, i)); i++) {
			ckt_diff_add_site(r, key, side, 0, 0, 0, 0, 0);
			if (!r->err)
				r->v[r->n - 1].probe = 1;
		}
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), ckt_diff_name_cmp); /* by name: no file is set yet */
	size_t w = 0;
	for (size_t i = 0, j; i < r->n; i = j) {
		const struct ckt_diff_row *first[2] = { NULL, NULL };
		bool two = false;
		for (j = i; j < r->n && ckt_diff_name_cmp(&r->v[i], &r->v[j]) == 0; j++) {
			const struct ckt_diff_row *v = &r->v[j], **f = &first[v->side];
			if (!v->src)
				continue;
			if (!*f)
				*f = v;
			else if ((*f)->src_len != v->src_len || memcmp((*f)->src, v->src, v->src_len) != 0)
				two = true;
		}
		for (size_t k = i; k < j; k++) {
			if (r->v[k].probe)
				continue;
			r->v[w] = r->v[k];
			if (two) {
				r->v[w].file = r->v[w].src;
				r->v[w].file_len = r->v[w].src_len;
			}
			w++;
		}
	}
	r->n = w;
}

/* The join's candidates are found through the words of the rows' names (since 0.2.45): every
 * name that ckt_phase_rules_bare_joins joins a bare name to holds the bare name's base (without
 * its generic arguments) as a whole word, between two of the characters a bare name's base
 * cannot hold (':', '<', ' ', '{', '(') or an end of the name: "build_aux" in
 * "prover::build_aux::<u64>", "inl_helper" in "inl_helper(unsigned long)". Each row was
 * looked at for each bare row before: two traces of 20,000 functions that matched none (a C
 * program renamed, a program rebuilt in place whose functions are module+offset) took 2 min 33
 * s to compare, against 0.5 s to report either. */
struct ckt_diff_word {
	const char *s;
	size_t len, row;
};

static bool ckt_diff_word_sep(char c)
{
	return c == ':' || c == '<' || c == ' ' || c == '{' || c == '(' || c == '['; /* '[': "f[abi:cxx11]" */
}

static int ckt_diff_word_cmp(const void *pa, const void *pb)
{
	const struct ckt_diff_word *a = pa, *b = pb;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
	if (c || a->len != b->len)
		return c ? c : (a->len > b->len) - (a->len < b->len);
	return (a->row > b->row) - (a->row < b->row);
}

/* The words of every row's name, sorted by word, then row, in *words (NULL without any). -1
 * out of memory: the caller then looks at every row, as before. */
static int ckt_diff_words(const struct ckt_diff_rows *r, struct ckt_diff_word **words, size_t *n)
{
	struct ckt_diff_word *w = NULL;
	size_t cap = 0;
	*n = 0;
	*words = NULL;
	for (size_t j = 0; j < r->n; j++) {
		const struct ckt_diff_row *b = &r->v[j];
		if (!b->name)
			continue;
		for (size_t i = 0, k; i < b->len; i = k + 1) {
			for (k = i; k < b->len && !ckt_diff_word_sep(b->name[k]); k++)
				;
			if (k == i)
				continue;
			if (*n == cap) {
				struct ckt_diff_word *g = ckt_util_grow(w, &cap, sizeof(*w), 256);
				if (!g) {
					free(w);
					*n = 0;
					return -1;
				}
				w = g;
			}
			w[(*n)++] = (struct ckt_diff_word){ b->name + i, k - i, j };
		}
	}
	if (*n)
		qsort(w, *n, sizeof(*w), ckt_diff_word_cmp);
	*words = w;
	return 0;
}

/* Rust's debuginfo=line-tables-only names a function the optimiser inlined by its last name
 * alone ("build_aux", "build_aux<u64>" for a generic one: since 0.2.26), one it did not by its
 * whole path from the symbol table ("prover::build_aux", v0's "prover::build_aux::<u64>"): a change that alters inlining read as one function gone and another
 * new (-16 MiB build_aux, +18 MiB prover::build_aux for a +2 MiB change). A bare name held in
 * one trace only is joined to the one function held in the other trace only whose path ends
 * in it; with two such, or none, it stays apart. Rows sorted by change again after. */
static void ckt_diff_join_bare(struct ckt_diff_rows *r)
{
	size_t w = 0, nwords;
	bool joined = false;
	struct ckt_diff_word *words;
	bool all = ckt_diff_words(r, &words, &nwords) < 0; /* out of memory: every row */
	/* a joined row's bytes go to the other, and it is dropped after (a name joined has no
	 * "::" and is never joined to, so one pass sees every row as it was) */
	for (size_t i = 0; i < r->n; i++) {
		struct ckt_diff_row *a = &r->v[i];
		int only = a->bytes[0] && !a->bytes[1] ? 0 : !a->bytes[0] && a->bytes[1] ? 1 : -1;
		bool bare = only >= 0 && ckt_phase_rules_bare_name(a->name, a->len);
		size_t match = r->n, from = 0, to = all ? r->n : 0;
		if (bare && !all) { /* the rows whose names hold its base as a word, each once */
			struct ckt_diff_word key = { a->name, ckt_util_sans_generics(a->name, a->len), 0 };
			size_t lo = 0, hi = nwords;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (ckt_diff_word_cmp(&words[mid], &key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (from = to = lo; to < nwords && words[to].len == key.len && !memcmp(words[to].s, key.s, key.len);)
				to++;
		}
		for (size_t k = from; bare && k < to; k++) {
			size_t j = all ? k : words[k].row;
			if (!all && k > from && words[k - 1].row == j)
				continue; /* a word twice in one name */
			const struct ckt_diff_row *b = &r->v[j];
			/* held in the other trace only, or only through bare rows of this side
			 * already joined to it: a legacy symbol's path is every generic copy's
			 * ("app::build_gen" for build_gen<u64> and build_gen<u32>) */
			if (j == i || !b->name || (b->bytes[only] && b->joined != 1 + only) || !b->bytes[!only] ||
			    !ckt_phase_rules_bare_joins(b->name, b->len, a->name, a->len))
				continue;
			if (match < r->n) {
				match = r->n; /* two: which one is not known */
				break;
			}
			match = j;
		}
		if (bare && match < r->n) {
			struct ckt_diff_row *b = &r->v[match];
			b->bytes[only] += a->bytes[only];
			b->samples[only] += a->samples[only];
			b->count[only] += a->count[only];
			b->hbytes[only] += a->hbytes[only];
			b->est[only] = ckt_diff_add_sat(b->est[only], a->est[only]);
			b->joined = (uint8_t)(1 + only);
			a->name = NULL; /* dropped below */
			joined = true;
		}
	}
	free(words);
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].name)
			r->v[w++] = r->v[i];
	r->n = w;
	if (joined)
		qsort(r->v, r->n, sizeof(*r->v), ckt_diff_change_cmp);
}

/* live bytes by function at the peak of moment m in both traces */
static void ckt_diff_functions(struct ckt_diff_rows *r, const struct ckt_report *const rep[2], enum ckt_moment m)
{
	for (int side = 0; side < 2; side++) {
		struct ckt_sites_entry e;
		const struct ckt_sites *s = rep[side]->sites;
		for (size_t i = 0; s && ckt_sites_top(s, m, i, &e); i++)
			ckt_diff_add_site(r, e.site, side, e.bytes, e.samples, e.heap_count, e.heap_bytes,
					  e.sampled_bytes);
	}
	ckt_diff_split_files(r, rep);
	ckt_diff_merge(r);
	ckt_diff_join_bare(r);
}

/* allocation calls by function in both traces (since 0.2.33): a row's bytes are its calls,
 * its count the heap blocks freed as temporaries (exact mode), its hbytes the bytes asked
 * for, its est the variance of its calls' estimate (the default mode: the square of the
 * report's standard error; variances add where rows join): did a change take churn out?
 * (every site is listed in a diff: --diff reads with no top) */
static void ckt_diff_calls(struct ckt_diff_rows *r, const struct ckt_report *const rep[2])
{
	for (int side = 0; side < 2; side++) {
		struct ckt_sites_calls c;
		const struct ckt_sites *s = rep[side]->sites;
		for (size_t i = 0; s && ckt_sites_by_calls(s, i, &c); i++) {
			double var = (double)c.error * (double)c.error;
			ckt_diff_add_site(r, c.site, side, c.count, 0, c.temps, c.bytes,
					  var < 1.8e19 ? (uint64_t)var : UINT64_MAX);
		}
	}
	ckt_diff_split_files(r, rep);
	ckt_diff_merge(r);
	ckt_diff_join_bare(r);
}

/* live bytes by allocating phase at the peak of moment m in both traces */
static void ckt_diff_phases(struct ckt_diff_rows *r, const struct ckt_report *const rep[2], enum ckt_moment m)
{
	for (int side = 0; side < 2; side++) {
		const struct ckt_phases_share *sh;
		const struct ckt_phases *ph = rep[side]->phases;
		size_t n = ph ? ckt_phases_by_phase(ph, m, &sh) : 0;
		for (size_t i = 0; i < n; i++)
			ckt_diff_add_unsized(r, sh[i].name, strlen(sh[i].name), side, sh[i].bytes, sh[i].samples,
					     sh[i].sampled_bytes, m);
	}
	ckt_diff_merge(r);
}

/* each GPU's peak in both traces: a GPU is its UUID (the same card in both runs, whatever
 * its name there), or "device N" where the driver gave none, shown with its name; the memory
 * of no device known is one more row, "no device known". Returns the
 * buffer holding the "device N" keys (freed by the caller), NULL when out of memory. */
static char *ckt_diff_devices(struct ckt_diff_rows *r, const struct ckt_report *const rep[2])
{
	size_t n = rep[0]->st->n_cuda_devices + rep[1]->st->n_cuda_devices, k = 0;
	char *keys = malloc((n ? n : 1) * 24);
	if (!keys) {
		r->err = ENOMEM;
		return NULL;
	}
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < rep[side]->st->n_cuda_devices; i++, k++) {
			const struct ckt_cuda_device *d = &rep[side]->st->cuda_devices[i];
			const char *key = d->uuid;
			if (!key[0]) {
				snprintf(keys + k * 24, 24, "device %u", d->ordinal);
				key = keys + k * 24;
			}
			size_t at = r->n;
			ckt_diff_add(r, key, strlen(key), side, d->peak.bytes, 0, 0, 0, 0);
			if (r->n > at && d->name[0])
				r->v[at].label = d->name;
		}
	/* since 0.2.45: the GPU memory whose device the driver did not say, as the single report's
	 * "no device known" line; without it the devices' rows of a trace made on a driver without
	 * cuCtxGetDevice read as every byte gone from the GPU where the total had not moved */
	static const char nodev[] = "no device known";
	for (int side = 0; side < 2; side++)
		if (rep[side]->st->peak_nodev.bytes)
			ckt_diff_add(r, nodev, sizeof(nodev) - 1, side, rep[side]->st->peak_nodev.bytes, 0, 0, 0, 0);
	ckt_diff_merge(r);
	return keys;
}

/* The name the traced program's own threads carry (its main thread's, and any thread it did
 * not name): its main thread's (tid = pid) as the trace recorded it, which is the name the
 * program was started by (a symlink's, a script's), else the executable's file name, 15 bytes
 * at most as the kernel keeps it. *len = 0 when the trace says neither. */
static const char *ckt_diff_comm(const struct ckt_report *rep, size_t *len)
{
	const char *pid = ckt_decode_header_get(rep->dec, "pid");
	const char *main_name = pid && rep->phases ? ckt_phases_thread_name(rep->phases, strtoull(pid, NULL, 10)) : NULL;
	if (main_name) {
		*len = strlen(main_name);
		return main_name;
	}
	const struct ckt_header_kv *exe = ckt_decode_header_kv(rep->dec, "exe");
	*len = 0;
	if (!exe)
		return NULL;
	const char *base = exe->value;
	for (size_t i = 0; i < exe->value_len; i++)
		if (exe->value[i] == '/')
			base = exe->value + i + 1;
	*len = (size_t)(exe->value + exe->value_len - base);
	if (*len > 15)
		*len = 15;
	return base;
}

/* live bytes by thread group (--by thread) at the peak heap or RSS in both traces. Each trace
 * folds its own names (worker-0 alone stays worker-0, beside worker-1 it is worker-*): here a
 * name's trailing digits always fold, so a pool of 1 thread and one of 4 match. Returns the
 * buffer holding the folded names (freed by the caller), NULL when out of memory. */
static char *ckt_diff_groups(struct ckt_diff_rows *r, const struct ckt_report *const rep[2], enum ckt_moment m)
{
	const struct ckt_phases_group *g[2];
	size_t n[2], total = 1, used = 0;
	for (int side = 0; side < 2; side++) {
		n[side] = rep[side]->phases ? ckt_phases_groups(rep[side]->phases, &g[side]) : 0;
		for (size_t i = 0; i < n[side]; i++)
			total += strlen(g[side][i].name) + 2;
	}
	char *buf = malloc(total);
	if (!buf) {
		r->err = ENOMEM;
		return NULL;
	}
	for (int side = 0; side < 2; side++) {
		size_t clen;
		const char *comm = ckt_diff_comm(rep[side], &clen);
		for (size_t i = 0; i < n[side]; i++) {
			bool heap = m == CKT_AT_PEAK_HEAP;
			uint64_t b = heap ? g[side][i].at_peak_heap : g[side][i].at_peak_rss;
			uint64_t smp = heap ? g[side][i].samples_at_peak_heap : g[side][i].samples_at_peak_rss;
			uint64_t est = heap ? g[side][i].sampled_at_peak_heap : g[side][i].sampled_at_peak_rss;
			const char *name = g[side][i].name;
			size_t len = strlen(name), stem = ckt_phases_stem(name);
			char *key = buf + used;
			memcpy(key, name, len + 1);
			/* digits alone stay as they are, and so does the program's own name (prover2
			 * is no pool of provers) */
			if (stem < len && !(clen && len == clen && memcmp(name, comm, clen) == 0))
				strcpy(key + stem, "*");
			used += strlen(key) + 1;
			if (b)
				ckt_diff_add_unsized(r, key, strlen(key), side, b, smp, est, m);
		}
	}
	ckt_diff_merge(r);
	return buf;
}

/* ---- the figures compared ---- */

struct ckt_diff_peak {
	const char *label, *key;
	uint64_t (*get)(const struct ckt_replay_stats *st);
	uint64_t (*when)(const struct ckt_replay_stats *st); /* NULL: not a moment (at exit) */
	bool always; /* shown even when both traces have none */
	enum ckt_moment m; /* the moment, for the phases active then (CKT_AT_COUNT: none) */
	bool at_exit; /* live at exit (where a truncated trace stops) */
};

static uint64_t ckt_diff_rss(const struct ckt_replay_stats *st) { return st->peak_rss.seen ? st->peak_rss.bytes : 0; }
/* the kernel's high-water mark (the largest VmHWM the samples carry): the sampled peak misses
 * what rose and fell between two samples (four runs of one program read 198 MiB against 183
 * MiB sampled, all four 199 MiB by VmHWM) */
static uint64_t ckt_diff_hwm(const struct ckt_replay_stats *st) { return st->hwm_max; }
static uint64_t ckt_diff_heap(const struct ckt_replay_stats *st) { return st->peak_heap.bytes; }
static uint64_t ckt_diff_mmap(const struct ckt_replay_stats *st) { return st->peak_mmap.bytes; }
static uint64_t ckt_diff_gpu(const struct ckt_replay_stats *st) { return st->peak_gpu.bytes; }
static uint64_t ckt_diff_pinned(const struct ckt_replay_stats *st) { return st->peak_pinned.bytes; }
static uint64_t ckt_diff_exit(const struct ckt_replay_stats *st) { return st->heap_bytes; }
static uint64_t ckt_diff_exit_gpu(const struct ckt_replay_stats *st) { return st->gpu_bytes; }
static uint64_t ckt_diff_exit_pinned(const struct ckt_replay_stats *st) { return st->pinned_bytes; }
static uint64_t ckt_diff_rss_ts(const struct ckt_replay_stats *st) { return st->peak_rss.ts; }
static uint64_t ckt_diff_heap_ts(const struct ckt_replay_stats *st) { return st->peak_heap.ts; }
static uint64_t ckt_diff_mmap_ts(const struct ckt_replay_stats *st) { return st->peak_mmap.ts; }
static uint64_t ckt_diff_gpu_ts(const struct ckt_replay_stats *st) { return st->peak_gpu.ts; }
static uint64_t ckt_diff_pinned_ts(const struct ckt_replay_stats *st) { return st->peak_pinned.ts; }

static const struct ckt_diff_peak ckt_diff_peaks[] = {
	{ "peak RSS", "peak_rss", ckt_diff_rss, ckt_diff_rss_ts, true, CKT_AT_PEAK_RSS, false },
	{ "peak RSS (VmHWM)", "peak_rss_hwm", ckt_diff_hwm, NULL, false, CKT_AT_COUNT, false },
	{ "peak heap", "peak_heap", ckt_diff_heap, ckt_diff_heap_ts, true, CKT_AT_PEAK_HEAP, false },
	{ "peak mmap", "peak_mmap", ckt_diff_mmap, ckt_diff_mmap_ts, true, CKT_AT_PEAK_MMAP, false },
	{ "peak GPU", "peak_gpu", ckt_diff_gpu, ckt_diff_gpu_ts, false, CKT_AT_PEAK_GPU, false },
	{ "peak pinned", "peak_pinned", ckt_diff_pinned, ckt_diff_pinned_ts, false, CKT_AT_PEAK_PINNED, false },
	{ "heap live at exit", "live_at_exit_heap", ckt_diff_exit, NULL, true, CKT_AT_COUNT, true },
	/* since 0.2.46: did my change free the GPU buffers, the pinned parameters, before exit? */
	{ "GPU live at exit", "live_at_exit_gpu", ckt_diff_exit_gpu, NULL, false, CKT_AT_COUNT, true },
	{ "pinned live at exit", "live_at_exit_pinned", ckt_diff_exit_pinned, NULL, false, CKT_AT_COUNT, true },
};

/* The phases active at the peak of moment m in one trace (0 without phases, or at a peak of
 * none: at == false) */
static size_t ckt_diff_active(const struct ckt_report *rep, enum ckt_moment m, bool at, const char *const **names)
{
	*names = NULL;
	return at && rep->phases && m < CKT_AT_COUNT ? ckt_phases_active_at(rep->phases, m, names) : 0;
}

/* "a + b" (oldest first), or "(no phase)" */
static void ckt_diff_put_active(FILE *out, const char *const *names, size_t n)
{
	if (!n)
		fputs("(no phase)", out);
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(" + ", out);
		const char *shown = ckt_phases_shown(names[k]);
		ckt_util_put_clean(out, shown, strlen(shown));
	}
}

/* Under a peak's row, the phases active at it in each trace, where either had one: did my
 * change move the peak to another phase? */
/* Where the overlap hint goes at peak p (ckt_phases_hint, over both traces) */
static enum ckt_hint ckt_diff_hint(const struct ckt_report *const rep[2], const struct ckt_diff_peak *p, bool hx,
				   bool hy, uint64_t x, uint64_t y, bool overlap_shown)
{
	const bool has[2] = { hx && x, hy && y };
	const struct ckt_phases *const ph[2] = { rep[0]->phases, rep[1]->phases };
	return ckt_phases_hint(ph, has, 2, p->m, overlap_shown);
}

/* hinted: the overlap hint was printed under an earlier peak (once a diff); at_a_peak: a peak
 * shown has overlapping phases at it in either trace, which gets the hint (as the single
 * report does since 0.2.55; before 0.2.56 the diff put it under the first peak shown after an
 * overlap, the peak RSS, printed before a peak heap that had the overlap) */
static void ckt_diff_text_during(FILE *out, const struct ckt_report *const rep[2], const struct ckt_diff_peak *p,
				 bool hx, bool hy, uint64_t x, uint64_t y, bool at_a_peak, bool *hinted)
{
	const char *const *nb, *const *nt;
	size_t b = ckt_diff_active(rep[0], p->m, hx && x, &nb), t = ckt_diff_active(rep[1], p->m, hy && y, &nt);
	if (b || t) {
		/* a side with no such peak (no RSS samples, or none of that memory) has no
		 * phases: "-", as its bytes (it read "(no phase)") */
		fprintf(out, "  %-18s base: ", "during");
		if (hx && x)
			ckt_diff_put_active(out, nb, b);
		else
			fputc('-', out);
		fputs("; trace: ", out);
		if (hy && y)
			ckt_diff_put_active(out, nt, t);
		else
			fputc('-', out);
		fputc('\n', out);
	}
	/* overlapping process-wide phases at this peak, or before it with bytes of the one begun
	 * last live here, in either trace: what they do to a worker's bytes (once a diff). Also
	 * under a peak during no phase in either trace (before 0.2.57 it went unsaid there: two
	 * traces whose peaks held an overlap's bytes after it ended gave no hint at all) */
	if (!*hinted && ckt_diff_hint(rep, p, hx, hy, x, y, at_a_peak) != CKT_HINT_NONE) {
		ckt_phases_put_overlap_hint(out);
		*hinted = true;
	}
	if (!b && !t)
		return;
	/* the default mode knows a peak heap's moment to the running totals' sends: a total sent
	 * a tick late can lift the heap a few bytes higher at another moment (another phase) from
	 * one run to the next, for no change (two runs of one program read "base: work; trace:
	 * (no phase)", since 0.2.27 with this line) */
	bool same = b == t && hx && x && hy && y;
	for (size_t i = 0; same && i < b; i++)
		same = strcmp(nb[i], nt[i]) == 0;
	if (!same && hx && x && hy && y && p->m == CKT_AT_PEAK_HEAP && (rep[0]->st->sample_r || rep[1]->st->sample_r))
		fputs("  (default mode: a peak heap's moment is known to the running totals' sends, and one sent a "
		      "tick late can move it, and its phases, from run to run; CUZKTRACE_SAMPLE=0 for the exact "
		      "moment)\n",
		      out);
}

/* active_phases{base, trace} of a peak: lists, empty without phases */
static void ckt_diff_json_active(struct ckt_json *j, const struct ckt_report *const rep[2],
				 const struct ckt_diff_peak *p, bool hx, bool hy, uint64_t x, uint64_t y)
{
	ckt_report_json_open(j, "active_phases");
	for (int side = 0; side < 2; side++) {
		const char *const *names;
		size_t n = ckt_diff_active(rep[side], p->m, side ? hy && y : hx && x, &names);
		ckt_report_json_names(j, side ? "trace" : "base", names, n);
	}
	ckt_report_json_close(j);
}
#define CKT_DIFF_NPEAKS (sizeof(ckt_diff_peaks) / sizeof(ckt_diff_peaks[0]))

/* the moments whose phases and functions are compared; GPU only where a trace has GPU memory;
 * the end of the trace (heap blocks live at exit: did my change fix the leak?) by function
 * only */
static const struct {
	enum ckt_moment m;
	const char *label, *key;
} ckt_diff_moments[] = {
	{ CKT_AT_PEAK_RSS, "peak RSS", "peak_rss" },
	{ CKT_AT_PEAK_HEAP, "peak heap", "peak_heap" },
	{ CKT_AT_PEAK_GPU, "peak GPU", "peak_gpu" },
	{ CKT_AT_PEAK_PINNED, "peak pinned", "peak_pinned" },
	{ CKT_SITES_EXIT, "exit", "live_at_exit" },
};
#define CKT_DIFF_NMOMENTS (sizeof(ckt_diff_moments) / sizeof(ckt_diff_moments[0]))

/* The sampling rates behind the rows of moment k: none for GPU and pinned memory, which
 * every trace records exactly (their rows read as "within sampling noise") */
static const uint64_t *ckt_diff_rate(size_t k, const uint64_t rate[2])
{
	static const uint64_t exact[2] = { 0, 0 };
	enum ckt_moment m = ckt_diff_moments[k].m;
	return m == CKT_AT_PEAK_GPU || m == CKT_AT_PEAK_PINNED ? exact : rate;
}

/* the heap live at moment k (of those whose rows count it; UINT64_MAX for GPU and pinned
 * memory's, whose rows never lack a stack) */
static uint64_t ckt_diff_heap_then(const struct ckt_replay_stats *st, size_t k)
{
	switch (ckt_diff_moments[k].m) {
	case CKT_AT_PEAK_RSS:
		return st->peak_rss.heap_bytes;
	case CKT_AT_PEAK_HEAP:
		return st->peak_heap.bytes;
	case CKT_SITES_EXIT:
		return st->heap_bytes;
	default:
		return UINT64_MAX;
	}
}

static bool ckt_diff_moment_shown(const struct ckt_report *const rep[2], size_t k)
{
	if (ckt_diff_moments[k].m == CKT_AT_PEAK_RSS) /* a side without samples would read as 0 B */
		return rep[0]->st->peak_rss.seen && rep[1]->st->peak_rss.seen;
	if (ckt_diff_moments[k].m == CKT_AT_PEAK_PINNED)
		return rep[0]->st->peak_pinned.bytes || rep[1]->st->peak_pinned.bytes;
	return ckt_diff_moments[k].m != CKT_AT_PEAK_GPU || rep[0]->st->peak_gpu.bytes || rep[1]->st->peak_gpu.bytes;
}

/* whether a trace has the figure at all: RSS only with RSS samples, VmHWM only where they
 * carried it */
static bool ckt_diff_has(const struct ckt_diff_peak *p, const struct ckt_replay_stats *st)
{
	if (p->get == ckt_diff_hwm)
		return st->hwm_max != 0;
	return p->get != ckt_diff_rss || st->peak_rss.seen;
}

/* What the peak RSS sample holds in each trace, as the single report's rows under it: the heap,
 * the mappings (anonymous and file-backed) and CUDA pinned memory live then, and the rest,
 * unexplained (RSS - heap - anonymous mmap - pinned, signed). Since 0.2.42: a change of
 * resident pages alone (a buffer touched further, memory the allocator kept) moved the peak RSS
 * while every row by phase and by function, which count bytes allocated, read "no change". */
enum { CKT_DIFF_RSS_HEAP, CKT_DIFF_RSS_MMAP, CKT_DIFF_RSS_PINNED, CKT_DIFF_RSS_UNEXPLAINED, CKT_DIFF_RSS_N };
static const char *const ckt_diff_rss_label[CKT_DIFF_RSS_N] = { "heap then", "mmap then", "pinned then",
								 "unexplained" };
static const char *const ckt_diff_rss_key[CKT_DIFF_RSS_N] = { "heap_bytes", "mmap_bytes", "pinned_bytes",
							       "unexplained_bytes" };

/* v - u of two signed figures, held at the int64 bounds (ckt_diff_sub on them moved by 2^63) */
static int64_t ckt_diff_ssub(int64_t u, int64_t v)
{
	return ckt_diff_sub((uint64_t)u + ((uint64_t)1 << 63), (uint64_t)v + ((uint64_t)1 << 63));
}

static int64_t ckt_diff_rss_part(const struct ckt_replay_stats *st, int k)
{
	switch (k) {
	case CKT_DIFF_RSS_HEAP: return (int64_t)st->peak_rss.heap_bytes;
	case CKT_DIFF_RSS_MMAP: return (int64_t)(st->peak_rss.anon_mmap_bytes + st->peak_rss.file_mmap_bytes);
	case CKT_DIFF_RSS_PINNED: return (int64_t)st->peak_rss.pinned_bytes;
	default: return ckt_replay_unexplained(st);
	}
}

/* the pinned row only where either trace has CUDA memory, as in the single report */
static bool ckt_diff_rss_part_shown(const struct ckt_report *const rep[2], int k)
{
	return k != CKT_DIFF_RSS_PINNED || rep[0]->st->counts[CKT_KIND_CUDA_ALLOC] ||
	       rep[1]->st->counts[CKT_KIND_CUDA_ALLOC];
}

/* how far the trace's peak heap may be from the true one: the default mode's running totals
 * (sampling.peak_heap_error_bound_bytes of each report); 0 in exact mode */
static uint64_t ckt_diff_heap_bound(const struct ckt_replay_stats *st)
{
	return st->sample_r ? st->agg_threads_at_once * (uint64_t)CKT_AGG_STEP : 0;
}

static bool ckt_diff_estimates(const struct ckt_report *const rep[2])
{
	return rep[0]->st->sample_r != 0 || rep[1]->st->sample_r != 0;
}

/* ---- text ---- */

/* The change from base (> 0) to cur in percent, as shown with one decimal: a change that does
 * not take all of base away reads -99.9% at most, not -100.0% (since 0.2.51) */
static double ckt_diff_pct(uint64_t base, uint64_t cur)
{
	double pct = 100.0 * ((double)cur - (double)base) / (double)base;
	return cur && pct <= -99.95 ? -99.9 : pct;
}

/* The change from base (> 0) to cur (!= base) as shown: "+25.0%", or "+<0.1%" ("-<0.1%") for
 * one too small to show (the rows of counts and the duration read "+0.0%" before 0.2.56) */
static const char *ckt_diff_fmt_pct(char *buf, size_t n, uint64_t base, uint64_t cur)
{
	double pct = ckt_diff_pct(base, cur);
	if (pct > -0.05 && pct < 0.05)
		snprintf(buf, n, "%c<0.1%%", cur > base ? '+' : '-');
	else
		snprintf(buf, n, "%+.1f%%", pct);
	return buf;
}

/* "+1.50 MiB (+25.0%)", "-512 B", "no change" */
static void ckt_diff_fmt_change(char *buf, size_t n, uint64_t base, uint64_t cur)
{
	char b[32], p[40];
	if (base == cur) {
		snprintf(buf, n, "no change");
		return;
	}
	ckt_util_fmt_bytes(b, sizeof(b), cur > base ? cur - base : base - cur);
	if (!base)
		snprintf(buf, n, "+%s", b);
	else
		snprintf(buf, n, "%c%s (%s)", cur > base ? '+' : '-', b, ckt_diff_fmt_pct(p, sizeof(p), base, cur));
}

static void ckt_diff_put_name(FILE *out, const struct ckt_diff_row *w);

/* "+144 (+94.7%)": a change of a count */
static void ckt_diff_fmt_count(char *buf, size_t n, uint64_t base, uint64_t cur)
{
	if (base == cur)
		snprintf(buf, n, "no change");
	else if (!base)
		snprintf(buf, n, "+%" PRIu64, cur);
	else {
		char p[40];
		snprintf(buf, n, "%c%" PRIu64 " (%s)", cur > base ? '+' : '-', cur > base ? cur - base : base - cur,
			 ckt_diff_fmt_pct(p, sizeof(p), base, cur));
	}
}

/* Three standard errors of a calls row's change (ckt_diff_calls: est holds each side's
 * variance); 0 between exact traces. A same-program diff of the default mode read +54.5% for
 * one function and -217067 calls for another, unmarked, where the byte rows say "within
 * sampling noise". A sampled side with no call of the function (no sample) says less than
 * its 0 suggests, as for bytes (ckt_diff_noise): n calls of mean size m all go unsampled with
 * the chance exp(-n m / R), over 0.27% up to n = 5.9 R / m: that many more, m the other
 * side's mean (calls of R or more are always recorded: none then; nor for calls of 0 bytes
 * alone, malloc(0), which sampling by bytes never takes: no bound, and the change reads as
 * given). rate: each trace's CUZKTRACE_SAMPLE. */
static uint64_t ckt_diff_calls_noise(const struct ckt_diff_row *w, const uint64_t rate[2])
{
	double n = 3.0 * sqrt((double)w->est[0] + (double)w->est[1]);
	for (int side = 0; side < 2; side++) {
		int o = 1 - side;
		double m = w->bytes[o] ? (double)w->hbytes[o] / (double)w->bytes[o] : 0;
		if (rate[side] && !w->bytes[side] && m > 0 && m < (double)rate[side])
			n += 5.9 * (double)rate[side] / m;
	}
	return n < 1.8e19 ? (uint64_t)llround(n) : UINT64_MAX;
}

static bool ckt_diff_calls_in_noise(const struct ckt_diff_row *w, const uint64_t rate[2])
{
	uint64_t d = ckt_diff_abs(ckt_diff_change(w));
	return d && d <= ckt_diff_calls_noise(w, rate);
}

/* "allocation calls by function": the calls each function made in each trace, largest change
 * first, as many as top, with their temporaries where both traces are exact, and in the
 * default mode which changes lie within sampling noise */
static void ckt_diff_text_calls(FILE *out, const struct ckt_diff_rows *r, const struct ckt_report *const rep[2],
				size_t top)
{
	bool exact = !rep[0]->st->sample_r && !rep[1]->st->sample_r;
	const uint64_t rate[2] = { rep[0]->st->sample_r, rep[1]->st->sample_r };
	size_t changed = 0, noise = 0;
	for (size_t i = 0; i < r->n; i++) {
		changed += r->v[i].bytes[0] != r->v[i].bytes[1];
		noise += ckt_diff_calls_in_noise(&r->v[i], rate);
	}
	fputs("allocation calls by function", out);
	if (!r->n) {
		fputs(": none in either trace\n\n", out);
		return;
	}
	size_t shown = r->n < top ? r->n : top;
	fprintf(out, " (%zu of %zu changed", changed, r->n);
	if (noise)
		fprintf(out, ", %zu of them within sampling noise", noise);
	if (shown < r->n)
		fprintf(out, "; the first %zu shown", shown);
	fputs(exact ? ")\n" : "; estimates from samples in the default mode)\n", out);
	fprintf(out, "  %-22s %12s %12s  %s\n", "change", "base", "trace", "function");
	for (size_t i = 0; i < shown; i++) {
		char c[64];
		const struct ckt_diff_row *w = &r->v[i];
		ckt_diff_fmt_count(c, sizeof(c), w->bytes[0], w->bytes[1]);
		fprintf(out, "  %-22s %12" PRIu64 " %12" PRIu64 "  ", c, w->bytes[0], w->bytes[1]);
		ckt_diff_put_name(out, w);
		if (exact && (w->count[0] || w->count[1]))
			fprintf(out, "  (temporary: %" PRIu64 " / %" PRIu64 ")", w->count[0], w->count[1]);
		if (ckt_diff_calls_in_noise(w, rate))
			fprintf(out, "  (within sampling noise, +-%" PRIu64 ")", ckt_diff_calls_noise(w, rate));
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* a row's name, its label in parentheses, a newline */
/* Three standard errors of a row's change in the default mode (a same-program diff of 10
 * runs had its extreme pair 2.7 apart): each live sample stands for
 * about R bytes of its trace, and the estimate's error is about R x sqrt(samples), so the
 * change's is about sqrt(Rb^2 sb + Rt^2 st); 0 for a row of no samples (exact: blocks of R or
 * more, mappings, an exact trace). rate: each trace's CUZKTRACE_SAMPLE. */
/* Three standard errors of the change from sampling: R x sqrt(n) for each trace of the
 * default mode, n the row's samples live then. A trace with no sample in the row says less
 * than that 0 suggests: the blocks under R that the other trace shows there may all have gone
 * unsampled, as each is with the chance exp(-bytes / R), over 0.27% (three standard errors'
 * worth) up to 5.9 R: that much more, where the other trace shows small blocks there (its
 * samples; or, exact, blocks under R on average, for functions, whose counts the report
 * keeps; or, for a phase or thread group at the peak heap or RSS, whose block sizes are not
 * kept, more bytes than the default-mode trace recorded one by one there, which its small
 * blocks may be (at the peak RSS mappings and pinned memory too, exact in both: equal ones
 * leave no such difference): since 0.2.56; before, an exact base against a default-mode trace read a phase of
 * 300 KB in 100-byte blocks that drew no sample as a real change, -100%, in 53 runs of 100).
 * 0 for a row of only exact figures (GPU and pinned memory: the rates are ckt_diff_rate's). (A function that read 0 B in a sampled trace
 * was shown as a real change, -100%, in 30 runs of 40.) */
static uint64_t ckt_diff_noise(const struct ckt_diff_row *w, const uint64_t rate[2])
{
	double v = 0, z = 0;
	for (int side = 0; side < 2; side++) {
		v += (double)rate[side] * (double)rate[side] * (double)w->samples[side];
		int o = 1 - side;
		/* small blocks the other trace shows: its samples, or (exact) blocks under R */
		bool small = rate[o] ? w->samples[o] > 0
			     : w->unsized ? w->bytes[o] > w->bytes[side]
					  : w->count[o] && w->hbytes[o] / w->count[o] < rate[side];
		if (rate[side] && !w->samples[side] && w->bytes[o] && small)
			z += 5.9 * (double)rate[side];
	}
	return (uint64_t)(3.0 * sqrt(v) + z);
}

/* The part of side's bytes recorded block by block (exact). */
static uint64_t ckt_diff_exact(const struct ckt_diff_row *w, int side)
{
	return w->bytes[side] > w->est[side] ? w->bytes[side] - w->est[side] : 0;
}

/* Whether the rows' exact parts compare: both traces of the default mode at one rate. An exact
 * trace records its small blocks one by one too, where the other trace has an estimate; and
 * at two rates a block between them is recorded on its own in one trace and sampled in the
 * other (40 blocks of 200 KiB, by 524288 and by 65536: "exact blocks +7.81 MiB" for one
 * program, a change where none was, before 0.2.42) */
static bool ckt_diff_splits(const uint64_t rate[2])
{
	return rate[0] && rate[0] == rate[1];
}

/* A change the sampling cannot explain: of the blocks recorded one by one (a phase whose 8 MiB
 * block moved to another phase, beside its small blocks' estimate, read as "within sampling
 * noise" at +5.21 MiB). Only where the exact parts compare (ckt_diff_splits) */
static bool ckt_diff_exact_moved(const struct ckt_diff_row *w, const uint64_t rate[2])
{
	return ckt_diff_splits(rate) && (w->est[0] || w->est[1]) && ckt_diff_exact(w, 0) != ckt_diff_exact(w, 1);
}

static bool ckt_diff_in_noise(const struct ckt_diff_row *w, const uint64_t rate[2])
{
	uint64_t x = w->bytes[0], y = w->bytes[1], d = x > y ? x - y : y - x;
	return d && !ckt_diff_exact_moved(w, rate) && d <= ckt_diff_noise(w, rate);
}

static void ckt_diff_put_name(FILE *out, const struct ckt_diff_row *w)
{
	if (w->len) /* an empty name (a phase's, a thread's) as the single report shows it */
		ckt_util_put_clean(out, w->name, w->len);
	else
		fputs(ckt_phases_shown(""), out);
	if (w->file) { /* one of two functions of its name (ckt_diff_split_files) */
		fputs(" (", out);
		ckt_util_put_clean(out, w->file, w->file_len);
		fputc(')', out);
	}
	if (w->label) {
		fputs(" (", out);
		ckt_util_put_clean(out, w->label, strlen(w->label));
		fputc(')', out);
	}
}

/* the rows, largest change first, then those that did not change, largest first; at most top */
static void ckt_diff_text_rows(FILE *out, const struct ckt_diff_rows *r, const char *what, const char *label,
			       size_t top, bool sampled, const uint64_t rate[2])
{
	size_t changed = 0, noise = 0;
	for (size_t i = 0; i < r->n; i++) {
		changed += r->v[i].bytes[0] != r->v[i].bytes[1];
		noise += ckt_diff_in_noise(&r->v[i], rate);
	}
	fprintf(out, "live bytes by %s at %s", what, label);
	if (!r->n) {
		/* the default mode attributes sampled blocks only: the heap there may be in blocks
		 * no sample fell on */
		fputs(sampled ? ": none sampled in either trace (blocks under the default mode's sampling "
				"rate count in the totals only; CUZKTRACE_SAMPLE=0 records every block)\n\n"
			      : ": none in either trace\n\n", out);
		return;
	}
	size_t shown = r->n < top ? r->n : top;
	fprintf(out, " (%zu of %zu changed", changed, r->n);
	if (noise) /* the default mode's estimates: a same-program diff moved sites by megabytes */
		fprintf(out, ", %zu of them within sampling noise", noise);
	if (shown < r->n)
		fprintf(out, "; the first %zu shown", shown);
	fputs(")\n", out);
	fprintf(out, "  %-22s %12s %12s  %s\n", "change", "base", "trace", what);
	for (size_t i = 0; i < shown; i++) {
		char c[64], b[32], t[32];
		const struct ckt_diff_row *w = &r->v[i];
		ckt_diff_fmt_change(c, sizeof(c), w->bytes[0], w->bytes[1]);
		fprintf(out, "  %-22s %12s %12s  ", c, ckt_util_fmt_bytes(b, sizeof(b), w->bytes[0]),
			ckt_util_fmt_bytes(t, sizeof(t), w->bytes[1]));
		ckt_diff_put_name(out, w);
		if (ckt_diff_in_noise(w, rate))
			fprintf(out, "  (within sampling noise, +-%s)",
				ckt_util_fmt_bytes(b, sizeof(b), ckt_diff_noise(w, rate)));
		else if (ckt_diff_exact_moved(w, rate)) {
			/* the two parts apart: the exact one is certain, the other an estimate */
			char x[64], e[64];
			ckt_diff_fmt_change(x, sizeof(x), ckt_diff_exact(w, 0), ckt_diff_exact(w, 1));
			ckt_diff_fmt_change(e, sizeof(e), w->est[0], w->est[1]);
			uint64_t n = ckt_diff_noise(w, rate), de = w->est[0] > w->est[1] ? w->est[0] - w->est[1]
										: w->est[1] - w->est[0];
			fprintf(out, "  (exact blocks %s; sampled %s, %s +-%s)", x, e, de <= n ? "within" : "beyond",
				ckt_util_fmt_bytes(b, sizeof(b), n));
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* "(peak heap: exact to within 576 KiB in the base and 576 KiB in the trace (the default
 * mode's running totals): the change, +93.8 KiB, is within 1.13 MiB and may be none)" */
static void ckt_diff_text_heap_bound(FILE *out, const struct ckt_replay_stats *sb, const struct ckt_replay_stats *sc)
{
	uint64_t eb = ckt_diff_heap_bound(sb), et = ckt_diff_heap_bound(sc), x = sb->peak_heap.bytes,
		 y = sc->peak_heap.bytes, d = x > y ? x - y : y - x;
	char b[32], t[32], c[64];
	if (!eb && !et)
		return;
	fputs("(peak heap: exact ", out);
	if (eb && et)
		fprintf(out, "to within %s in the base and %s in the trace", ckt_util_fmt_bytes(b, sizeof(b), eb),
			ckt_util_fmt_bytes(t, sizeof(t), et));
	else
		fprintf(out, "in the %s, to within %s in the %s", eb ? "trace" : "base",
			ckt_util_fmt_bytes(b, sizeof(b), eb ? eb : et), eb ? "base" : "trace");
	fputs(" (the default mode's running totals)", out);
	if (d && d <= eb + et) {
		ckt_diff_fmt_change(c, sizeof(c), x, y);
		fprintf(out, ": the change, %s, is within %s and may be none", c,
			ckt_util_fmt_bytes(b, sizeof(b), eb + et));
	}
	/* since 0.2.48 said here too, not on stderr alone: a program of 10 million 48-byte boxes
	 * read 80 MiB lower in exact mode than in the default mode by this alone */
	if (!sb->sample_r != !sc->sample_r)
		fputs("; exact mode counts a block at the size asked for, the default mode a small one "
		      "at its usable size: the change includes that difference", out);
	fputs(")\n", out);
}

bool ckt_report_diff_disjoint(const struct ckt_report *base, const struct ckt_report *cur, const char **example,
			      size_t *len)
{
	const struct ckt_report *const rep[2] = { base, cur };
	/* two runs of one program whose peak moved from one function to others share none there
	 * either: only programs of two names are suspected */
	const char *ea = ckt_decode_header_get(base->dec, "exe"), *eb = ckt_decode_header_get(cur->dec, "exe");
	const char *ba = ea ? strrchr(ea, '/') : NULL, *bb = eb ? strrchr(eb, '/') : NULL;
	if (!ea || !eb || strcmp(ba ? ba + 1 : ea, bb ? bb + 1 : eb) == 0)
		return false;
	struct ckt_diff_rows r = { 0 };
	double all[2] = { 0, 0 }, shared[2] = { 0, 0 }, top = 0;
	ckt_diff_functions(&r, rep, CKT_AT_PEAK_HEAP);
	for (size_t i = 0; !r.err && i < r.n; i++) {
		const struct ckt_diff_row *w = &r.v[i];
		for (int s = 0; s < 2; s++) {
			all[s] += (double)w->bytes[s];
			if (w->bytes[0] && w->bytes[1])
				shared[s] += (double)w->bytes[s];
		}
		if ((double)w->bytes[0] > top && !w->bytes[1]) {
			top = (double)w->bytes[0];
			*example = w->name;
			*len = w->len;
		}
	}
	free(r.v);
	/* frames a rebuilt module left unsymbolized (module+0x...) have their own warning */
	bool unsymbolized = false;
	for (size_t i = 0; *example && i + 3 <= *len; i++)
		unsymbolized |= memcmp(*example + i, "+0x", 3) == 0;
	if (r.err || !(all[0] > 0) || !(all[1] > 0) || !*example || unsymbolized || shared[0] >= 0.05 * all[0] ||
	    shared[1] >= 0.05 * all[1])
		return false;
	/* ... and over the whole run: a peak that moved from one function to another (the very
	 * change a diff is for) shares no function at the peak, but the two builds share their
	 * names in the allocation calls (before 0.2.56 that was taken for a rename) */
	struct ckt_diff_rows c = { 0 };
	bool same_name = false;
	ckt_diff_calls(&c, rep);
	for (size_t i = 0; !c.err && i < c.n; i++) {
		const struct ckt_diff_row *w = &c.v[i];
		same_name |= w->bytes[1] && w->len == *len && memcmp(w->name, *example, *len) == 0;
	}
	free(c.v);
	return !c.err && !same_name;
}

/* "base    /path/prog (pid N), ended by exit": which program each side traced and how it
 * ended (since 0.2.33: a wrapper's trace, ended by exec, or a run killed by timeout read as
 * a change of the program) */
static void ckt_diff_text_program(FILE *out, const char *side, const struct ckt_report *rep)
{
	fprintf(out, "%-7s ", side);
	ckt_report_put_program(out, rep);
	if (rep->st->ended)
		fprintf(out, ", ended by %s\n", ckt_report_end_text(rep->st->end_reason));
	else
		fputs(" (truncated: no end record)\n", out);
}

int ckt_report_diff_text(FILE *out, const struct ckt_report *base, const struct ckt_report *cur, unsigned top)
{
	const struct ckt_report *const rep[2] = { base, cur };
	const uint64_t rate[2] = { base->st->sample_r, cur->st->sample_r };
	char b[32], t[32], c[64];
	int err = 0;

	fputs("cuzktrace diff: ", out);
	ckt_util_put_clean(out, cur->trace_path, strlen(cur->trace_path));
	fputs(" (trace) against ", out);
	ckt_util_put_clean(out, base->trace_path, strlen(base->trace_path));
	fputs(" (base)\n", out);
	ckt_diff_text_program(out, "base", base);
	ckt_diff_text_program(out, "trace", cur);
	fputc('\n', out);
	fprintf(out, "%-20s %12s %12s  %-22s  %s\n", "", "base", "trace", "change", "at (s) base / trace");
	struct ckt_diff_rows dev = { 0 };
	bool hinted = false; /* the overlap hint, once (ckt_diff_text_during) */
	char *dev_names = ckt_diff_devices(&dev, rep);
	size_t last_exit = 0; /* the last row at exit shown: the truncation's note goes under it */
	bool at_a_peak = false; /* phases overlapping at a peak shown (ckt_diff_text_during) */
	for (size_t i = 0; i < CKT_DIFF_NPEAKS; i++) {
		const struct ckt_diff_peak *p = &ckt_diff_peaks[i];
		uint64_t x = p->get(base->st), y = p->get(cur->st);
		if (p->at_exit && (p->always || x || y))
			last_exit = i;
		if (p->m < CKT_AT_COUNT && (p->always || x || y))
			at_a_peak |= ckt_diff_hint(rep, p, ckt_diff_has(p, base->st), ckt_diff_has(p, cur->st), x, y,
						   true) == CKT_HINT_AT;
	}
	for (size_t i = 0; i < CKT_DIFF_NPEAKS; i++) {
		const struct ckt_diff_peak *p = &ckt_diff_peaks[i];
		uint64_t x = p->get(base->st), y = p->get(cur->st);
		bool hx = ckt_diff_has(p, base->st), hy = ckt_diff_has(p, cur->st);
		if (!p->always && !x && !y)
			continue;
		ckt_diff_fmt_change(c, sizeof(c), x, y);
		fprintf(out, p->when ? "%-20s %12s %12s  %-22s" : "%-20s %12s %12s  %s", p->label,
			hx ? ckt_util_fmt_bytes(b, sizeof(b), x) : "-", hy ? ckt_util_fmt_bytes(t, sizeof(t), y) : "-",
			hx && hy ? c : p->get == ckt_diff_hwm ? "(no VmHWM in one trace)"
				     : hx || hy ? "(no RSS in one trace)" : "(no RSS samples)");
		if (p->when) { /* when each peak was first reached */
			fprintf(out, "  %s", hx && x ? ckt_util_fmt_secs(b, sizeof(b), p->when(base->st), 3) : "-");
			fprintf(out, " / %s", hy && y ? ckt_util_fmt_secs(t, sizeof(t), p->when(cur->st), 3) : "-");
		}
		fputc('\n', out);
		/* a killed run's "exit" is where its trace stops: not a leak to compare */
		static const char *const cut[] = { NULL, "the base is truncated: live where it stops",
						   "the trace is truncated: live where it stops",
						   "both traces are truncated: live where each stops" };
		int which = base->st->truncated | cur->st->truncated << 1;
		if (i == last_exit && which)
			fprintf(out, "  (%s, not at exit)\n", cut[which]);
		if (p->m < CKT_AT_COUNT)
			ckt_diff_text_during(out, rep, p, hx, hy, x, y, at_a_peak, &hinted);
		for (int k = 0; p->get == ckt_diff_rss && hx && hy && k < CKT_DIFF_RSS_N; k++) {
			if (!ckt_diff_rss_part_shown(rep, k))
				continue;
			int64_t u = ckt_diff_rss_part(base->st, k), v = ckt_diff_rss_part(cur->st, k);
			if (k != CKT_DIFF_RSS_UNEXPLAINED)
				ckt_diff_fmt_change(c, sizeof(c), (uint64_t)u, (uint64_t)v);
			else if (u == v) /* signed, around 0: no percentage */
				snprintf(c, sizeof(c), "no change");
			else {
				int64_t d = ckt_diff_ssub(u, v);
				ckt_util_fmt_sbytes(b, sizeof(b), d);
				snprintf(c, sizeof(c), "%s%s", d > 0 ? "+" : "", b);
			}
			fprintf(out, "  %-18s %12s %12s  %s\n", ckt_diff_rss_label[k],
				ckt_util_fmt_sbytes(b, sizeof(b), u), ckt_util_fmt_sbytes(t, sizeof(t), v), c);
		}
		for (size_t d = 0; p->get == ckt_diff_gpu && !dev.err && d < dev.n; d++) {
			const struct ckt_diff_row *w = &dev.v[d]; /* each GPU's own peak, under the total */
			ckt_diff_fmt_change(c, sizeof(c), w->bytes[0], w->bytes[1]);
			fprintf(out, "  %-18s %12s %12s  %-22s  ", "GPU", ckt_util_fmt_bytes(b, sizeof(b), w->bytes[0]),
				ckt_util_fmt_bytes(t, sizeof(t), w->bytes[1]), c);
			ckt_diff_put_name(out, w);
			fputc('\n', out);
		}
	}
	err = dev.err;
	free(dev.v);
	free(dev_names);
	ckt_util_fmt_secs(b, sizeof(b), base->st->duration_ns, 3);
	ckt_util_fmt_secs(t, sizeof(t), cur->st->duration_ns, 3);
	if (base->st->duration_ns == cur->st->duration_ns) {
		snprintf(c, sizeof(c), "no change"); /* as every other row says it */
	} else if (base->st->duration_ns) {
		double d = ((double)cur->st->duration_ns - (double)base->st->duration_ns) / 1e9;
		/* microseconds or nanoseconds when milliseconds would round to 0 ("-0.000 s (-2.8%)") */
		int prec = d == 0 || fabs(d) >= 0.0005 ? 3 : fabs(d) >= 0.0000005 ? 6 : 9;
		char p[40];
		snprintf(c, sizeof(c), "%+.*f s (%s)", prec, d,
			 ckt_diff_fmt_pct(p, sizeof(p), base->st->duration_ns, cur->st->duration_ns));
	} else
		snprintf(c, sizeof(c), "-");
	fprintf(out, "%-20s %10s s %10s s  %s\n", "duration", b, t, c);
	fprintf(out, "%-20s %12" PRIu64 " %12" PRIu64 "\n", "events", base->st->events, cur->st->events);
	/* since 0.2.33: the time the program's threads waited for the tracer, where either did:
	 * a run that waited more was slowed more, its overlap changed more */
	if (base->st->waits || cur->st->waits) {
		bool hb = ckt_report_has_wait(base), hc = ckt_report_has_wait(cur);
		/* since 0.2.41 a wait under 0.5 ms in microseconds: it read 0.000 s, as none */
		ckt_util_fmt_secs_nz(b, sizeof(b), base->st->wait_ns);
		ckt_util_fmt_secs_nz(t, sizeof(t), cur->st->wait_ns);
		fprintf(out, "%-20s %10s%s %10s%s  (the program's threads waited for the tracer's buffers)\n",
			"tracer wait", hb ? b : "-", hb ? " s" : "  ", hc ? t : "-", hc ? " s" : "  ");
	}
	if (base->st->sample_r && base->st->sample_r == cur->st->sample_r)
		fprintf(out, "(both: the default mode, sampled by %" PRIu64 " bytes: the bytes by phase, function "
			     "and thread are estimates)\n", base->st->sample_r);
	else
		for (int side = 0; side < 2; side++)
			if (rep[side]->st->sample_r)
				fprintf(out, "(%s: the default mode, sampled by %" PRIu64 " bytes: its bytes by phase, "
					     "function and thread are estimates)\n",
					side ? "trace" : "base", rep[side]->st->sample_r);
	ckt_diff_text_heap_bound(out, base->st, cur->st);
	fputc('\n', out);
	for (size_t k = 0; k < CKT_DIFF_NMOMENTS; k++) {
		if (ckt_diff_moments[k].m == CKT_AT_PEAK_RSS && !ckt_diff_moment_shown(rep, k))
			fprintf(out, "live bytes at peak RSS: no RSS samples in %s\n\n",
				base->st->peak_rss.seen ? "the trace" : cur->st->peak_rss.seen ? "the base" : "either trace");
		if (!ckt_diff_moment_shown(rep, k))
			continue;
		struct ckt_diff_rows r = { 0 };
		bool exit_ = ckt_diff_moments[k].m == CKT_SITES_EXIT;
		/* "none sampled" where the default mode may have left live blocks unsampled: not
		 * where neither trace had heap live at the moment (since 0.2.59 at the peaks too: a
		 * program that only maps read "none sampled" at its peak heap of 0 B) */
		bool unsampled = ckt_diff_estimates(rep) &&
				 (ckt_diff_heap_then(base->st, k) || ckt_diff_heap_then(cur->st, k));
		if (!exit_)
			ckt_diff_phases(&r, rep, ckt_diff_moments[k].m);
		if (!r.err && !exit_)
			ckt_diff_text_rows(out, &r, "phase", ckt_diff_moments[k].label, (size_t)-1, unsampled,
					   ckt_diff_rate(k, rate));
		err = err ? err : r.err;
		r.n = 0;
		ckt_diff_functions(&r, rep, ckt_diff_moments[k].m);
		/* a truncated trace has no exit: its end is where it stops (since 0.2.27; the heading
		 * said "at exit" under the line that says otherwise) */
		const char *label = exit_ && (base->st->truncated || cur->st->truncated)
					    ? "the end (exit, or where a truncated trace stops)"
					    : ckt_diff_moments[k].label;
		if (!r.err)
			ckt_diff_text_rows(out, &r, "function", label, top, unsampled, ckt_diff_rate(k, rate));
		err = err ? err : r.err;
		r.n = 0;
		if (base->by_thread && ckt_diff_moments[k].m != CKT_AT_PEAK_GPU &&
		    ckt_diff_moments[k].m != CKT_AT_PEAK_PINNED && !exit_) {
			char *names = ckt_diff_groups(&r, rep, ckt_diff_moments[k].m);
			if (!r.err)
				ckt_diff_text_rows(out, &r, "thread group", ckt_diff_moments[k].label, (size_t)-1,
						   unsampled, rate);
			err = err ? err : r.err;
			free(names);
		}
		free(r.v);
	}
	/* since 0.2.33: the calls by function, which the bytes at the peaks do not show (a
	 * Vec grown by push made 152 calls, one made with_capacity 8: "no change" at the peaks) */
	struct ckt_diff_rows calls = { 0 };
	ckt_diff_calls(&calls, rep);
	if (!calls.err)
		ckt_diff_text_calls(out, &calls, rep, top);
	err = err ? err : calls.err;
	free(calls.v);
	if (err)
		return -err;
	if (fflush(out) != 0 || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}

/* ---- JSON ---- */

/* v (as signed when sign), or null when !has */
static void ckt_diff_json_opt(struct ckt_json *j, const char *key, bool has, bool sign, uint64_t v)
{
	ckt_report_json_key(j, key);
	if (!has)
		fputs("null", j->f);
	else if (sign)
		fprintf(j->f, "%" PRId64, (int64_t)v);
	else
		fprintf(j->f, "%" PRIu64, v);
}

/* {base, trace, change}; a figure a trace does not have (hx, hy false) is null, and so is the
 * change then. With when, also t_s{base, trace}: when each peak was first reached (null: a
 * peak of 0 bytes, or none). Left open: the caller closes it. */
static void ckt_diff_json_pair(struct ckt_json *j, const char *key, uint64_t base, uint64_t cur, bool hx,
			       bool hy, const struct ckt_replay_stats *sb, const struct ckt_replay_stats *sc,
			       uint64_t (*when)(const struct ckt_replay_stats *))
{
	ckt_report_json_open(j, key);
	ckt_diff_json_opt(j, "base", hx, false, base);
	ckt_diff_json_opt(j, "trace", hy, false, cur);
	ckt_diff_json_opt(j, "change", hx && hy, true, (uint64_t)ckt_diff_sub(base, cur));
	if (when) {
		ckt_report_json_open(j, "t_s");
		ckt_report_json_secs(j, "base", when(sb), hx && base);
		ckt_report_json_secs(j, "trace", when(sc), hy && cur);
		ckt_report_json_close(j);
	}
}

/* rate: each trace's sampling rate, for noise_bytes (NULL: rows without samples) */
/* split: the rows keep their exact part apart (phases, functions, thread groups): exact_change */
static void ckt_diff_json_rows(struct ckt_json *j, const char *key, const char *name_key,
			       const struct ckt_diff_rows *r, const uint64_t *rate, bool split)
{
	if (!r) { /* a moment one trace cannot have (no RSS samples) */
		ckt_report_json_null(j, key);
		return;
	}
	ckt_report_json_array_open(j, key);
	for (size_t i = 0; i < r->n; i++) {
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, name_key);
		ckt_report_json_str(j, r->v[i].name, r->v[i].len);
		if (r->v[i].label) {
			ckt_report_json_key(j, "name");
			ckt_report_json_str(j, r->v[i].label, strlen(r->v[i].label));
		}
		if (r->v[i].file) { /* since 0.2.40: one of two functions of its name */
			ckt_report_json_key(j, "file");
			ckt_report_json_str(j, r->v[i].file, r->v[i].file_len);
		}
		ckt_report_json_u64(j, "base", r->v[i].bytes[0]);
		ckt_report_json_u64(j, "trace", r->v[i].bytes[1]);
		ckt_report_json_i64(j, "change", ckt_diff_change(&r->v[i]));
		if (rate && (rate[0] || rate[1]))
			ckt_report_json_u64(j, "noise_bytes", ckt_diff_noise(&r->v[i], rate));
		/* since 0.2.23: the change of the blocks recorded one by one, exact (phases and
		 * thread groups between two traces of the default mode; functions since 0.2.42, and
		 * since then only at one rate) */
		if (rate && ckt_diff_splits(rate) && split)
			ckt_report_json_i64(j, "exact_change", ckt_diff_sub(ckt_diff_exact(&r->v[i], 0),
									    ckt_diff_exact(&r->v[i], 1)));
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
}

/* by_function.allocations: [{function, base, trace, change, temporary{base, trace}}], the
 * calls (temporary null unless both traces are exact) */
static void ckt_diff_json_calls(struct ckt_json *j, const struct ckt_diff_rows *r, const struct ckt_report *const rep[2])
{
	bool exact = !rep[0]->st->sample_r && !rep[1]->st->sample_r;
	const uint64_t rate[2] = { rep[0]->st->sample_r, rep[1]->st->sample_r };
	ckt_report_json_array_open(j, "allocations");
	for (size_t i = 0; i < r->n; i++) {
		const struct ckt_diff_row *w = &r->v[i];
		ckt_report_json_elem_open(j);
		ckt_report_json_key(j, "function");
		ckt_report_json_str(j, w->name, w->len);
		if (w->file) {
			ckt_report_json_key(j, "file");
			ckt_report_json_str(j, w->file, w->file_len);
		}
		ckt_report_json_u64(j, "base", w->bytes[0]);
		ckt_report_json_u64(j, "trace", w->bytes[1]);
		ckt_report_json_i64(j, "change", ckt_diff_change(w));
		/* since 0.2.35: three standard errors of the change, in calls (0 between exact
		 * traces), as noise_bytes is of the bytes' */
		ckt_report_json_u64(j, "noise_allocations", ckt_diff_calls_noise(w, rate));
		if (exact) {
			ckt_report_json_open(j, "temporary");
			ckt_report_json_u64(j, "base", w->count[0]);
			ckt_report_json_u64(j, "trace", w->count[1]);
			ckt_report_json_close(j);
		} else {
			ckt_report_json_null(j, "temporary");
		}
		ckt_report_json_close(j);
	}
	ckt_report_json_array_close(j);
}

/* {base, trace}: a header key's value in each trace, null where its header has none */
static void ckt_diff_json_header(struct ckt_json *j, const struct ckt_report *const rep[2], const char *name,
				 const char *key)
{
	static const char *const sides[2] = { "base", "trace" };
	ckt_report_json_open(j, name);
	for (int k = 0; k < 2; k++) {
		const struct ckt_header_kv *v = ckt_decode_header_kv(rep[k]->dec, key);
		ckt_report_json_key(j, sides[k]);
		if (v)
			ckt_report_json_str(j, v->value, v->value_len);
		else
			fputs("null", j->f);
	}
	ckt_report_json_close(j);
}

int ckt_report_diff_json(FILE *out, const struct ckt_report *base, const struct ckt_report *cur)
{
	const struct ckt_report *const rep[2] = { base, cur };
	const uint64_t rate[2] = { base->st->sample_r, cur->st->sample_r };
	struct ckt_json jj = { out, 0, 1 }, *j = &jj;
	int err = 0;

	ckt_report_json_open(j, NULL);
	ckt_report_json_key(j, "base");
	ckt_report_json_str(j, base->trace_path, strlen(base->trace_path));
	ckt_report_json_key(j, "trace");
	ckt_report_json_str(j, cur->trace_path, strlen(cur->trace_path));
	ckt_report_json_open(j, "truncated");
	ckt_report_json_key(j, "base");
	fputs(base->st->truncated ? "true" : "false", out);
	ckt_report_json_key(j, "trace");
	fputs(cur->st->truncated ? "true" : "false", out);
	ckt_report_json_close(j);
	/* since 0.2.33: each side's program and how it ended (the single report's exe and
	 * end_reason; null where the header has no exe, or the trace no end record) */
	static const char *const sides[2] = { "base", "trace" };
	ckt_diff_json_header(j, rep, "program", "exe");
	ckt_report_json_open(j, "end_reason");
	for (int k = 0; k < 2; k++) {
		const char *why = ckt_report_end_key(rep[k]->st);
		ckt_report_json_key(j, sides[k]);
		if (why)
			ckt_report_json_str(j, why, strlen(why));
		else
			fputs("null", out);
	}
	ckt_report_json_close(j);
	/* since 0.2.42: which tracer wrote each (null: a header without tracer_version) */
	ckt_report_json_open(j, "format_version");
	ckt_report_json_u64(j, "base", ckt_decode_header(base->dec)->format_version);
	ckt_report_json_u64(j, "trace", ckt_decode_header(cur->dec)->format_version);
	ckt_report_json_close(j);
	ckt_diff_json_header(j, rep, "tracer_version", "tracer_version");
	ckt_report_json_key(j, "estimates");
	fputs(ckt_diff_estimates(rep) ? "true" : "false", out);
	ckt_diff_json_pair(j, "sample_rate_bytes", base->st->sample_r, cur->st->sample_r, true, true, NULL, NULL, NULL);
	ckt_report_json_close(j);
	ckt_diff_json_pair(j, "lost_events", base->st->lost, cur->st->lost, true, true, NULL, NULL, NULL);
	ckt_report_json_close(j);
	ckt_report_json_open(j, "peak_heap_error_bound_bytes");
	ckt_report_json_u64(j, "base", ckt_diff_heap_bound(base->st));
	ckt_report_json_u64(j, "trace", ckt_diff_heap_bound(cur->st));
	ckt_report_json_close(j);
	ckt_report_json_open(j, "duration_s");
	ckt_report_json_secs(j, "base", base->st->duration_ns, 1);
	ckt_report_json_secs(j, "trace", cur->st->duration_ns, 1);
	ckt_report_json_close(j);
	/* since 0.2.31: how long each run's threads waited for the tracer (null before version 7) */
	ckt_report_json_open(j, "tracer_wait_s");
	ckt_report_json_secs(j, "base", base->st->wait_ns, ckt_report_has_wait(base));
	ckt_report_json_secs(j, "trace", cur->st->wait_ns, ckt_report_has_wait(cur));
	ckt_report_json_close(j);
	/* since 0.2.34: each run's tables of the tracer that filled (a run whose call stacks ran
	 * out shows its later allocations as '(no call stack)', which reads as a change) */
	ckt_report_json_open(j, "tracer_limits");
	ckt_report_json_limits(j, "base", base);
	ckt_report_json_limits(j, "trace", cur);
	ckt_report_json_close(j);
	ckt_diff_json_pair(j, "events", base->st->events, cur->st->events, true, true, NULL, NULL, NULL);
	ckt_report_json_close(j);
	ckt_report_json_open(j, "peaks");
	for (size_t i = 0; i < CKT_DIFF_NPEAKS; i++) {
		const struct ckt_diff_peak *p = &ckt_diff_peaks[i];
		uint64_t x = p->get(base->st), y = p->get(cur->st);
		bool hx = ckt_diff_has(p, base->st), hy = ckt_diff_has(p, cur->st);
		ckt_diff_json_pair(j, p->key, x, y, hx, hy, p->when ? base->st : NULL, p->when ? cur->st : NULL,
				   p->when);
		if (p->m < CKT_AT_COUNT)
			ckt_diff_json_active(j, rep, p, hx, hy, x, y);
		/* since 0.2.42: what the peak RSS sample holds in each, null for a side without
		 * RSS samples (the single report's peak_rss keys of the same names) */
		for (int k = 0; p->get == ckt_diff_rss && k < CKT_DIFF_RSS_N; k++) {
			int64_t u = ckt_diff_rss_part(base->st, k), v = ckt_diff_rss_part(cur->st, k);
			ckt_report_json_open(j, ckt_diff_rss_key[k]);
			ckt_diff_json_opt(j, "base", hx, true, (uint64_t)u);
			ckt_diff_json_opt(j, "trace", hy, true, (uint64_t)v);
			ckt_diff_json_opt(j, "change", hx && hy, true,
					  (uint64_t)ckt_diff_ssub(u, v));
			ckt_report_json_close(j);
		}
		ckt_report_json_close(j);
	}
	struct ckt_diff_rows dev = { 0 };
	char *dev_names = ckt_diff_devices(&dev, rep);
	ckt_diff_json_rows(j, "peak_gpu_devices", "device", &dev, NULL, false);
	err = dev.err;
	free(dev.v);
	free(dev_names);
	ckt_report_json_close(j);
	for (int what = 0; what < 3; what++) {
		static const char *const keys[3] = { "by_phase", "by_function", "by_thread" };
		static const char *const names[3] = { "phase", "function", "thread" };
		if (what == 2 && !base->by_thread)
			break;
		ckt_report_json_open(j, keys[what]);
		for (size_t k = 0; k < CKT_DIFF_NMOMENTS; k++) {
			const char *name = names[what];
			if (what == 2 && (ckt_diff_moments[k].m == CKT_AT_PEAK_GPU || ckt_diff_moments[k].m == CKT_AT_PEAK_PINNED))
				continue; /* threads are grouped at the heap and RSS peaks */
			if (what != 1 && ckt_diff_moments[k].m == CKT_SITES_EXIT)
				continue; /* what is live at exit, by function only */
			if (!ckt_diff_moment_shown(rep, k) && ckt_diff_moments[k].m == CKT_AT_PEAK_RSS) {
				ckt_diff_json_rows(j, ckt_diff_moments[k].key, name, NULL, NULL, false);
				continue;
			}
			struct ckt_diff_rows r = { 0 };
			char *names_buf = NULL;
			if (what == 2)
				names_buf = ckt_diff_groups(&r, rep, ckt_diff_moments[k].m);
			else if (what)
				ckt_diff_functions(&r, rep, ckt_diff_moments[k].m);
			else
				ckt_diff_phases(&r, rep, ckt_diff_moments[k].m);
			ckt_diff_json_rows(j, ckt_diff_moments[k].key, name, &r, ckt_diff_rate(k, rate), true);
			err = err ? err : r.err;
			free(r.v);
			free(names_buf);
		}
		if (what == 1) { /* since 0.2.33: the calls by function */
			struct ckt_diff_rows r = { 0 };
			ckt_diff_calls(&r, rep);
			ckt_diff_json_calls(j, &r, rep);
			err = err ? err : r.err;
			free(r.v);
		}
		ckt_report_json_close(j);
	}
	ckt_report_json_close(j);
	fputc('\n', out);
	if (err)
		return -err;
	if (fflush(out) != 0 || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}
