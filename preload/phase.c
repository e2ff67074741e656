/* phase.c: program phases. Owns the public phase API (include/cuzktrace.h), phase names and
 * ids, the process-wide counted set of begun phases, the CUZKTRACE_PHASES log-line rules, and
 * thread names. The per-thread push stack lives in the thread's TLS (ckt.h) so the allocation
 * hot path reads it without touching shared memory. Phase API calls are rare: a mutex guards
 * the names and the process-wide set; it is never taken on the malloc/free path. */
#include "ckt.h"
#include "cuzktrace.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_PHASES CKT_MAX_PHASE_ID

atomic_int ckt_proc_phase;
int ckt_phase_rules_on;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *names[MAX_PHASES + 1]; /* id -> name; id 0 = none */
static unsigned nnames;
/* process-wide begins minus ends, in 64 bits as the reader counts them: in 32 bits, 2^32 + 1
 * begins and one end ended the phase in the tracer (its later allocations went to no phase)
 * where the trace, 2^32 begins still open, showed it active */
static uint64_t counts[MAX_PHASES + 1];
static uint16_t order[MAX_PHASES];      /* active process-wide phases, by last begin */
static unsigned norder;
static atomic_int full_reported, deep_reported, unpushed_reported;
_Static_assert(CKT_PHASE_DEPTH == 256, "the deep-nesting warning names the limit");

/* names by hash: open addressing, id or 0 (at most half full). A scan of every name cost
 * each push, begin and end 14 us with 4,000 names, under the lock. */
static uint16_t name_slots[2 * MAX_PHASES];

static size_t name_home(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)name; c < (const unsigned char *)name + len; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	return (size_t)(h >> 32) & (2 * MAX_PHASES - 1);
}

static int is_rule_name(const char *name, size_t len);
static unsigned rules_unnamed(void);
static unsigned nrules;

/* Name -> id, defining it (and queueing its PHASE_DEF record) on first use. The name is taken
 * as the trace keeps it, its first CKT_MAX_STR bytes (whole characters): two names alike up to
 * there are one phase (they were two, both named with the cut name). The last slots are kept
 * for the CUZKTRACE_PHASES rules' names, so that a program's own names cannot take them all
 * (a rule whose first line came after 4,096 names was lost). Caller holds lock and the guard.
 * 0 when the table is full. */
static uint16_t intern(const char *name, int create)
{
	size_t len = ckt_utf8_cut(name, strlen(name), CKT_MAX_STR);
	size_t i = name_home(name, len);
	for (; name_slots[i]; i = (i + 1) & (2 * MAX_PHASES - 1))
		if (!strncmp(names[name_slots[i]], name, len) && !names[name_slots[i]][len])
			return name_slots[i];
	if (!create)
		return 0;
	/* the slots kept are those of the rules whose name has no id yet: a rule's phase that
	 * began before the program's names filled the table took one already (it kept two) */
	if (nnames == MAX_PHASES ||
	    (nnames >= MAX_PHASES - nrules && !is_rule_name(name, len) && nnames >= MAX_PHASES - rules_unnamed())) {
		if (!atomic_exchange(&full_reported, 1)) {
			ckt_log("warning: more than 4096 phase names; further names are ignored",
				NULL, NULL, NULL);
			ckt_writer_limit_reached(CKT_LIMIT_PHASES);
		}
		return 0;
	}
	uint8_t rec[CKT_MAX_STR + 40];
	char *copy = ckt_malloc(len + 1);
	if (copy) {
		memcpy(copy, name, len);
		copy[len] = 0;
	}
	struct ckt_aux *a = copy ? ckt_aux_of(rec, (size_t)(ckt_record_phase_def(rec, nnames + 1u, copy) - rec)) : NULL;
	if (!copy || !a) {
		ckt_free(copy);
		ckt_big_free(a);
		return 0;
	}
	names[++nnames] = copy;
	name_slots[i] = (uint16_t)nnames;
	ckt_aux_push(a);
	return (uint16_t)nnames;
}

/* Before a phase changes, the calling thread sends its pending running total of small blocks
 * (the default mode: ckt_sample_flush; nothing in exact mode), so that they count in the
 * phase they were made in, at the latest at the change: held back, 50 KB made in phase A went
 * out at the thread's next large block, in phase B, which then owned the peak heap and its
 * time (0.25 s late where A's end was at 0.1 s). Other threads' totals go at their next send. */
static void emit_phase(struct ckt_tls *t, uint8_t op, uint16_t id)
{
	ckt_sample_flush(t);
	ckt_emit(t, CKT_EV_PHASE, op, ckt_stamp(t), id, 0, 0);
}

static void order_remove(uint16_t id)
{
	for (unsigned i = 0; i < norder; i++)
		if (order[i] == id) {
			memmove(&order[i], &order[i + 1], (norder - i - 1) * sizeof(order[0]));
			norder--;
			return;
		}
}

static void publish_current(void)
{
	atomic_store_explicit(&ckt_proc_phase, norder ? order[norder - 1] : 0, memory_order_relaxed);
}

/* Shared by the API and the log-line rules. Returns the id (0 if none). */
static uint16_t begin_end(struct ckt_tls *t, const char *name, int begin)
{
	uint64_t ts = 0;
	ckt_sample_flush(t); /* see emit_phase */
	ckt_mutex_take(&lock);
	uint16_t id = intern(name, begin);
	if (id && begin) {
		counts[id]++;
		order_remove(id); /* "most recently begun": move to the end */
		order[norder++] = id;
	} else if (id && counts[id]) {
		if (--counts[id] == 0)
			order_remove(id);
	} else {
		id = 0; /* end of a phase that is not active */
	}
	/* stamped under the lock, so the BEGINs and ENDs of a name sort as they were counted
	 * (stamped after it, an END could sort before the BEGIN it closes) */
	if (id)
		ts = ckt_stamp(t);
	publish_current();
	ckt_mutex_give(&lock);
	if (id)
		ckt_emit(t, CKT_EV_PHASE, begin ? CKT_PHASE_BEGIN : CKT_PHASE_END, ts, id, 0, 0);
	return id;
}

/* A phase call may be the process's first call into the tracer (a library's constructor that
 * begins a phase before anything has allocated): it starts the tracer as malloc's first call
 * does (since 0.2.51; the call was dropped, and a process-wide phase begun there never began). */
static int api_enter(struct ckt_tls *t, const char *name)
{
	if (!name || t->guard)
		return 0;
	if (CKT_UNLIKELY(atomic_load_explicit(&ckt_boot_state, memory_order_relaxed) == 0))
		ckt_bootstrap();
	return atomic_load_explicit(&ckt_active, memory_order_relaxed);
}

/* name is the phase whose name intern kept as kept: its first CKT_MAX_STR bytes, whole
 * characters. A longer name's copy is cut, so a plain strcmp never found it in the cache, and
 * every push of it took the lock and hashed it again (12 times the cost of a short name's). */
static int is_kept_name(const char *kept, const char *name)
{
	size_t k = strlen(kept);
	if (strncmp(kept, name, k))
		return 0;
	return !name[k] || ckt_utf8_cut(name, strnlen(name, CKT_MAX_STR + 1), CKT_MAX_STR) == k;
}

CKT_EXPORT void cuzktrace_phase_push(const char *name)
{
	struct ckt_tls *t = &ckt_tls;
	/* NULL is a push too, of no name: the pop that goes with it must not pop the enclosing
	 * phase (ignored, it did, and the rest of that phase counted under the one outside it) */
	if (!api_enter(t, name ? name : "")) {
		/* while the tracer was not tracing (starting on another thread, or ended): its
		 * pop, later, is not one of a push made on another thread (pop_unpushed) */
		if (!t->guard && !atomic_load_explicit(&ckt_active, memory_order_relaxed) && t->phase_unseen < UINT_MAX)
			t->phase_unseen++;
		return;
	}
	t->guard = CKT_GUARD_HOOK;
	/* the thread's last names first, without the lock: a push per task on many threads
	 * (names are usually literals, so the same pointer) does not queue on one mutex. An id
	 * came from intern on this thread, so its name (written once, before) is visible. */
	uint16_t id = 0;
	if (name) {
		unsigned c = (unsigned)((uintptr_t)name >> 3) % CKT_PHASE_CACHE;
		id = t->phase_cache_name[c] == name ? t->phase_cache_id[c] : 0;
		if (!id || !is_kept_name(names[id], name)) {
			ckt_mutex_take(&lock);
			id = intern(name, 1);
			ckt_mutex_give(&lock);
			t->phase_cache_name[c] = name;
			t->phase_cache_id[c] = id;
		}
	}
	/* NULL, or a name past the table's limit (said once), leaves the bytes with the enclosing
	 * phase: the thread's, or with nothing pushed 0, the process-wide phase as it changes (it
	 * took the one active at the push, which kept the bytes made after it ended) */
	uint16_t owner = id ? id : t->phase_depth > 0 ? t->phase_top : 0;
	if (t->phase_depth < CKT_PHASE_DEPTH) {
		/* kept in the thread's ring (a thread that can get none loses its events, and its
		 * pops then fall back to no phase) */
		struct ckt_ring *r = ckt_thread_ring(t);
		if (r)
			r->phase_stack[t->phase_depth] = owner;
		t->phase_top = owner;
	} else if (!atomic_exchange(&deep_reported, 1)) {
		ckt_log("warning: phases nested deeper than 256 on one thread; allocations in the "
			"deeper ones are charged to the phase at depth 256 (the report still lists "
			"them as active)", NULL, NULL, NULL);
	}
	t->phase_depth++;
	emit_phase(t, CKT_PHASE_PUSH, id);
	t->guard = 0;
}

static void pop_one(struct ckt_tls *t)
{
	uint16_t id = ckt_phase_current(t);
	int d = --t->phase_depth;
	if (d == 0) /* nothing pushed: the process-wide phase (ckt_phase_current) */
		t->phase_top = 0;
	else if (d <= CKT_PHASE_DEPTH)
		t->phase_top = t->ring ? t->ring->phase_stack[d - 1] : 0;
	emit_phase(t, CKT_PHASE_POP, id);
}

/* A pop on a thread with nothing pushed: its push was on another thread (a Rust guard held
 * across an .await whose task resumed on another worker), where the phase stays pushed and
 * takes that thread's later bytes. Ignored as before, but said once (it was silent). */
static void pop_unpushed(void)
{
	if (atomic_exchange(&unpushed_reported, 1))
		return;
	struct ckt_line l = {.len = 0};
	ckt_line_str(&l, "cuzktrace: warning: cuzktrace_phase_pop() on thread ");
	ckt_line_u64(&l, (uint64_t)gettid());
	ckt_line_str(&l, ", which has no phase pushed: a push and its pop must be on one thread (a "
			 "guard held across an .await that resumed on another thread?), and the phase "
			 "pushed elsewhere stays on its thread; such pops are ignored, said once");
	ckt_line_emit(&l);
}

CKT_EXPORT void cuzktrace_phase_pop(void)
{
	struct ckt_tls *t = &ckt_tls;
	if (!api_enter(t, "")) {
		/* the pop of a push made while the tracer was not tracing (see push): balanced
		 * there, it must not take the place of a later pop's (since 0.2.51; a later pop
		 * with nothing pushed was silent) */
		if (!t->guard && !atomic_load_explicit(&ckt_active, memory_order_relaxed) && t->phase_unseen)
			t->phase_unseen--;
		return;
	}
	if (t->phase_depth == 0) {
		if (t->phase_unseen) { /* its push came before tracing started */
			t->phase_unseen--;
			return;
		}
		t->guard = CKT_GUARD_HOOK;
		pop_unpushed();
		t->guard = 0;
		return;
	}
	t->guard = CKT_GUARD_HOOK;
	pop_one(t);
	t->guard = 0;
}

/* A thread that exits with phases still pushed: they end with it (else they would stay active
 * to the end of the trace, and a reused tid would inherit them). Caller holds the guard. Their
 * pops may still come, from the program's thread-specific data destructors that run after the
 * tracer's (its key made first): balanced, they are counted as phase_unseen's and pass
 * silently (they drew the warning of a pop whose push was on another thread). */
void ckt_phase_thread_exit(struct ckt_tls *t)
{
	ckt_phase_flush_deferred(t);
	while (t->phase_depth > 0) {
		pop_one(t);
		if (t->phase_unseen < UINT_MAX)
			t->phase_unseen++;
	}
}

CKT_EXPORT void cuzktrace_phase_begin(const char *name)
{
	struct ckt_tls *t = &ckt_tls;
	if (!api_enter(t, name))
		return;
	t->guard = CKT_GUARD_HOOK;
	begin_end(t, name, 1);
	t->guard = 0;
}

CKT_EXPORT void cuzktrace_phase_end(const char *name)
{
	struct ckt_tls *t = &ckt_tls;
	if (!api_enter(t, name))
		return;
	t->guard = CKT_GUARD_HOOK;
	begin_end(t, name, 0);
	t->guard = 0;
}

/* ---- CUZKTRACE_PHASES='name=START..END;name2=MARK' ---- */
#define MAX_RULES 32
#define RULE_NAME 64    /* bytes, with the NUL */
#define RULE_MARKER 128 /* bytes, with the NUL */
struct rule {
	char name[RULE_NAME];
	char start[RULE_MARKER];
	char end[RULE_MARKER]; /* empty: a single-marker phase, ended by the next single-marker phase */
	size_t start_len, end_len;
};
static struct rule rules[MAX_RULES];

/* name (len bytes) is one of the rules' */
static int is_rule_name(const char *name, size_t len)
{
	for (unsigned k = 0; k < nrules; k++)
		if (strlen(rules[k].name) == len && !memcmp(rules[k].name, name, len))
			return 1;
	return 0;
}
/* The rules' distinct names that have no id yet (caller holds lock): the table's last slots
 * are kept for them. */
static unsigned rules_unnamed(void)
{
	unsigned n = 0;
	for (unsigned k = 0; k < nrules; k++) {
		unsigned j = 0;
		while (j < k && strcmp(rules[j].name, rules[k].name))
			j++;
		if (j == k && !intern(rules[k].name, 0))
			n++;
	}
	return n;
}

/* The single-marker phase now begun, if any. Log lines from several threads are scanned one
 * write at a time under scan_lock: ending the previous single-marker phase and beginning the
 * next is one step (racing, two threads each kept theirs begun for good). */
static char single_active[RULE_NAME];
static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;

/* 0, or -1 when the field is empty, or the limit when it is too long */
static int copy_field(char *dst, size_t cap, const char *s, size_t n)
{
	if (n == 0)
		return -1;
	if (n >= cap)
		return (int)cap;
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

void ckt_phase_rules_load(void)
{
	const char *v = getenv("CUZKTRACE_PHASES");
	if (!v || !*v)
		return;
	const char *p = v, *why = "expected NAME=START..END or NAME=TEXT, separated by ';'";
	while (*p) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		struct rule *r = &rules[nrules];
		if (len == 0) {
			p += semi ? 1 : 0;
			if (!semi)
				break;
			continue;
		}
		if (nrules == MAX_RULES) {
			why = "at most 32 rules";
			goto bad;
		}
		int rc = eq ? copy_field(r->name, sizeof(r->name), p, (size_t)(eq - p)) : -1;
		if (rc) {
			if (rc > 0)
				why = "a name is at most 63 bytes";
			goto bad;
		}
		/* " x = A..B " would name the phase " x " and never match what was meant */
		if (isspace((unsigned char)r->name[0]) || isspace((unsigned char)r->name[eq - p - 1])) {
			why = "a name neither starts nor ends with a space";
			goto bad;
		}
		const char *m = eq + 1;
		size_t mlen = len - (size_t)(m - p);
		const char *dots = NULL;
		for (size_t i = 0; i + 1 < mlen; i++)
			if (m[i] == '.' && m[i + 1] == '.') {
				dots = m + i;
				break;
			}
		if (dots) {
			rc = copy_field(r->start, sizeof(r->start), m, (size_t)(dots - m));
			if (!rc)
				rc = copy_field(r->end, sizeof(r->end), dots + 2, mlen - (size_t)(dots - m) - 2);
		} else {
			rc = copy_field(r->start, sizeof(r->start), m, mlen);
		}
		if (rc) {
			if (rc > 0)
				why = "a marker is at most 127 bytes";
			goto bad;
		}
		r->start_len = strlen(r->start);
		r->end_len = strlen(r->end);
		nrules++;
		if (!semi)
			break;
		p = semi + 1;
	}
	ckt_phase_rules_on = nrules > 0;
	return;
bad:
	nrules = 0;
	{
		struct ckt_line l = {.len = 0};
		ckt_line_str(&l, "cuzktrace: warning: invalid CUZKTRACE_PHASES='");
		ckt_line_str(&l, v);
		ckt_line_str(&l, "' (");
		ckt_line_str(&l, why);
		ckt_line_str(&l, "); phases from log lines are off");
		ckt_line_emit(&l);
	}
}

/* The rules in force, as CUZKTRACE_PHASES gives them ("name=START..END;name2=MARK"), rebuilt
 * from what was parsed (empty segments dropped), or "" when none: the trace's header records
 * it with the other settings. Parses back to the same rules: a marker holds no ';', a start
 * marker no "..". cap is CKT_PHASE_RULES_TEXT, which holds the longest rules. */
void ckt_phase_rules_text(char *out, size_t cap)
{
	_Static_assert(CKT_PHASE_RULES_TEXT >= MAX_RULES * ((RULE_NAME - 1) + 2 * (RULE_MARKER - 1) + 4),
		       "CKT_PHASE_RULES_TEXT holds MAX_RULES of the longest rules and separators");
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < nrules; i++) {
		const struct rule *r = &rules[i];
		const char *part[] = {i ? ";" : "", r->name, "=", r->start, r->end[0] ? ".." : "", r->end};
		size_t len = 0;
		for (size_t k = 0; k < sizeof(part) / sizeof(part[0]); k++)
			len += strlen(part[k]);
		if (n + len >= cap)
			return; /* never (see the assertion): whole rules only */
		for (size_t k = 0; k < sizeof(part) / sizeof(part[0]); k++) {
			size_t l = strlen(part[k]);
			memcpy(out + n, part[k], l + 1);
			n += l;
		}
	}
}

/* The line around a marker at `at`, at most CKT_MAX_STR bytes (what a NOTE keeps), from its
 * start or from CKT_MAX_STR / 2 bytes before the marker (a longer line is cut around it): the
 * scan is bounded, so a long line with many markers costs the write time linear in its length
 * (scanning to both ends of the line for each marker took 3 s for one write of 128 KB). */
static void note(uint16_t id, const char *buf, size_t n, const char *at, const char *pre, size_t pre_len)
{
	const char *lo = at, *floor = (size_t)(at - buf) > CKT_MAX_STR / 2 ? at - CKT_MAX_STR / 2 : buf;
	while (lo > floor && lo[-1] != '\n')
		lo--;
	/* the line began in this thread's earlier writes (a logger's writev pieces): joined below,
	 * with their end, which completes a character this write starts inside; else a note
	 * starts after a character, not inside it (a cut, or a write that split one) */
	static char line[512];
	int join = lo == buf && pre_len && (size_t)(at - lo) < sizeof(line) / 2;
	if (!join)
		lo += ckt_utf8_skip(lo, (size_t)(at - lo));
	const char *hi = at, *ceil = (size_t)(buf + n - lo) > CKT_MAX_STR ? lo + CKT_MAX_STR : buf + n;
	while (hi < ceil && *hi != '\n')
		hi++;
	if (hi == ceil && ceil < buf + n) /* and ends before one */
		hi = lo + ckt_utf8_cut(lo, (size_t)(buf + n - lo), (size_t)(hi - lo));
	/* joined: the earlier writes' end goes before it, cut to 512 bytes in all around the
	 * marker. The buffers are static, under scan_lock (the caller holds it): the scan runs on
	 * the program's stack, which may be a small signal or thread stack */
	if (join) {
		size_t tail = ckt_utf8_cut(lo, (size_t)(hi - lo), sizeof(line) / 2);
		size_t p = pre_len < sizeof(line) - tail ? pre_len : sizeof(line) - tail;
		p -= ckt_utf8_skip(pre + pre_len - p, p); /* the earlier writes' part, cut here or
							     * in the carry, starts a character */
		memcpy(line, pre + pre_len - p, p);
		memcpy(line + p, lo, tail);
		lo = line;
		hi = line + p + tail;
	}
	static uint8_t rec[CKT_MAX_STR + 40];
	struct ckt_aux *a = ckt_aux_of(rec, (size_t)(ckt_record_note(rec, ckt_now(), id, lo, (size_t)(hi - lo)) - rec));
	if (a)
		ckt_aux_push(a);
}

/* Is the process-wide phase `name` begun now? */
static int is_begun(const char *name)
{
	ckt_mutex_take(&lock);
	uint16_t id = intern(name, 0);
	int on = id && counts[id] > 0;
	ckt_mutex_give(&lock);
	return on;
}

/* One rule's markers found at one place: what it does there. Where both of its markers match
 * (an end marker that starts with the start marker, PROVE..PROVE_DONE) the longer one wins;
 * the same marker for both (MARK..MARK) ends the phase if it is begun, else begins it. */
static void apply_rule(struct ckt_tls *t, const struct rule *r, int start_here, int end_here,
		       const char *buf, size_t n, const char *at, const char *pre, size_t pre_len)
{
	uint16_t id;
	if (!r->end[0]) { /* single marker: ends the previous single-marker phase */
		if (single_active[0])
			begin_end(t, single_active, 0);
		strcpy(single_active, r->name);
		id = begin_end(t, r->name, 1);
	} else {
		int is_end = end_here && (!start_here || r->end_len > r->start_len ||
					  (r->end_len == r->start_len && is_begun(r->name)));
		id = begin_end(t, r->name, !is_end);
	}
	if (id)
		note(id, buf, n, at, pre, pre_len);
}

/* Every marker occurrence in buf, applied in the order they appear; at one place every rule
 * with a marker there acts (LOAD..SYNTH and SYNTH..DONE: the SYNTH line ends one and begins the
 * other). Each marker's next occurrence is searched for again only once the scan has passed
 * it, so one write costs one pass per marker, however many lines match. With cross, only the
 * occurrences that begin before cross count, and unless pending, only those that end after it
 * (the scan of a line's end carried from earlier writes joined to the head of this one;
 * pending: the carried text was deferred, not scanned). pre: the end of the line this thread
 * has open, for the stored lines. at_end: buf ends where the thread's writes end so far; a
 * marker there that a longer one could still extend with the next write (PROVE of
 * PROVE_DONE, written "PROVE" then "_DONE\n" by eprintln!("{}_DONE", stage)) is deferred: the
 * scan stops, *deferred says where. Returns the end of the text the last one used up (buf
 * when none). Caller holds scan_lock. */
/* rule i's start marker (e 0) or end marker (e 1), its length in *len (0: none) */
static const char *marker(unsigned i, int e, size_t *len)
{
	*len = e ? rules[i].end_len : rules[i].start_len;
	return e ? rules[i].end : rules[i].start;
}

/* a marker longer than len could still match at `at` once the text after end comes */
static int longer_may_follow(const char *at, const char *end, size_t len)
{
	size_t have = (size_t)(end - at), ml;
	for (unsigned i = 0; i < nrules; i++)
		for (int e = 0; e < 2; e++) {
			const char *m = marker(i, e, &ml);
			if (ml > len && ml > have && memcmp(at, m, have) == 0)
				return 1;
		}
	return 0;
}

static const char *scan_text(const char *buf, size_t n, const char *cross, int pending, const char *pre,
			     size_t pre_len, int at_end, const char **deferred)
{
	struct ckt_tls *t = &ckt_tls;
	static const char *next[MAX_RULES][2]; /* under scan_lock: off the program's stack */
	const char *end = buf + n, *used = buf;
	*deferred = NULL;
	for (unsigned i = 0; i < nrules; i++) {
		next[i][0] = memmem(buf, n, rules[i].start, rules[i].start_len);
		next[i][1] = rules[i].end[0] ? memmem(buf, n, rules[i].end, rules[i].end_len) : NULL;
	}
	for (;;) {
		const char *at = NULL;
		for (unsigned i = 0; i < nrules; i++)
			for (int e = 0; e < 2; e++)
				if (next[i][e] && (!at || next[i][e] < at))
					at = next[i][e];
		if (!at || (cross && at >= cross))
			break;
		/* the markers that count here (bit e of here[i]), the longest of them */
		static uint8_t here[MAX_RULES];
		size_t longest = 0, ml;
		for (unsigned i = 0; i < nrules; i++) {
			here[i] = 0;
			for (int e = 0; e < 2; e++) {
				(void)marker(i, e, &ml);
				if (next[i][e] == at && (!cross || pending || at + ml > cross)) {
					here[i] |= (uint8_t)(1 << e);
					longest = ml > longest ? ml : longest;
				}
			}
		}
		if (longest && at_end && longer_may_follow(at, end, longest)) {
			*deferred = at;
			return used;
		}
		for (unsigned i = 0; i < nrules; i++)
			if (here[i])
				apply_rule(t, &rules[i], here[i] & 1, here[i] >> 1, buf, n, at, pre, pre_len);
		/* go on after the longest marker found here; search again for the ones passed */
		const char *pos = at + (longest ? longest : 1);
		if (longest)
			used = pos;
		for (unsigned i = 0; i < nrules; i++)
			for (int e = 0; e < 2; e++)
				if (next[i][e] && next[i][e] < pos) {
					const char *m = marker(i, e, &ml);
					next[i][e] = memmem(pos, (size_t)(end - pos), m, ml);
				}
	}
	return used;
}

/* A marker split across writes is found too: Rust's eprintln!("{} start", stage) writes
 * "synthesis", then " start\n" (its stderr is unbuffered), and the pieces of a writev are
 * writes of their own past 1 KiB. Each thread keeps the end of the line it has open on a descriptor
 * (the text after its last newline there, at most the longest marker less one byte:
 * CKT_SCAN_CARRY; what a marker used up of it, scan_skip, is text for the stored lines only)
 * and joins it to the head of its next write to that descriptor, where only markers that
 * cross the join count. Another thread's writes do not
 * break it (each thread's line is its own), a write to the other descriptor does. The
 * buffers (the join, the marker positions, a stored line) are static, under scan_lock: the
 * scan takes a few hundred bytes of the program's stack, with memmem's. */
enum { JOIN_HEAD = 512 - CKT_SCAN_CARRY };

/* Markers deferred by each thread (its carry while scan_pending), copied here, so that the
 * process's exit acts on those of threads still running then (the exit's own thread acts on
 * its carry itself): README promises a deferred marker acts at "the process's exit", and a
 * thread that wrote "PROVE" and waited lost it (0.2.49). Under scan_lock; owners are keys
 * only, never followed (a thread may be gone). Past PEND_MAX threads at once, a marker
 * deferred then acts at its own thread's next write or exit alone. */
#define PEND_MAX 64
static struct {
	const struct ckt_tls *owner;
	unsigned len, skip;
	int acted; /* acted at the process's exit: its owner drops its carry at its next scan */
	char carry[CKT_SCAN_CARRY];
} pend[PEND_MAX];
static unsigned pend_n, acted_n;
/* the thread holding scan_lock (its state's address), for an exit from a handler that
 * interrupted that thread's scan: it must not wait for itself */
static const struct ckt_tls *_Atomic scan_holder;

/* t's deferred marker acted at the process's exit already (ckt_phase_flush_all_deferred):
 * dropped, so that its next write or its exit, before the process is gone, does not act it
 * again (a review found prove begun twice, 18 runs in 30) */
static void pend_drop_acted(struct ckt_tls *t)
{
	if (!acted_n)
		return;
	for (int i = 0; i < PEND_MAX; i++)
		if (pend[i].owner == t && pend[i].acted) {
			pend[i].owner = NULL;
			pend[i].acted = 0;
			acted_n--;
			t->scan_pending = 0;
			t->scan_carry_len = 0;
			t->scan_skip = 0;
			return;
		}
}

/* t->scan_pending or its carry changed: pend follows */
static void pend_note(struct ckt_tls *t)
{
	if (!pend_n && !t->scan_pending)
		return;
	int at = -1;
	for (int i = 0; i < PEND_MAX; i++) {
		if (pend[i].owner == t) {
			at = i;
			break;
		}
		if (!pend[i].owner && at < 0)
			at = i;
	}
	if (at < 0)
		return;
	if (pend[at].owner == t && !t->scan_pending) {
		pend[at].owner = NULL;
		pend_n--;
		return;
	}
	if (!t->scan_pending)
		return;
	if (pend[at].owner != t) {
		pend[at].owner = t;
		pend_n++;
	}
	pend[at].len = t->scan_carry_len;
	pend[at].skip = t->scan_skip;
	memcpy(pend[at].carry, t->scan_carry, t->scan_carry_len);
}

/* scan_lock, waited for (2 s at most: a thread that holds it is scanning, which does not wait
 * for this one), not by the thread that holds it (a handler that interrupted its scan): 0, or
 * -1 (the marker is lost then). Before 0.2.50 one try: a thread's exit while another thread
 * scanned its own write lost the thread's deferred marker, 6 runs in 6. */
static int scan_lock_wait(struct ckt_tls *t)
{
	if (atomic_load(&scan_holder) == t)
		return -1;
	for (int i = 0; i < 20000; i++) {
		if (ckt_mutex_try(&scan_lock) == 0) {
			atomic_store(&scan_holder, t);
			return 0;
		}
		ckt_nap(100000);
	}
	return -1;
}

static void scan_lock_give(void)
{
	atomic_store(&scan_holder, NULL);
	ckt_mutex_give(&scan_lock);
}

/* The markers that cross from the c bytes of the open line into buf (or, when the carried
 * text was deferred, that begin in it): where the scan of buf begins (past the text they used
 * up); NULL when a marker at the end of the join was deferred (then kept as the carry). */
static char join[CKT_SCAN_CARRY + JOIN_HEAD]; /* under scan_lock */

/* The thread's carry becomes the last CKT_SCAN_CARRY bytes of the line text a (alen bytes,
 * which may be the carry itself) then b, the first `skip` of them used up (or, deferring, the
 * text before the marker deferred, which ends the line: shorter than the carry) */
static void carry_keep(struct ckt_tls *t, const char *a, size_t alen, const char *b, size_t blen, size_t skip)
{
	if (alen + blen > CKT_SCAN_CARRY) { /* the line's first bytes go: a's, then b's */
		size_t drop = alen + blen - CKT_SCAN_CARRY, from_a = drop < alen ? drop : alen;
		a += from_a;
		alen -= from_a;
		b += drop - from_a;
		blen -= drop - from_a;
		skip = skip > drop ? skip - drop : 0;
	}
	memmove(t->scan_carry, a, alen);
	memcpy(t->scan_carry + alen, b, blen);
	t->scan_carry_len = (unsigned)(alen + blen);
	t->scan_skip = (unsigned char)skip;
}

/* The scan of the join starts past the carry's used-up text (t->scan_skip), which stays the
 * line's text before it for the stored lines (since 0.2.60: "job=7 SYNTH_START rows=5 " then
 * "MARK\n" stored " rows=5 MARK"). On return join holds the carry and the head of buf: the
 * line's text before the scan of buf begins (scan_write). */
static const char *scan_join(struct ckt_tls *t, const char *buf, size_t n)
{
	size_t c = t->scan_carry_len, h = n < JOIN_HEAD ? n : JOIN_HEAD, skip = t->scan_skip <= c ? t->scan_skip : 0;
	const char *deferred;
	memcpy(join, t->scan_carry, c);
	memcpy(join + c, buf, h);
	const char *used = scan_text(join + skip, c + h - skip, join + c, t->scan_pending, join, skip, h == n,
				     &deferred);
	if (deferred) { /* shorter than the longest marker: it fits the carry, with the line before it */
		carry_keep(t, join, 0, join, c + h, (size_t)(deferred - join));
		t->scan_pending = 1;
		pend_note(t);
		return NULL;
	}
	t->scan_pending = 0;
	pend_note(t);
	return used > join + c ? buf + (used - (join + c)) : buf;
}

/* A deferred marker whose line the thread leaves (a write to the other descriptor) acts then. */
static void scan_flush_deferred(struct ckt_tls *t)
{
	const char *deferred;
	if (t->scan_pending && t->scan_carry_len > t->scan_skip)
		(void)scan_text(t->scan_carry + t->scan_skip, t->scan_carry_len - t->scan_skip, NULL, 0, t->scan_carry,
				t->scan_skip, 0, &deferred);
	t->scan_pending = 0;
	t->scan_carry_len = 0;
	t->scan_skip = 0;
	pend_note(t);
}

/* A marker the thread's last write left deferred acts as its line ends: at the thread's exit.
 * Not when this thread's own scan is under way (an exit from a handler that interrupted it):
 * the marker is lost then. */
void ckt_phase_flush_deferred(struct ckt_tls *t)
{
	if (!t->scan_pending || scan_lock_wait(t) != 0)
		return;
	pend_drop_acted(t);
	scan_flush_deferred(t);
	scan_lock_give();
}

/* The process's exit: this thread's deferred marker, then those of threads still running. */
void ckt_phase_flush_all_deferred(struct ckt_tls *t)
{
	if ((!t->scan_pending && !__atomic_load_n(&pend_n, __ATOMIC_RELAXED)) || scan_lock_wait(t) != 0)
		return;
	pend_drop_acted(t);
	scan_flush_deferred(t);
	for (int i = 0; i < PEND_MAX && pend_n; i++) {
		if (!pend[i].owner || pend[i].acted)
			continue;
		const char *deferred;
		(void)scan_text(pend[i].carry + pend[i].skip, pend[i].len - pend[i].skip, NULL, 0, pend[i].carry,
				pend[i].skip, 0, &deferred);
		pend[i].acted = 1; /* its owner may scan again before the process is gone */
		pend_n--;
		acted_n++;
	}
	scan_lock_give();
}

static void scan_write(int fd, const char *buf, size_t n)
{
	struct ckt_tls *t = &ckt_tls;
	const char *deferred;
	pend_drop_acted(t);
	if (t->scan_fd != fd)
		scan_flush_deferred(t);
	t->scan_fd = fd;
	size_t c = t->scan_carry_len, skip = t->scan_skip <= c ? t->scan_skip : 0;
	const char *from = c ? scan_join(t, buf, n) : buf;
	if (!from)
		return; /* deferred in the join: the carry holds it */
	/* the line's text before from: the carry (from == buf), or the join's carry and the part
	 * of buf a marker across the join used up */
	const char *pre = from == buf ? t->scan_carry : join;
	size_t pre_len = c + (size_t)(from - buf);
	const char *used = scan_text(from, n - (size_t)(from - buf), NULL, 0, pre, pre_len, 1, &deferred);
	if (deferred) { /* kept with the line before it: from its last newline, else with pre */
		const char *nl = memrchr(from, '\n', (size_t)(deferred - from));
		if (nl)
			carry_keep(t, nl + 1, 0, nl + 1, (size_t)(buf + n - nl - 1), (size_t)(deferred - nl - 1));
		else
			carry_keep(t, pre, pre_len, from, (size_t)(buf + n - from), pre_len + (size_t)(deferred - from));
		t->scan_pending = 1;
		pend_note(t);
		return;
	}
	t->scan_pending = 0;
	pend_note(t);
	/* the line left open: after the last newline, else the carry's and this write's text; its
	 * last CKT_SCAN_CARRY bytes, of which a marker used up `skip` (scanned no more) */
	const char *nl = memrchr(buf, '\n', n);
	if (nl)
		carry_keep(t, nl + 1, 0, nl + 1, (size_t)(buf + n - nl - 1), used > nl + 1 ? (size_t)(used - nl - 1) : 0);
	else /* a marker of this write, or one across the join; else what the carry had used up */
		carry_keep(t, t->scan_carry, c, buf, n, used > buf ? c + (size_t)(used - buf) : skip);
}

/* After a scan, outside its lock: a thread that deferred a marker and has recorded nothing
 * takes its ring now, whose key destructor acts the marker at the thread's exit (a thread that
 * never allocates, writing "PROVE" then ending: the marker was lost). */
static void scan_done(struct ckt_tls *t)
{
	scan_lock_give();
	if (t->scan_pending && !t->ring)
		(void)ckt_thread_attach(t);
}

void ckt_phase_scan(int fd, const char *buf, size_t n)
{
	ckt_mutex_take(&scan_lock);
	atomic_store(&scan_holder, &ckt_tls);
	scan_write(fd, buf, n);
	scan_done(&ckt_tls);
}

/* loggers write [prefix, message, "\n"]: up to 1 KiB the pieces are joined (in a static
 * buffer, under scan_lock) and scanned as one write, so that the stored line is whole;
 * longer ones are scanned in turn, a marker split between them found as one split between
 * writes */
void ckt_phase_scan_iov(int fd, const struct iovec *iov, int cnt, size_t total)
{
	static char joined[1024];
	ckt_mutex_take(&scan_lock);
	atomic_store(&scan_holder, &ckt_tls);
	if (total <= sizeof(joined)) {
		size_t n = 0;
		for (int i = 0; i < cnt && n < total; i++) {
			size_t k = iov[i].iov_len < total - n ? iov[i].iov_len : total - n;
			memcpy(joined + n, iov[i].iov_base, k);
			n += k;
		}
		scan_write(fd, joined, n);
	} else {
		for (int i = 0; i < cnt && total; i++) {
			size_t k = iov[i].iov_len < total ? iov[i].iov_len : total;
			if (k)
				scan_write(fd, iov[i].iov_base, k);
			total -= k;
		}
	}
	scan_done(&ckt_tls);
}

/* ---- thread names ---- */
/* A thread's name is the kernel's, at most 15 bytes (pthread_setname_np refuses more, prctl
 * and PR_GET_NAME cut to that), so its record takes 56 bytes of the caller's stack, which can
 * be a small thread or signal stack (it took CKT_MAX_STR + 40). */
void ckt_thread_name_record_tid(pid_t tid, const char *name)
{
	char cut[16];
	size_t len = strnlen(name, sizeof(cut) - 1);
	memcpy(cut, name, len);
	cut[len] = 0;
	name = cut;
	uint8_t rec[sizeof(cut) + 40];
	struct ckt_aux *a = ckt_aux_of(rec, (size_t)(ckt_record_thread_name(rec, ckt_now(), (uint64_t)tid, name) - rec));
	if (a)
		ckt_aux_push(a);
}

void ckt_thread_name_record(struct ckt_tls *t, const char *name)
{
	if (t->ring)
		ckt_thread_name_record_tid(t->ring->tid, name);
}

/* pthread_setname_np(other, name): the renamed thread's tid is the one of its ring. A thread
 * without a ring yet has recorded nothing; it reads its (new) name when it attaches. Only a
 * live ring counts: pthread_t values are reused once a thread is joined, and an exited
 * thread's ring can wait a flush before it is recycled. (Asking the kernel whether its tid
 * still runs did not do: a joined thread's task lingers a moment after the join returns, and
 * under load the new thread's name went to the old one's tid: threadnames.c, once in a few
 * runs with both cores busy.) A thread renamed after its exit began is left out: it records
 * little from then on. */
void ckt_thread_name_record_other(unsigned long pth, const char *name)
{
	for (struct ckt_ring *r = atomic_load(&ckt_rings); r; r = r->next)
		if (atomic_load_explicit(&r->state, memory_order_acquire) == CKT_RING_LIVE && r->pth == pth) {
			ckt_thread_name_record_tid(r->tid, name);
			return;
		}
}
