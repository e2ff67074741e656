/* event.h: the replay's queued event (struct ckt_ev), which the decoder also fills in place for
 * runs of heap events (ckt_decode_heap), so that the commonest records are written once, straight
 * into their thread's queue. What the events mean is replay.c's business.
 */
#ifndef CKT_EVENT_H
#define CKT_EVENT_H

#include <stdint.h>

/* REALLOC and MREMAP are split into a release half and an allocation half so each sorts at its
 * own time: another thread may legally reuse the old address between the two. */
enum ckt_ev_kind {
	CKT_EV_ALLOC,          /* the first four are the heap's, allocations first: keep them so */
	CKT_EV_REALLOC_ALLOC,
	CKT_EV_FREE,
	CKT_EV_REALLOC_FREE,
	CKT_EV_MMAP,
	CKT_EV_MUNMAP,
	CKT_EV_MREMAP_UNMAP,
	CKT_EV_MREMAP_MAP,
	CKT_EV_RSS,
	CKT_EV_RSS_DETAIL, /* len = VmHWM, addr = anon, stack = file, shmem in ckt_thread.xq */
	CKT_EV_CUDA_ALLOC, /* flags = kind, fn = CKT_CU_*, device ordinal in ckt_thread.xq */
	CKT_EV_CUDA_FREE,  /* flags = kind the entry point implies, fn = CKT_CU_* */
	CKT_EV_PHASE,      /* fn = op, addr = phase id */
	CKT_EV_AGG,        /* addr = bytes delta, len = blocks delta (int64) */
	CKT_EV_CUDA_MAP,   /* addr = virtual address, len = size, stack = allocation handle */
	CKT_EV_CUDA_UNMAP, /* addr, len */
	CKT_EV_THREAD_EXIT,
	CKT_EV_PROTECT,      /* mprotect opening pages: addr, len, fn = prot */
	CKT_EV_PROTECT_NONE, /* mprotect to PROT_NONE: addr, len (a release) */
};
#define CKT_EV_HEAP_LAST CKT_EV_REALLOC_FREE

/* 40 bytes: every event of a flush window sits in a queue once, so its size is memory traffic
 * on the hot path (at 48 bytes, a quarter more of the queue's writes missed the last-level
 * cache). Fields double up for the rare kinds; the one value more that RSS_DETAIL and
 * CUDA_ALLOC carry waits in the thread's side queue (ckt_thread.xq). */
struct ckt_ev {
	uint64_t ts;
	uint64_t addr;  /* AGG: bytes delta (int64); RSS_DETAIL: anon; PHASE: phase id */
	uint64_t len;   /* block size, mapping length, rss bytes, VmHWM; AGG: blocks delta */
	uint64_t stack; /* RSS_DETAIL: file; MREMAP_UNMAP: new length; CUDA_MAP: allocation handle */
	uint32_t phase;
	uint16_t flags; /* MMAP: CKT_MAP_* (low bits); CUDA: kind; heap: CKT_EVF_PAIRED */
	uint8_t kind;
	uint8_t fn;     /* MMAP, PROTECT: prot */
};

#endif
