/* summary.h: the exit line's running numbers (summary.c), fed by the writer thread only. */
#ifndef CKT_SUMMARY_H
#define CKT_SUMMARY_H
#include "ckt.h"
struct ckt_summary {
	uint64_t events, heap, peak_heap, peak_rss;
};
extern struct ckt_summary ckt_summary;
void ckt_summary_event(const struct ckt_slot *s, const struct ckt_slot *s2);
#endif
