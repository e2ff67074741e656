/* summary.h: the exit line's running numbers (summary.c), fed by the writer thread only. */
#ifndef CKT_SUMMARY_H
#define CKT_SUMMARY_H
#include "ckt.h"
struct ckt_summary {
	uint64_t events, peak_rss;
	int64_t heap, peak_heap; /* signed: default-mode totals arrive in steps (see replay.c) */
};
extern struct ckt_summary ckt_summary;
/* A ring and the range [t, h) of its slots that this flush covers. */
struct ckt_cursor {
	struct ckt_ring *ring;
	uint64_t t, h;
	int state;
	/* held: the ring's thread id is an older ring's too, which is not recycled yet: nothing of
	 * it is drained in this flush (h = t); taken: this ring is that older one (its thread is
	 * gone: the kernel gave its number to another) */
	int held, taken;
};
/* Feeds the events of all cursors to the summary as if in timestamp order (each ring is
 * already in time order; rings are merged by time only where the heap can pass its peak: see
 * summary.c). Does not move the cursors. */
void ckt_summary_merge(const struct ckt_cursor *c, size_t n);
/* Running totals the writer sends on a thread's behalf at exit. */
void ckt_summary_add_heap(int64_t delta);
#endif
