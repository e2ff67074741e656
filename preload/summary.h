/* summary.h: the exit line's running numbers (summary.c), fed by the writer thread only. */
#ifndef CKT_SUMMARY_H
#define CKT_SUMMARY_H
#include "ckt.h"
struct ckt_summary {
	uint64_t events, heap, peak_heap, peak_rss;
};
extern struct ckt_summary ckt_summary;
/* A ring and the range [t, h) of its slots that this flush covers. */
struct ckt_cursor {
	struct ckt_ring *ring;
	uint64_t t, h;
	int state;
};
/* Feeds the events of all cursors to the summary in timestamp order (a k-way merge: each
 * ring is already in time order). Does not move the cursors. */
void ckt_summary_merge(const struct ckt_cursor *c, size_t n);
#endif
