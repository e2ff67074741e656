/* phases.c: the phase and thread-name observer. Replays PHASE events into per-thread push
 * stacks and the process-wide counted set, keeps live bytes per owning phase and per thread
 * (ckt_tracked: the value at every peak at O(1) per change), snapshots the active phases at
 * each new peak, and formats the phase section of the text report and --phases-csv. The JSON
 * keys are report_json.c's; symbolizing stacks for --phase-rule is main.c's (through a callback).
 */
#include "phases.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CKT_PHASES_NONE 0 /* index of "(none)" in p->ph */
#define CKT_PHASES_TH_CACHE 16

struct ckt_phase {
	uint64_t id;       /* trace phase id; UINT64_MAX for a name only a --phase-rule gives */
	char *name;        /* NULL until its PHASE_DEF arrives */
	bool marked;       /* some PHASE event named it */
	uint64_t pushes;   /* entries on all threads' push stacks */
	uint64_t begins;   /* process-wide begins minus ends */
	/* ENDs that came while begins was 0, all at early_ts: at one timestamp the merge orders
	 * two threads' events by thread, so an END may come before the BEGIN it closes; a BEGIN
	 * at that same timestamp cancels one (an END with no BEGIN at all, e.g. the BEGIN was
	 * lost, is dropped at the next timestamp and cannot hide a later BEGIN) */
	uint64_t early_ends, early_ts;
	/* traces before format 4: ENDs that came with no BEGIN open, the last at deficit_ts; a
	 * BEGIN within CKT_PHASES_LEGACY_NS after it is the one it closed (that tracer stamped
	 * them outside its lock: an END could lead by the time a thread takes to stamp) */
	uint64_t deficit, deficit_ts;
	bool active;
	/* begun while another process-wide phase was active: while they overlap, it may be the
	 * one begun last, which allocations of threads with no phase of their own count under */
	bool pw_overlap_last;
	uint64_t since, active_ns;
	uint64_t allocated, gpu_allocated;
	struct ckt_tracked heap, mmap, host, rss, gpu, pinned;
	struct ckt_tracked smp; /* live samples of the default mode (heap blocks): for --diff's noise */
	struct ckt_tracked smpb; /* and their bytes (weighted): the rest is exact */
	bool csv_held;     /* it held bytes at the previous --phases-csv sample */
	bool csv_listed;   /* it is in csv_list */
};

struct ckt_pthread {
	uint64_t tid;
	char *name;
	uint64_t name_ts;
	uint64_t allocated;
	struct ckt_tracked heap, rss;
	struct ckt_tracked smp, smpb; /* as a phase's: for --diff's noise by thread group */
	struct ckt_pushed *stack; /* innermost last */
	size_t depth, cap;
	uint64_t deep; /* pushes above the stored ones (CKT_PHASES_MAX_STACKED) */
};

/* Pushes of one phase in a row are one entry of a thread's phase stack: a phase pushed and
 * never popped in a loop (a bug of the program, or a forged trace: 100 million pushes of a 36
 * KB trace held 900 MB) takes one. Entries on all threads' stacks together are bounded too;
 * pushes past the bound are counted, not stored, and their pops take the record's id (which
 * the tracer writes right up to 256 deep). */
struct ckt_pushed {
	size_t i;   /* phase index */
	uint64_t n; /* pushes of it in a row */
};
#define CKT_PHASES_MAX_STACKED ((size_t)1 << 20)

struct ckt_pnote {
	uint64_t ts, id;
	char *text;
	size_t len;
};

struct ckt_phases {
	uint64_t phase_now; /* the latest timestamp of a phase event replayed */
	size_t stacked;     /* entries on all threads' stacks */
	struct ckt_phase *ph;
	size_t n_ph, cap_ph;
	struct ckt_util_map by_id;

	struct ckt_pthread *th;
	size_t n_th, cap_th;
	struct ckt_util_map by_tid;
	bool by_thread;                /* bytes by thread are kept (ckt_phases_set_by_thread) */
	unsigned top;                  /* text: rows per peak (ckt_phases_set_top; 0: all) */
	struct ckt_replay *rep;        /* the replay observed (ckt_phases_attach) */
	struct ckt_pthread no_thread;  /* stands for every thread when they are not */
	size_t th_cache[CKT_PHASES_TH_CACHE]; /* tid's low bits -> index + 1; 0 = none */

	size_t *active; /* phase indices, in the order they became active */
	size_t n_active, cap_active;
	size_t *snap[CKT_AT_COUNT]; /* the active list at the latest peak of each moment */
	size_t n_snap[CKT_AT_COUNT], cap_snap[CKT_AT_COUNT];
	/* changes of the active list, and the count each snapshot was taken at: a new maximum
	 * copies the list only if it changed since (in exact mode every allocation of a growing
	 * heap is one: with 4,000 phases open that was 4,000 copies per event) */
	uint64_t active_gen, snap_gen[CKT_AT_COUNT];
	/* of each snapshot's phases, those active process-wide then (begun and not ended: a
	 * thread with none pushed of its own allocates for the one begun last) */
	size_t snap_pw[CKT_AT_COUNT];
	/* process-wide phases active now; whether two or more have been at once so far (the first
	 * time: when, and two of them), and whether they had been at each snapshot: bytes a
	 * thread with nothing pushed allocated then count under the one begun last, and can still
	 * be live at a peak where the overlap is over */
	size_t n_pw;
	bool pw_overlapped, snap_pw_overlapped[CKT_AT_COUNT];
	uint64_t pw_overlap_ts;
	size_t pw_overlap_a, pw_overlap_b;
	const char **snap_names[CKT_AT_COUNT]; /* filled by finish */

	/* results, computed by finish */
	struct ckt_phases_share *shares[CKT_AT_COUNT];
	size_t n_shares[CKT_AT_COUNT];
	struct ckt_phases_row *rows;
	size_t n_rows;
	struct ckt_phases_group *groups;
	size_t n_groups;

	struct ckt_pnote notes[CKT_PHASES_NOTES_KEPT];
	struct ckt_phases_note pub_notes[CKT_PHASES_NOTES_KEPT];
	size_t n_notes;
	uint64_t notes_total;

	ckt_phases_rule_fn *rule;
	void *rule_ctx;
	struct ckt_util_map by_stack; /* stack id -> phase index + 1 (rule decision cache) */
	bool rule_hit;

	const uint64_t *epochs; /* the replay's, during the replay */
	uint64_t final_epochs[CKT_EPOCHS_LEN];
	bool any;
	int err;

	ckt_replay_sample_fn *next;
	void *next_ctx;
	char *active_str;
	size_t active_str_cap;
	bool active_dirty;
	/* a trace from a tracer before 0.2.2 (format versions 1 to 3): BEGIN/END were stamped
	 * outside the lock that counted them, so an END may come before its BEGIN by some ns */
	bool legacy_order;

	struct ckt_util_out csv_out;
	FILE *csv; /* csv_out.f while --phases-csv is open */
	int csv_err;
	/* the phases --phases-csv looks at in a sample: those whose heap or mmap bytes changed
	 * since the last one and those that held bytes then, in no order until csv_sorted (each
	 * sample looked at every phase: 80,000 phases and as many samples, 6.4 G looks) */
	size_t *csv_list;
	size_t n_csv_list, cap_csv_list;
	bool csv_sorted;
};

static int ckt_phases_grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *n = realloc(*v, c * size);
	if (!n)
		return CKT_ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

/* ---- phases and threads ---- */

static long ckt_phases_add(struct ckt_phases *p, uint64_t id)
{
	if (ckt_phases_grow((void **)&p->ph, &p->cap_ph, p->n_ph + 1, sizeof(*p->ph)) < 0)
		return CKT_ENOMEM;
	memset(&p->ph[p->n_ph], 0, sizeof(p->ph[0]));
	p->ph[p->n_ph].id = id;
	return (long)p->n_ph++;
}

/* Index of phase id, created on first sight; CKT_ENOMEM. */
static long ckt_phases_index(struct ckt_phases *p, uint64_t id)
{
	if (id == 0)
		return CKT_PHASES_NONE;
	uint64_t v;
	if (ckt_util_map_get(&p->by_id, id, &v))
		return (long)v;
	long i = ckt_phases_add(p, id);
	if (i < 0 || ckt_util_map_put(&p->by_id, id, (uint64_t)i) < 0)
		return CKT_ENOMEM;
	return i;
}

static long ckt_phases_index_by_name(struct ckt_phases *p, const char *name)
{
	if (strcmp(name, "(none)") == 0) /* a --phase-rule may give bytes back to no phase */
		return CKT_PHASES_NONE;
	if (strcmp(name, "\"\"") == 0) /* the empty name, as the report shows it */
		name = "";
	for (size_t i = 1; i < p->n_ph; i++)
		if (p->ph[i].name && strcmp(p->ph[i].name, name) == 0)
			return (long)i;
	long i = ckt_phases_add(p, UINT64_MAX);
	if (i < 0)
		return i;
	p->ph[i].name = strdup(name);
	return p->ph[i].name ? i : CKT_ENOMEM;
}

/* Index of phase id for its PHASE_DEF: a --phase-rule that named this phase before the trace
 * defined it made a phase of that name with no id (UINT64_MAX); it becomes this one, so one
 * name is one phase. (A phase id used before its definition is replayed cannot happen in a
 * trace from the tracer: a name is defined before the events stamped with it are replayed.) */
static long ckt_phases_adopt(struct ckt_phases *p, uint64_t id, const char *name)
{
	uint64_t v;
	if (id != 0 && !ckt_util_map_get(&p->by_id, id, &v))
		for (size_t i = 1; i < p->n_ph; i++)
			if (p->ph[i].id == UINT64_MAX && p->ph[i].name && strcmp(p->ph[i].name, name) == 0) {
				if (ckt_util_map_put(&p->by_id, id, i) < 0)
					return CKT_ENOMEM;
				p->ph[i].id = id;
				return (long)i;
			}
	return ckt_phases_index(p, id);
}

static struct ckt_pthread *ckt_phases_thread(struct ckt_phases *p, uint64_t tid)
{
	/* a few threads interleave: a small direct-mapped cache first (indices never move) */
	size_t *c = &p->th_cache[tid & (CKT_PHASES_TH_CACHE - 1)];
	if (*c && p->th[*c - 1].tid == tid)
		return &p->th[*c - 1];
	uint64_t v;
	if (ckt_util_map_get(&p->by_tid, tid, &v)) {
		*c = (size_t)v + 1;
		return &p->th[v];
	}
	if (ckt_phases_grow((void **)&p->th, &p->cap_th, p->n_th + 1, sizeof(*p->th)) < 0 ||
	    ckt_util_map_put(&p->by_tid, tid, p->n_th) < 0)
		return NULL;
	struct ckt_pthread *t = &p->th[p->n_th++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static const char *ckt_phases_name(const struct ckt_phase *ph, char *buf, size_t n)
{
	if (ph->name)
		return ph->name;
	if (ph->id == 0)
		return "(none)";
	snprintf(buf, n, "#%" PRIu64, ph->id);
	return buf;
}

/* ---- the observer ---- */

#define CKT_PHASES_LEGACY_NS 1000000ull /* 1 ms: far longer than a stamp, far shorter than a phase */

static void ckt_phases_activate(struct ckt_phases *p, size_t i, uint64_t ts)
{
	struct ckt_phase *ph = &p->ph[i];
	bool want = ph->pushes + ph->begins > 0;
	if (want == ph->active)
		return;
	ph->active = want;
	p->active_dirty = true;
	p->active_gen++;
	if (want) {
		if (ckt_phases_grow((void **)&p->active, &p->cap_active, p->n_active + 1,
				    sizeof(*p->active)) < 0) {
			p->err = CKT_ENOMEM;
			return;
		}
		ph->since = ts;
		p->active[p->n_active++] = i;
		return;
	}
	/* an end replayed late can be stamped before the phase became active: it ends the phase
	 * at the latest phase event replayed instead (the time it was taken into account) */
	if (ts < ph->since)
		ts = p->phase_now;
	if (ts > ph->since)
		ph->active_ns += ts - ph->since;
	/* from the newest: phases end mostly in the order opposite to their start (a push's pop
	 * is the last entry, beside thousands of process-wide phases open) */
	for (size_t k = p->n_active; k-- > 0;)
		if (p->active[k] == i) {
			memmove(&p->active[k], &p->active[k + 1], (p->n_active - k - 1) * sizeof(*p->active));
			p->n_active--;
			break;
		}
}

/* Thread tid ended (CKT_REPLAY_PHASE_GONE): the phases it still has pushed end with it, as the
 * tracer's exit hook pops them where it runs. Pushes past the stored ones (t->deep) name no
 * phase here: their phases stay active, and the count goes (the next thread of the id starts
 * with none). A thread that pushed nothing has no entry, and gets none. */
static void ckt_phases_thread_gone(struct ckt_phases *p, uint64_t ts, uint64_t tid)
{
	uint64_t v;
	if (!ckt_util_map_get(&p->by_tid, tid, &v))
		return;
	struct ckt_pthread *t = &p->th[v];
	if (ts > p->phase_now)
		p->phase_now = ts;
	t->deep = 0;
	while (t->depth) {
		struct ckt_pushed e = t->stack[--t->depth];
		p->stacked--;
		if (e.i == CKT_PHASES_NONE)
			continue;
		p->ph[e.i].pushes -= e.n;
		p->ph[e.i].marked = true;
		ckt_phases_activate(p, e.i, ts);
	}
}

static void ckt_phases_on_phase(void *ctx, uint64_t ts, uint64_t tid, unsigned op, uint32_t id)
{
	struct ckt_phases *p = ctx;
	if (op == CKT_REPLAY_PHASE_GONE) {
		ckt_phases_thread_gone(p, ts, p->by_thread ? tid : tid & 0xffffffffu);
		return;
	}
	/* without --by thread, a thread's phase stack is kept by its id alone: a later thread of a
	 * reused id takes the entry of the one before, whose end popped its phases (the tracer's
	 * exit hook; pushes one left, a raw exit's, stay below the later thread's, which pops its
	 * own: LIFO). Before 0.2.57 an entry per thread started (up to 65,536 an id): 121 MB for
	 * 120,000 threads that pushed a phase, with ids reused past 32,768 */
	struct ckt_pthread *t = ckt_phases_thread(p, p->by_thread ? tid : tid & 0xffffffffu);
	long i = ckt_phases_index(p, id);
	if (!t || i < 0) {
		p->err = CKT_ENOMEM;
		return;
	}
	p->any = true;
	if (ts > p->phase_now)
		p->phase_now = ts;
	switch (op) {
	case CKT_PHASE_PUSH:
		if (t->deep) {
			t->deep++;
		} else if (t->depth && t->stack[t->depth - 1].i == (size_t)i) {
			t->stack[t->depth - 1].n++;
		} else if (p->stacked >= CKT_PHASES_MAX_STACKED) {
			t->deep++;
		} else {
			/* id 0 (the capture's name table was full) is kept so pops stay balanced */
			if (ckt_phases_grow((void **)&t->stack, &t->cap, t->depth + 1, sizeof(*t->stack)) < 0) {
				p->err = CKT_ENOMEM;
				return;
			}
			t->stack[t->depth++] = (struct ckt_pushed){ (size_t)i, 1 };
			p->stacked++;
		}
		if (i == CKT_PHASES_NONE)
			return;
		p->ph[i].pushes++;
		break;
	case CKT_PHASE_POP:
		/* our own stack says what is popped: the record's id is informative only (but for
		 * pushes past the stored ones) */
		if (t->deep) {
			t->deep--;
			if (i == CKT_PHASES_NONE || !p->ph[i].pushes)
				return;
		} else {
			if (!t->depth)
				return;
			i = (long)t->stack[t->depth - 1].i;
			if (--t->stack[t->depth - 1].n == 0) {
				t->depth--;
				p->stacked--;
			}
			if (i == CKT_PHASES_NONE)
				return;
		}
		p->ph[i].pushes--;
		break;
	case CKT_PHASE_BEGIN:
		if (i == CKT_PHASES_NONE)
			return;
		if (p->ph[i].early_ends && p->ph[i].early_ts == ts) {
			p->ph[i].early_ends--; /* closed at the same instant: never active */
			return;
		}
		if (p->ph[i].deficit && ts - p->ph[i].deficit_ts <= CKT_PHASES_LEGACY_NS) {
			p->ph[i].deficit--; /* its END came first (legacy_order) */
			return;
		}
		p->ph[i].deficit = 0; /* older: ENDs with no BEGIN at all */
		if (p->ph[i].begins++ == 0) {
			p->active_gen++; /* process-wide now: the snapshots count it (snap_pw) */
			if (++p->n_pw >= 2)
				p->ph[i].pw_overlap_last = true;
			if (p->n_pw >= 2 && !p->pw_overlapped) {
				for (size_t k = 0; k < p->n_active; k++)
					if (p->active[k] != (size_t)i && p->ph[p->active[k]].begins) {
						p->pw_overlap_a = p->active[k];
						break;
					}
				p->pw_overlap_b = (size_t)i;
				p->pw_overlap_ts = ts;
				p->pw_overlapped = true;
			}
		}
		break;
	case CKT_PHASE_END:
		if (i == CKT_PHASES_NONE)
			return;
		if (!p->ph[i].begins && p->legacy_order) {
			if (ts - p->ph[i].deficit_ts > CKT_PHASES_LEGACY_NS)
				p->ph[i].deficit = 0;
			p->ph[i].deficit++;
			p->ph[i].deficit_ts = ts;
			return;
		}
		if (!p->ph[i].begins) {
			if (p->ph[i].early_ts != ts)
				p->ph[i].early_ends = 0;
			p->ph[i].early_ts = ts;
			p->ph[i].early_ends++;
			return;
		}
		if (--p->ph[i].begins == 0) {
			p->active_gen++;
			p->n_pw--;
		}
		break;
	default:
		return;
	}
	p->ph[i].marked = true;
	ckt_phases_activate(p, (size_t)i, ts);
}

/* The phase that owns bytes of attribution a: a --phase-rule decision for its stack, if any,
 * else the phase the capture stamped. */
static long ckt_phases_owner(struct ckt_phases *p, const struct ckt_attr *a)
{
	if (p->rule) {
		long i;
		uint64_t v;
		if (ckt_util_map_get(&p->by_stack, a->stack, &v)) {
			i = (long)v - 1; /* stored as decision + 1 (0: no rule) */
		} else {
			const char *name = p->rule(p->rule_ctx, a->stack);
			i = name ? ckt_phases_index_by_name(p, name) : -1;
			if ((name && i < 0) || ckt_util_map_put(&p->by_stack, a->stack, (uint64_t)(i + 1)) < 0)
				return CKT_ENOMEM;
		}
		if (i >= 0) {
			p->rule_hit = true;
			return i;
		}
	}
	return ckt_phases_index(p, a->phase);
}

/* Phase i's heap or mmap bytes changed: --phases-csv looks at it in the next sample. */
static void ckt_phases_csv_list(struct ckt_phases *p, size_t i)
{
	if (ckt_phases_grow((void **)&p->csv_list, &p->cap_csv_list, p->n_csv_list + 1, sizeof(size_t)) < 0) {
		p->err = CKT_ENOMEM;
		return;
	}
	p->ph[i].csv_listed = true;
	p->csv_sorted = p->n_csv_list == 0 || (p->csv_sorted && p->csv_list[p->n_csv_list - 1] < i);
	p->csv_list[p->n_csv_list++] = i;
}

static int ckt_phases_idx_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static void ckt_phases_on_bytes(void *ctx, const struct ckt_attr *a, const struct ckt_run *run)
{
	struct ckt_phases *p = ctx;
	const uint64_t *e = p->epochs;
	long i = ckt_phases_owner(p, a);
	/* bytes by thread only for --by thread: two counters and a lookup per event less */
	struct ckt_pthread *t = p->by_thread ? ckt_phases_thread(p, a->tid) : &p->no_thread;
	int64_t delta = run->delta, rise = run->rise;
	if (i < 0 || !t) {
		p->err = CKT_ENOMEM;
		return;
	}
	struct ckt_phase *ph = &p->ph[i];
	bool host = true;
	switch (a->space) {
	case CKT_SPACE_HEAP:
		ckt_tracked_run(&ph->heap, e, delta, rise);
		ckt_tracked_run(&ph->rss, e, delta, rise);
		if (a->weight > 1.0) {
			ckt_tracked_run(&ph->smp, e, run->blocks, run->blocks_rise);
			ckt_tracked_run(&ph->smpb, e, delta, rise);
		}
		if (p->by_thread) {
			ckt_tracked_run(&t->heap, e, delta, rise);
			ckt_tracked_run(&t->rss, e, delta, rise);
			if (a->weight > 1.0) {
				ckt_tracked_run(&t->smp, e, run->blocks, run->blocks_rise);
				ckt_tracked_run(&t->smpb, e, delta, rise);
			}
		}
		break;
	case CKT_SPACE_ANON:
		ckt_tracked_run(&ph->mmap, e, delta, rise);
		ckt_tracked_run(&ph->rss, e, delta, rise);
		if (p->by_thread)
			ckt_tracked_run(&t->rss, e, delta, rise);
		break;
	case CKT_SPACE_FILE:
		ckt_tracked_run(&ph->mmap, e, delta, rise);
		break;
	case CKT_SPACE_PINNED:
		ckt_tracked_run(&ph->pinned, e, delta, rise);
		ckt_tracked_run(&ph->rss, e, delta, rise);
		if (p->by_thread)
			ckt_tracked_run(&t->rss, e, delta, rise);
		break;
	case CKT_SPACE_GPU:
		ckt_tracked_run(&ph->gpu, e, delta, rise);
		host = false;
		break;
	default:
		return; /* managed and registered memory: neither host RSS nor device memory */
	}
	if (p->csv && !ph->csv_listed && a->space <= CKT_SPACE_FILE)
		ckt_phases_csv_list(p, (size_t)i);
	if (host)
		ckt_tracked_run(&ph->host, e, delta, rise);
	if (run->added) {
		if (host) {
			ph->allocated += run->added;
			t->allocated += run->added;
		} else {
			ph->gpu_allocated += run->added;
		}
	}
}

/* A sample counted at a peak after its own change (struct ckt_observer's at_peak): the
 * counters its heap change moved, at that peak only */
static void ckt_phases_on_at_peak(void *ctx, const struct ckt_attr *a, enum ckt_moment m, int64_t delta,
				  int64_t blocks)
{
	struct ckt_phases *p = ctx;
	long i = ckt_phases_owner(p, a);
	struct ckt_pthread *t = p->by_thread ? ckt_phases_thread(p, a->tid) : &p->no_thread;
	if (i < 0 || !t) {
		p->err = CKT_ENOMEM;
		return;
	}
	struct ckt_phase *ph = &p->ph[i];
	struct ckt_tracked *v[] = { &ph->heap, &ph->rss, &ph->host, &ph->smpb, &t->heap, &t->rss, &t->smpb };
	for (size_t k = 0; k < (p->by_thread ? 7u : 4u); k++)
		ckt_tracked_at_peak(v[k], p->epochs, m, delta);
	ckt_tracked_at_peak(&ph->smp, p->epochs, m, blocks);
	if (p->by_thread)
		ckt_tracked_at_peak(&t->smp, p->epochs, m, blocks);
}

static void ckt_phases_on_peak(void *ctx, enum ckt_moment m, uint64_t ts)
{
	struct ckt_phases *p = ctx;
	(void)ts;
	if (p->snap_gen[m] == p->active_gen)
		return; /* the snapshot is the active list already */
	if (ckt_phases_grow((void **)&p->snap[m], &p->cap_snap[m], p->n_active, sizeof(*p->snap[m])) < 0) {
		p->err = CKT_ENOMEM;
		return;
	}
	if (p->n_active)
		memcpy(p->snap[m], p->active, p->n_active * sizeof(*p->active));
	p->n_snap[m] = p->n_active;
	p->snap_gen[m] = p->active_gen;
	p->snap_pw[m] = 0;
	for (size_t k = 0; k < p->n_active; k++)
		p->snap_pw[m] += p->ph[p->active[k]].begins > 0;
	p->snap_pw_overlapped[m] = p->pw_overlapped;
}

static char *ckt_phases_strndup(const uint8_t *s, size_t n)
{
	char *c = malloc(n + 1);
	if (c) {
		memcpy(c, s, n);
		c[n] = 0;
	}
	return c;
}

/* Whether s is the label the report gives what has none ("(none)" for bytes of no phase,
 * "(unnamed)" for a thread without a name) in k >= 0 pairs of quotes. */
static bool ckt_phases_is_label(const uint8_t *s, size_t n, const char *label)
{
	size_t ll = strlen(label), k = n >= ll ? (n - ll) / 2 : 0;
	if (n < ll || (n - ll) % 2)
		return false;
	for (size_t i = 0; i < k; i++)
		if (s[i] != '"' || s[n - 1 - i] != '"')
			return false;
	return memcmp(s + k, label, ll) == 0;
}

/* A program's name for a phase or a thread, malloc'd: as it is, except the label, which a
 * program may give too: then quoted ("\"(none)\""), as an empty name shows as "" (its rows read
 * as the no-phase ones, and JSON tools keyed by name merged them). A name that is the label in
 * quotes already gets one pair more ("\"(none)\"" reads ""(none)""; before 0.2.58 it read as the
 * quoted label, two phases under one name), so no two names read alike. */
static char *ckt_phases_own_name(const uint8_t *s, size_t n, const char *label)
{
	/* and a name of quotes alone, as the empty name shows as "" (since 0.2.60: a phase named
	 * "" read as the one of no name) */
	if (!ckt_phases_is_label(s, n, label) && !(n && ckt_phases_is_label(s, n, "")))
		return ckt_phases_strndup(s, n);
	char *q = malloc(n + 3);
	if (q) {
		q[0] = '"';
		memcpy(q + 1, s, n);
		memcpy(q + 1 + n, "\"", 2);
	}
	return q;
}

static void ckt_phases_on_record(void *ctx, const struct ckt_record *rec)
{
	struct ckt_phases *p = ctx;
	switch (rec->tag) {
	case CKT_TAG_PHASE_DEF: {
		char *name = ckt_phases_own_name(rec->u.phase_def.name, rec->u.phase_def.len, "(none)");
		long i = name ? ckt_phases_adopt(p, rec->u.phase_def.id, name) : CKT_ENOMEM;
		if (i < 0 || !name) {
			free(name);
			p->err = CKT_ENOMEM;
			return;
		}
		p->any = true;
		if (i == CKT_PHASES_NONE) {
			free(name);
			return;
		}
		free(p->ph[i].name);
		p->ph[i].name = name;
		p->active_dirty = true;
		break;
	}
	case CKT_TAG_THREAD_NAME: {
		/* the thread of that id the name is for (a reused id is another thread's) */
		uint64_t key = p->rep ? ckt_replay_thread_key(p->rep, rec->u.thread_name.tid, rec->ts)
				      : rec->u.thread_name.tid;
		/* names serve only --by thread (its groups, and --diff's name for the program's own
		 * threads, its main thread's): without it none is kept (since 0.2.59; before, an entry
		 * of about 0.4 KiB for each thread id a THREAD_NAME record named, every thread's) */
		if (!p->by_thread)
			break;
		struct ckt_pthread *t = ckt_phases_thread(p, key);
		if (!t) {
			p->err = CKT_ENOMEM;
			return;
		}
		/* the name from ts on: the latest wins, and at equal ts the later record */
		if (t->name && rec->ts < t->name_ts)
			return;
		char *name = ckt_phases_own_name(rec->u.thread_name.name, rec->u.thread_name.len, "(unnamed)");
		if (!name) {
			p->err = CKT_ENOMEM;
			return;
		}
		free(t->name);
		t->name = name;
		t->name_ts = rec->ts;
		break;
	}
	case CKT_TAG_NOTE:
		p->any = true;
		if (p->notes_total++ < CKT_PHASES_NOTES_KEPT) {
			struct ckt_pnote *n = &p->notes[p->n_notes];
			n->text = ckt_phases_strndup(rec->u.note.text, rec->u.note.len);
			if (!n->text) {
				p->err = CKT_ENOMEM;
				return;
			}
			n->ts = rec->ts;
			n->id = rec->u.note.phase;
			n->len = rec->u.note.len;
			p->n_notes++;
		}
		break;
	default:
		break;
	}
}

struct ckt_phases *ckt_phases_new(void)
{
	struct ckt_phases *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->by_thread = true;
	if (ckt_phases_add(p, 0) < 0) { /* index 0: "(none)" */
		free(p);
		return NULL;
	}
	return p;
}

void ckt_phases_free(struct ckt_phases *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_ph; i++)
		free(p->ph[i].name);
	free(p->ph);
	for (size_t i = 0; i < p->n_th; i++) {
		free(p->th[i].name);
		free(p->th[i].stack);
	}
	free(p->th);
	ckt_util_map_free(&p->by_id);
	ckt_util_map_free(&p->by_tid);
	ckt_util_map_free(&p->by_stack);
	free(p->active);
	for (int m = 0; m < CKT_AT_COUNT; m++) {
		free(p->snap[m]);
		free(p->snap_names[m]);
		free(p->shares[m]);
	}
	free(p->rows);
	for (size_t i = 0; i < p->n_groups; i++)
		free((char *)p->groups[i].name);
	free(p->groups);
	for (size_t i = 0; i < p->n_notes; i++)
		free(p->notes[i].text);
	free(p->active_str);
	free(p->csv_list);
	ckt_phases_csv_close(p, false); /* an unfinished --phases-csv: what was there stays */
	free(p);
}

int ckt_phases_attach(struct ckt_phases *p, struct ckt_replay *r)
{
	struct ckt_observer o = { .ctx = p, .bytes = ckt_phases_on_bytes, .peak = ckt_phases_on_peak,
				  .phase = ckt_phases_on_phase, .record = ckt_phases_on_record,
				  .at_peak = ckt_phases_on_at_peak };
	p->epochs = ckt_replay_epochs(r);
	p->rep = r;
	return ckt_replay_observe(r, &o);
}

void ckt_phases_set_top(struct ckt_phases *p, unsigned top)
{
	p->top = top;
}

void ckt_phases_set_by_thread(struct ckt_phases *p, bool on)
{
	p->by_thread = on;
	if (p->rep) /* runs of changes must not mix threads then */
		ckt_replay_runs_by_thread(p->rep, on);
}

void ckt_phases_set_format(struct ckt_phases *p, unsigned format_version)
{
	p->legacy_order = format_version < 4;
}

void ckt_phases_set_rule(struct ckt_phases *p, ckt_phases_rule_fn *fn, void *ctx)
{
	p->rule = fn;
	p->rule_ctx = ctx;
}

/* ---- samples: the timeline CSV's active_phases and --phases-csv ---- */

void ckt_phases_set_next_sink(struct ckt_phases *p, ckt_replay_sample_fn *next, void *next_ctx)
{
	p->next = next;
	p->next_ctx = next_ctx;
}

/* The default mode's heap bytes by phase and by thread come from samples: estimates (the
 * mappings are all recorded). */
static int ckt_phases_estimated(const struct ckt_phases *p)
{
	return p->rep && ckt_replay_stats(p->rep)->sample_r;
}

uint64_t ckt_phases_share_error(const struct ckt_phases *p, const struct ckt_phases_share *sh)
{
	uint64_t r = p->rep ? ckt_replay_stats(p->rep)->sample_r : 0;
	return (uint64_t)((double)r * sqrt((double)sh->samples));
}

/* The active phases joined by '+', rebuilt only after a change, and only its first 8 KiB or so:
 * the timeline's cell shows 4 KiB of it (report_csv.c), and a forged trace that leaves 80,000
 * phases open with a sample after each took 40 s to join them all each time. A name that holds
 * a '+' or a '"' is put in double quotes, its own doubled, so that the list splits at the '+' outside
 * quotes ("fft+msm" read as two phases, "fft" and "msm"). NULL when out of memory. */
#define CKT_PHASES_ACTIVE_MAX 8192
static const char *ckt_phases_active_str(struct ckt_phases *p)
{
	if (!p->active_dirty && p->active_str)
		return p->active_str;
	size_t len = 0;
	char buf[32];
	for (size_t k = 0; k < p->n_active && len < CKT_PHASES_ACTIVE_MAX; k++) {
		/* an empty name as the text shows it: an empty cell read as no phase active */
		const char *raw = ckt_phases_name(&p->ph[p->active[k]], buf, sizeof(buf));
		const char *name = ckt_phases_shown(raw);
		size_t n = strlen(name);
		/* a '"' of its own too: unquoted, `"a` and `b"` read as the one name "a+b" */
		bool quote = strpbrk(raw, "+\"") != NULL;
		/* quoted: every byte may be a '"' doubled, and the two quotes around it */
		size_t room = quote ? 2 * n + 2 : n;
		if (ckt_phases_grow((void **)&p->active_str, &p->active_str_cap, len + room + 2, 1) < 0)
			return NULL;
		if (k)
			p->active_str[len++] = '+';
		if (!quote) {
			memcpy(p->active_str + len, name, n);
			len += n;
			continue;
		}
		p->active_str[len++] = '"';
		for (size_t i = 0; i < n; i++) {
			if (name[i] == '"')
				p->active_str[len++] = '"';
			p->active_str[len++] = name[i];
		}
		p->active_str[len++] = '"';
	}
	if (ckt_phases_grow((void **)&p->active_str, &p->active_str_cap, len + 1, 1) < 0)
		return NULL;
	p->active_str[len] = 0;
	p->active_dirty = false;
	return p->active_str;
}

void ckt_phases_sample(void *ctx, const struct ckt_sample *s)
{
	struct ckt_phases *p = ctx;
	struct ckt_sample c = *s;
	char t[32], buf[32];

	c.active_phases = ckt_phases_active_str(p);
	if (!c.active_phases) {
		p->err = CKT_ENOMEM;
		c.active_phases = "";
	}
	if (p->csv && !p->csv_err) {
		ckt_util_fmt_secs(t, sizeof(t), s->ts, 6);
		/* rows in the order of the phases, as they were first seen (qsort takes no NULL) */
		if (!p->csv_sorted && p->n_csv_list > 1)
			qsort(p->csv_list, p->n_csv_list, sizeof(size_t), ckt_phases_idx_cmp);
		p->csv_sorted = true;
		size_t w = 0;
		for (size_t k = 0; k < p->n_csv_list; k++) {
			struct ckt_phase *ph = &p->ph[p->csv_list[k]];
			bool held = ph->heap.cur != 0 || ph->mmap.cur != 0;
			if (held) /* looked at again next time */
				p->csv_list[w++] = p->csv_list[k];
			else
				ph->csv_listed = false;
			if (!held && !ph->csv_held)
				continue;
			ph->csv_held = held;
			fprintf(p->csv, "%s,", t);
			/* RFC 4180, quoted when needed; the trace's bytes cleaned (ckt_util_clean_len);
			 * the empty name an empty cell (one name, not a list: a phase named `""` is
			 * that) */
			ckt_util_put_csv(p->csv, ckt_phases_name(ph, buf, sizeof(buf)), false);
			fprintf(p->csv, ",%" PRId64 ",%" PRId64 ",%d\n", ph->heap.cur, ph->mmap.cur,
				ckt_phases_estimated(p));
		}
		p->n_csv_list = w;
		if (ferror(p->csv))
			p->csv_err = errno ? errno : EIO;
	}
	if (p->next)
		p->next(p->next_ctx, &c);
}

int ckt_phases_csv_open(struct ckt_phases *p, const char *path)
{
	int e = ckt_util_out_open(&p->csv_out, path);
	if (e < 0)
		return e;
	p->csv = p->csv_out.f;
	p->csv_err = 0;
	if (fputs("t_s,phase,heap_bytes,mmap_bytes,estimated\n", p->csv) == EOF)
		p->csv_err = errno ? errno : EIO;
	return 0;
}

int ckt_phases_csv_close(struct ckt_phases *p, bool ok)
{
	if (!p || !p->csv)
		return 0;
	int e = p->csv_err, rc = ckt_util_out_close(&p->csv_out, ok && !e);
	p->csv = NULL;
	return e ? -e : rc;
}

bool ckt_phases_defined(const struct ckt_phases *p, const char *name, size_t len)
{
	/* a phase named "(none)" (or that in quotes) is kept quoted (ckt_phases_own_name), apart
	 * from the row of no phase: a rule of that name that matched read as one that matched
	 * nothing (0.2.49) */
	char *own = ckt_phases_own_name((const uint8_t *)name, len, "(none)");
	if (!own)
		return true; /* out of memory: no warning rather than a wrong one */
	len = strlen(own);
	bool found = false;
	for (size_t i = 0; i < p->n_ph && !found; i++)
		found = p->ph[i].id != UINT64_MAX && p->ph[i].name && strlen(p->ph[i].name) == len &&
			memcmp(p->ph[i].name, own, len) == 0;
	free(own);
	return found;
}

bool ckt_phases_any(const struct ckt_phases *p)
{
	return p->any || p->rule_hit;
}

size_t ckt_phases_active_at(const struct ckt_phases *p, enum ckt_moment m, const char *const **names)
{
	m = ckt_moment_of(p->epochs, m);
	*names = p->snap_names[m];
	return p->snap_names[m] && p->epochs[m] != p->epochs[CKT_AT_COUNT + 1] ? p->n_snap[m] : 0;
}

size_t ckt_phases_overlap_at(const struct ckt_phases *p, enum ckt_moment m)
{
	const char *const *names;
	return ckt_phases_active_at(p, m, &names) ? p->snap_pw[ckt_moment_of(p->epochs, m)] : 0;
}

void ckt_phases_put_overlap_hint(FILE *out)
{
	fputs("  (process-wide phases overlap: what a thread with no phase of its own pushed allocates "
	      "counts under the one begun last, whatever its work; --by thread splits by thread, "
	      "--phase-rule NAME=FUNCTION assigns by call site)\n",
	      out);
}

static const struct ckt_tracked *ckt_phases_space(const struct ckt_phase *ph, enum ckt_moment m)
{
	switch (m) {
	case CKT_AT_PEAK_HEAP: return &ph->heap;
	case CKT_AT_PEAK_RSS: return &ph->rss;
	case CKT_AT_PEAK_MMAP: return &ph->host;
	case CKT_AT_PEAK_GPU: return &ph->gpu;
	case CKT_AT_PEAK_PINNED: return &ph->pinned;
	default: return NULL;
	}
}

/* The overlaps' bytes count under the phase begun last, which began while another was active
 * (pw_overlap_last; pw_overlap_b is the first overlap's only: a later overlap's phase begun
 * last can hold them alone): where no such phase holds any at m, none of them are live there
 * (since 0.2.45: the hint came under a peak whose phases held none of them) */
bool ckt_phases_overlapped_before(const struct ckt_phases *p, enum ckt_moment m)
{
	enum ckt_moment at = ckt_moment_of(p->epochs, m);
	if (!p->snap_names[at] || !p->snap_pw_overlapped[at])
		return false;
	for (size_t i = 0; i < p->n_ph; i++)
		if (p->ph[i].pw_overlap_last && ckt_tracked_at(ckt_phases_space(&p->ph[i], m), p->epochs, m) > 0)
			return true;
	return false;
}

enum ckt_hint ckt_phases_hint(const struct ckt_phases *const *p, const bool *has, size_t n, enum ckt_moment m,
			      bool overlap_shown)
{
	for (size_t k = 0; k < n; k++)
		if (has[k] && p[k] && ckt_phases_overlap_at(p[k], m) >= 2)
			return CKT_HINT_AT;
	for (size_t k = 0; !overlap_shown && k < n; k++)
		if (has[k] && p[k] && ckt_phases_overlapped_before(p[k], m))
			return CKT_HINT_BEFORE;
	return CKT_HINT_NONE;
}

static const char *ckt_phases_pub_name(const struct ckt_phase *ph)
{
	return ph->id == 0 ? "(none)" : ph->name ? ph->name : "?";
}

static int ckt_phases_share_cmp(const void *a, const void *b)
{
	const struct ckt_phases_share *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

static uint64_t ckt_phases_pos(int64_t v)
{
	return v > 0 ? (uint64_t)v : 0;
}

static int ckt_phases_make_shares(struct ckt_phases *p, enum ckt_moment m)
{
	size_t n = 0;
	free(p->shares[m]);
	p->shares[m] = malloc(p->n_ph * sizeof(*p->shares[m]));
	if (!p->shares[m])
		return CKT_ENOMEM;
	for (size_t i = 0; i < p->n_ph; i++) {
		int64_t v = ckt_tracked_at(ckt_phases_space(&p->ph[i], m), p->epochs, m);
		if (v > 0) {
			bool exact = m == CKT_AT_PEAK_GPU || m == CKT_AT_PEAK_PINNED;
			p->shares[m][n++] = (struct ckt_phases_share){
				ckt_phases_pub_name(&p->ph[i]), (uint64_t)v,
				exact ? 0 : ckt_phases_pos(ckt_tracked_at(&p->ph[i].smp, p->epochs, m)),
				exact ? 0 : ckt_phases_pos(ckt_tracked_at(&p->ph[i].smpb, p->epochs, m)) };
		}
	}
	qsort(p->shares[m], n, sizeof(*p->shares[m]), ckt_phases_share_cmp);
	p->n_shares[m] = n;
	return 0;
}

size_t ckt_phases_by_phase(const struct ckt_phases *p, enum ckt_moment m,
			   const struct ckt_phases_share **out)
{
	*out = p->shares[m];
	return p->n_shares[m];
}


static int ckt_phases_make_rows(struct ckt_phases *p)
{
	size_t n = 0;
	free(p->rows);
	p->rows = malloc(p->n_ph * sizeof(*p->rows));
	if (!p->rows)
		return CKT_ENOMEM;
	/* (none) goes last: it is the remainder, not a phase anyone marked */
	for (size_t k = 1; k <= p->n_ph; k++) {
		size_t i = k % p->n_ph;
		const struct ckt_phase *ph = &p->ph[i];
		bool owned = ph->allocated || ph->gpu_allocated;
		if (i == CKT_PHASES_NONE ? !owned : ph->id == UINT64_MAX && !owned)
			continue;
		p->rows[n++] = (struct ckt_phases_row){
			ckt_phases_pub_name(ph), ph->marked, ph->active_ns, ph->allocated,
			ckt_phases_pos(ph->host.max),
			ckt_phases_pos(ckt_tracked_at(&ph->heap, p->epochs, CKT_AT_PEAK_HEAP)),
			ckt_phases_pos(ckt_tracked_at(&ph->rss, p->epochs, CKT_AT_PEAK_RSS)),
			ph->gpu_allocated, ckt_phases_pos(ph->gpu.max),
		};
	}
	p->n_rows = n;
	return 0;
}

size_t ckt_phases_table(const struct ckt_phases *p, const struct ckt_phases_row **out)
{
	*out = p->rows;
	return p->n_rows;
}

/* ---- thread groups ---- */

/* Length of name without its trailing digits (the whole length when there are none, or
 * when the name is nothing but digits). */
size_t ckt_phases_stem(const char *name)
{
	size_t n = strlen(name), k = n;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	return k == 0 ? n : k;
}

static const char *ckt_phases_tname(const struct ckt_pthread *t)
{
	return t->name ? t->name : "(unnamed)";
}

/* A thread's name while grouping: its stem (ckt_phases_stem) and, once known, its label. */
struct ckt_phases_lab {
	const char *name;
	size_t stem, len, th; /* th: index in p->th */
	char *label;
};

/* by stem (length, then bytes), then by whole name: threads whose stems agree sit together,
 * their distinct names in order */
static int ckt_phases_lab_stem_cmp(const void *a, const void *b)
{
	const struct ckt_phases_lab *x = a, *y = b;
	if (x->stem != y->stem)
		return x->stem < y->stem ? -1 : 1;
	int c = memcmp(x->name, y->name, x->stem);
	return c ? c : strcmp(x->name, y->name);
}

static int ckt_phases_lab_label_cmp(const void *a, const void *b)
{
	const struct ckt_phases_lab *x = a, *y = b;
	int c = strcmp(x->label, y->label);
	return c ? c : (x->th > y->th) - (x->th < y->th);
}

/* Labels every thread: its stem + '*' when another thread's name has the same stem and
 * different digits, else its name. Sorted by stem, a run of equal stems holds two distinct
 * names exactly when its first and last differ (comparing every pair of threads took 40 s
 * for 80,000 distinct names of a forged trace). */
static int ckt_phases_labels(struct ckt_phases_lab *l, size_t n)
{
	qsort(l, n, sizeof(*l), ckt_phases_lab_stem_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && l[j].stem == l[i].stem && memcmp(l[j].name, l[i].name, l[i].stem) == 0; j++)
			;
		bool two = strcmp(l[i].name, l[j - 1].name) != 0;
		for (size_t k = i; k < j; k++) {
			bool fold = two && l[k].stem < l[k].len;
			size_t keep = fold ? l[k].stem : l[k].len;
			if (!(l[k].label = malloc(keep + 2)))
				return CKT_ENOMEM;
			memcpy(l[k].label, l[k].name, keep);
			strcpy(l[k].label + keep, fold ? "*" : "");
		}
	}
	return 0;
}

static int ckt_phases_group_cmp(const void *a, const void *b)
{
	const struct ckt_phases_group *x = a, *y = b;
	if (x->at_peak_heap != y->at_peak_heap)
		return x->at_peak_heap < y->at_peak_heap ? 1 : -1;
	if (x->allocated_bytes != y->allocated_bytes)
		return x->allocated_bytes < y->allocated_bytes ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int ckt_phases_make_groups(struct ckt_phases *p)
{
	struct ckt_phases_group *g = calloc(p->n_th + 1, sizeof(*g));
	struct ckt_phases_lab *l = calloc(p->n_th + 1, sizeof(*l));
	size_t n = 0, w = 0;
	int rc = 0;
	if (!g || !l) {
		free(g);
		free(l);
		return CKT_ENOMEM;
	}
	for (size_t i = 0; i < p->n_th; i++) {
		const char *name = ckt_phases_tname(&p->th[i]);
		l[i] = (struct ckt_phases_lab){ name, ckt_phases_stem(name), strlen(name), i, NULL };
	}
	if ((rc = ckt_phases_labels(l, p->n_th)) == 0)
		qsort(l, p->n_th, sizeof(*l), ckt_phases_lab_label_cmp);
	/* one group per label (equal labels sit together now), in the order of their names */
	for (size_t i = 0; rc == 0 && i < p->n_th; i++) {
		const struct ckt_pthread *t = &p->th[l[i].th];
		if (n == 0 || strcmp(g[n - 1].name, l[i].label) != 0)
			g[n++].name = l[i].label;
		else
			free(l[i].label);
		l[i].label = NULL;
		struct ckt_phases_group *k = &g[n - 1];
		/* threads that only ran (the tracer's own writer, idle pool threads) are not counted */
		if (t->allocated || t->heap.max > 0 || t->rss.max > 0)
			k->threads++;
		k->allocated_bytes += t->allocated;
		k->at_peak_heap += ckt_phases_pos(ckt_tracked_at(&t->heap, p->epochs, CKT_AT_PEAK_HEAP));
		k->at_peak_rss += ckt_phases_pos(ckt_tracked_at(&t->rss, p->epochs, CKT_AT_PEAK_RSS));
		k->samples_at_peak_heap += ckt_phases_pos(ckt_tracked_at(&t->smp, p->epochs, CKT_AT_PEAK_HEAP));
		k->samples_at_peak_rss += ckt_phases_pos(ckt_tracked_at(&t->smp, p->epochs, CKT_AT_PEAK_RSS));
		k->sampled_at_peak_heap += ckt_phases_pos(ckt_tracked_at(&t->smpb, p->epochs, CKT_AT_PEAK_HEAP));
		k->sampled_at_peak_rss += ckt_phases_pos(ckt_tracked_at(&t->smpb, p->epochs, CKT_AT_PEAK_RSS));
	}
	for (size_t i = 0; i < p->n_th; i++)
		free(l[i].label);
	free(l);
	/* groups that never held bytes (threads that only ran) are left out */
	for (size_t k = 0; k < n; k++) {
		if (g[k].allocated_bytes || g[k].at_peak_heap || g[k].at_peak_rss)
			g[w++] = g[k];
		else
			free((char *)g[k].name);
	}
	qsort(g, w, sizeof(*g), ckt_phases_group_cmp);
	p->groups = g;
	p->n_groups = w;
	return rc;
}

const char *ckt_phases_thread_name(const struct ckt_phases *p, uint64_t tid)
{
	uint64_t v;
	return ckt_util_map_get(&p->by_tid, tid, &v) ? p->th[v].name : NULL;
}

size_t ckt_phases_groups(const struct ckt_phases *p, const struct ckt_phases_group **out)
{
	*out = p->groups;
	return p->n_groups;
}

size_t ckt_phases_notes(const struct ckt_phases *p, const struct ckt_phases_note **out, uint64_t *total)
{
	*out = p->pub_notes;
	*total = p->notes_total;
	return p->n_notes;
}

/* ---- after the replay ---- */

int ckt_phases_finish(struct ckt_phases *p, uint64_t end_ns)
{
	char buf[32];
	memcpy(p->final_epochs, p->epochs, sizeof(p->final_epochs));
	p->epochs = p->final_epochs;
	for (size_t k = 0; k < p->n_active; k++) {
		struct ckt_phase *ph = &p->ph[p->active[k]];
		if (end_ns > ph->since)
			ph->active_ns += end_ns - ph->since;
		ph->since = end_ns; /* finish twice adds nothing */
	}
	/* Names are resolved now: a PHASE_DEF may come after events that use the id. Undefined
	 * ids get a name of their own so the pointers handed out stay valid. */
	for (size_t i = 1; i < p->n_ph; i++)
		if (!p->ph[i].name && !(p->ph[i].name = strdup(ckt_phases_name(&p->ph[i], buf, sizeof(buf)))))
			return CKT_ENOMEM;
	for (int m = 0; m < CKT_AT_COUNT; m++) {
		free(p->snap_names[m]);
		p->snap_names[m] = malloc((p->n_snap[m] + 1) * sizeof(char *));
		if (!p->snap_names[m])
			return CKT_ENOMEM;
		for (size_t k = 0; k < p->n_snap[m]; k++)
			p->snap_names[m][k] = p->ph[p->snap[m][k]].name;
	}
	for (size_t k = 0; k < p->n_notes; k++) {
		long i = ckt_phases_index(p, p->notes[k].id);
		if (i < 0)
			return CKT_ENOMEM;
		if (!p->ph[i].name && !(p->ph[i].name = strdup(ckt_phases_name(&p->ph[i], buf, sizeof(buf)))))
			return CKT_ENOMEM;
		p->pub_notes[k] = (struct ckt_phases_note){ p->notes[k].ts,
			i == CKT_PHASES_NONE ? "(none)" : p->ph[i].name, p->notes[k].text, p->notes[k].len };
	}
	if (p->err)
		return p->err;
	for (int m = 0; m < CKT_AT_COUNT; m++)
		if (ckt_phases_make_shares(p, (enum ckt_moment)m) < 0)
			return CKT_ENOMEM;
	if (ckt_phases_make_rows(p) < 0 || ckt_phases_make_groups(p) < 0)
		return CKT_ENOMEM;
	return 0;
}

/* ---- text ---- */

#define CKT_PHASES_COL "%-22s"

const char *ckt_phases_shown(const char *name)
{
	return *name ? name : "\"\"";
}

/* A name padded to the label column. */
static void ckt_phases_put_label(FILE *out, const char *indent, const char *name)
{
	name = ckt_phases_shown(name);
	fputs(indent, out);
	/* in characters, not bytes: names may be UTF-8 */
	size_t w = strlen(indent) + ckt_util_put_clean(out, name, strlen(name));
	if (w >= 22) /* too long for the column: one space still separates it */
		fputc(' ', out);
	for (; w < 22; w++)
		fputc(' ', out);
}

/* hinted: the overlap hint was printed under an earlier moment (once a report); at_a_peak:
 * a moment printed has two process-wide phases active, where the hint goes (not the note that
 * they overlapped before, under an earlier one: since 0.2.55) */
static int ckt_phases_text_moment(FILE *out, const struct ckt_phases *p, enum ckt_moment m,
				  const char *label, const struct ckt_peak *pk, bool *hinted, bool at_a_peak)
{
	const char *const *names;
	size_t na = ckt_phases_active_at(p, m, &names);
	const struct ckt_phases_share *sh;
	char h[32], t[32];

	if (!pk->bytes)
		return 0;
	size_t n = ckt_phases_by_phase(p, m, &sh);
	/* shares of the attributed bytes: at the peak RSS they do not add up to the RSS (pages
	 * allocated but never touched are not resident; libraries and stacks are not allocated),
	 * and the line says what they are shares of */
	uint64_t sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += sh[k].bytes;
	fprintf(out, CKT_PHASES_COL "%s at %s s, during ", label, ckt_util_fmt_bytes(h, sizeof(h), pk->bytes),
		ckt_util_fmt_secs(t, sizeof(t), pk->ts, 6));
	if (!na)
		fputs("no phase", out);
	/* the first --top of them, then how many more (since 0.2.41: every one, a heading of
	 * 4,096 names 60 KB long where 64 threads each had a phase of its own) */
	size_t named = p->top && na > p->top ? p->top : na;
	for (size_t k = 0; k < named; k++) {
		if (k)
			fputs(" + ", out);
		const char *shown = ckt_phases_shown(names[k]);
		ckt_util_put_clean(out, shown, strlen(shown));
	}
	if (named < na)
		fprintf(out, " + %zu more", na - named);
	/* the default mode's bytes by phase are estimates from samples: their sum is not the
	 * exact peak heap either (a site's row says "% of the peak", of the exact one). Samples
	 * weigh the sizes asked for, the running totals count usable bytes (since 0.2.46 the
	 * line says so: 4 million 17-byte blocks read "peak heap 122 MiB ... shares of the 91.0
	 * MiB" without a word why) */
	bool est = ckt_phases_estimated(p), sampled = false;
	for (size_t k = 0; k < n && !sampled; k++)
		sampled = sh[k].samples > 0;
	/* where no sample is live at this moment, every share is of blocks recorded one by one:
	 * exact, and the heap's small blocks are missing from them, not estimated (since 0.2.53:
	 * the line called them estimates, over rows without an error) */
	const char *of = m == CKT_AT_PEAK_RSS ? "allocated then"
			 : sampled ? "estimated from samples, of the sizes asked for: the heap counts usable bytes"
				   : "in blocks recorded one by one: no sample of the smaller blocks the heap counts "
				     "is live here";
	if (n && sum != pk->bytes && (m == CKT_AT_PEAK_RSS || est))
		fprintf(out, " (shares of the %s %s%s)", ckt_util_fmt_bytes(h, sizeof(h), sum), of,
			m != CKT_AT_PEAK_RSS ? ""
			: sampled ? ", estimated from samples: heap, anonymous mmap, pinned"
			: est	  ? ": heap in blocks recorded one by one (no sample of its smaller blocks is live "
				    "here), anonymous mmap, pinned"
				  : ": heap, anonymous mmap, pinned");
	fputc('\n', out);
	const bool one = true;
	enum ckt_hint hint = *hinted ? CKT_HINT_NONE : ckt_phases_hint(&p, &one, 1, m, at_a_peak);
	if (hint == CKT_HINT_AT) {
		ckt_phases_put_overlap_hint(out);
		*hinted = true;
	} else if (hint == CKT_HINT_BEFORE) {
		/* over at this peak, but bytes allocated during it can be live here, under the
		 * wrong phase (since 0.2.44: the hint came under a later peak, or none) */
		fputs("  (process-wide phases overlapped before this peak (", out);
		const char *a = ckt_phases_shown(ckt_phases_pub_name(&p->ph[p->pw_overlap_a]));
		const char *b = ckt_phases_shown(ckt_phases_pub_name(&p->ph[p->pw_overlap_b]));
		ckt_util_put_clean(out, a, strlen(a));
		fputs(" and ", out);
		ckt_util_put_clean(out, b, strlen(b));
		fprintf(out, " from %s s): what a thread with no phase of its own pushed allocated then "
			"counts under the one begun last, whatever its work; --by thread splits by thread, "
			"--phase-rule NAME=FUNCTION assigns by call site)\n",
			ckt_util_fmt_secs(t, sizeof(t), p->pw_overlap_ts, 6));
		*hinted = true;
	}
	/* --top rows (since 0.2.40: every phase, 8,228 lines for 4,096 names at four peaks), then
	 * what the rest hold together */
	size_t shown = p->top && n > p->top ? p->top : n;
	for (size_t k = 0; k < shown; k++) {
		ckt_phases_put_label(out, "  ", sh[k].name);
		fprintf(out, "%-10s %5.1f%%  (%" PRIu64 " bytes", ckt_util_fmt_bytes(h, sizeof(h), sh[k].bytes),
			100.0 * (double)sh[k].bytes / (double)sum, sh[k].bytes);
		/* since 0.2.40 each estimate its standard error (only the mode line said how big) */
		if (sh[k].samples)
			fprintf(out, ", +-%s", ckt_util_fmt_bytes(h, sizeof(h), ckt_phases_share_error(p, &sh[k])));
		fputs(")\n", out);
	}
	if (shown < n) {
		uint64_t rest = 0;
		for (size_t k = shown; k < n; k++)
			rest += sh[k].bytes;
		char more[48];
		snprintf(more, sizeof(more), "  %zu more phase%s", n - shown, n - shown == 1 ? "" : "s");
		fprintf(out, CKT_PHASES_COL "%-10s %5.1f%%  (%" PRIu64 " bytes; --top shows more)\n", more,
			ckt_util_fmt_bytes(h, sizeof(h), rest), 100.0 * (double)rest / (double)sum, rest);
	}
	return 0;
}

/* A trace without RSS samples has no peak RSS: its column shows '-', not 0 B. A trace with
 * CUDA device memory gets two more columns (since 0.2.20; the JSON had them): the GPU bytes
 * each phase allocated and their own peak, exact in both modes. */
static int ckt_phases_text_table(FILE *out, const struct ckt_phases *p, bool rss, bool gpu)
{
	const struct ckt_phases_row *rows;
	char a[32], b[32], c[32], d[32], e[32], f[32], t[32];
	size_t n = ckt_phases_table(p, &rows);
	bool est = ckt_phases_estimated(p);
	fprintf(out, CKT_PHASES_COL "%10s %10s %10s %13s %12s", "phase", "active s", "allocated", "own peak",
		"at peak heap", "at peak RSS");
	if (gpu)
		fprintf(out, " %14s %13s", "GPU allocated", "GPU own peak");
	fprintf(out, "%s\n", est ? "  (heap bytes estimated from samples)" : "");
	for (size_t k = 0; k < n; k++) {
		const struct ckt_phases_row *r = &rows[k];
		ckt_phases_put_label(out, "", r->name);
		fprintf(out, "%10s %10s %10s %13s %12s",
			r->marked ? ckt_util_fmt_secs(t, sizeof(t), r->active_ns, 6) : "-",
			ckt_util_fmt_bytes(a, sizeof(a), r->allocated_bytes),
			ckt_util_fmt_bytes(b, sizeof(b), r->peak_bytes),
			ckt_util_fmt_bytes(c, sizeof(c), r->at_peak_heap),
			rss ? ckt_util_fmt_bytes(d, sizeof(d), r->at_peak_rss) : "-");
		if (gpu)
			fprintf(out, " %14s %13s", ckt_util_fmt_bytes(e, sizeof(e), r->gpu_allocated_bytes),
				ckt_util_fmt_bytes(f, sizeof(f), r->gpu_peak_bytes));
		fputc('\n', out);
	}
	return 0;
}

static int ckt_phases_text_groups(FILE *out, const struct ckt_phases *p, bool rss)
{
	const struct ckt_phases_group *g;
	char a[32], b[32], c[32];
	size_t n = ckt_phases_groups(p, &g);
	/* the default mode's bytes by thread are estimates from samples, as by phase */
	bool est = ckt_phases_estimated(p);
	fprintf(out, CKT_PHASES_COL "%8s %10s %13s %12s%s\n", "thread group", "threads", "allocated",
		"at peak heap", "at peak RSS", est ? "  (bytes estimated from samples)" : "");
	for (size_t k = 0; k < n; k++) {
		ckt_phases_put_label(out, "", g[k].name);
		fprintf(out, "%8u %10s %13s %12s\n", g[k].threads,
			ckt_util_fmt_bytes(a, sizeof(a), g[k].allocated_bytes),
			ckt_util_fmt_bytes(b, sizeof(b), g[k].at_peak_heap),
			rss ? ckt_util_fmt_bytes(c, sizeof(c), g[k].at_peak_rss) : "-");
	}
	return 0;
}

int ckt_phases_print_text(FILE *out, const struct ckt_phases *p, const struct ckt_replay_stats *st,
			  bool by_thread)
{
	struct ckt_peak rss = { st->peak_rss.bytes, st->peak_rss.ts };
	char t[32];
	int rc = 0;
	bool hinted = false;

	/* each section opens with a blank line: it follows the report's last line */
	if (ckt_phases_any(p)) {
		fputs("\nphases (bytes by the phase that allocated them; active phases oldest first)\n", out);
		/* the moments printed below: their bytes, RSS's only where sampled */
		const struct { enum ckt_moment m; bool has; } shown[] = {
			{ CKT_AT_PEAK_HEAP, st->peak_heap.bytes > 0 },
			{ CKT_AT_PEAK_RSS, st->peak_rss.seen && rss.bytes },
			{ CKT_AT_PEAK_GPU, st->peak_gpu.bytes > 0 },
			{ CKT_AT_PEAK_PINNED, st->peak_pinned.bytes > 0 },
		};
		bool at_a_peak = false;
		for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
			at_a_peak |= ckt_phases_hint(&p, &shown[k].has, 1, shown[k].m, true) == CKT_HINT_AT;
		rc = ckt_phases_text_moment(out, p, CKT_AT_PEAK_HEAP, "peak heap", &st->peak_heap, &hinted,
					    at_a_peak);
		if (!rc && st->peak_rss.seen)
			rc = ckt_phases_text_moment(out, p, CKT_AT_PEAK_RSS, "peak RSS", &rss, &hinted, at_a_peak);
		if (!rc)
			rc = ckt_phases_text_moment(out, p, CKT_AT_PEAK_GPU, "peak GPU memory", &st->peak_gpu,
						    &hinted, at_a_peak);
		if (!rc)
			rc = ckt_phases_text_moment(out, p, CKT_AT_PEAK_PINNED, "peak CUDA pinned host",
						    &st->peak_pinned, &hinted, at_a_peak);
		fputc('\n', out);
		if (!rc)
			rc = ckt_phases_text_table(out, p, st->peak_rss.seen, st->peak_gpu.bytes > 0);
	}
	if (!rc && p->notes_total) {
		fprintf(out, "\nlog lines that drove CUZKTRACE_PHASES rules: %" PRIu64 "%s\n", p->notes_total,
			p->notes_total > p->n_notes ? " (the first 100 shown)" : "");
		for (size_t k = 0; k < p->n_notes; k++) {
			const struct ckt_phases_note *n = &p->pub_notes[k];
			fprintf(out, "  %s s  ", ckt_util_fmt_secs(t, sizeof(t), n->ts, 6));
			ckt_phases_put_label(out, "", n->phase);
			ckt_util_put_clean(out, n->text, n->len);
			fputc('\n', out);
		}
	}
	if (!rc && by_thread) {
		fputc('\n', out);
		rc = ckt_phases_text_groups(out, p, st->peak_rss.seen);
	}
	return rc;
}
