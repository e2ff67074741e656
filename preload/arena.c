/* arena.c: the tracer's small blocks (ckt_malloc, and ckt_big_alloc under CKT_BIG_MAPPED):
 * records queued for the writer (thread names, phase names, notes), the writer's merge array,
 * zstd's small buffers. They come from mappings of the tracer's own (ckt_ownmaps_map, chunks of
 * 2 MiB, resident as used), not from the program's heap: there, a program that wrote past the
 * end of its own block (a bug glibc may never notice untraced) wrote over the tracer's record
 * next to it, and the writer thread crashed on its link (SIGSEGV in a program that runs to its
 * end untraced; tests/progs/overrun.c).
 *
 * Size classes of 16 << k bytes, each with a free list; a block carries its class in a 16-byte
 * header. A free block goes back to its class's list and is never returned to the kernel: the
 * tracer's small memory peaks at a few MiB and is reused. One spinlock: none of these calls is
 * on the allocation path (a hook takes a block when a thread first records, names itself, or
 * enters a phase, and the writer once a flush). The lock knows its holder's thread: a signal
 * handler that interrupted the holder and comes back in (an exec from the handler, which
 * copies the environment) gets no block instead of spinning on its own thread for good, and a
 * wait past 2 s (a holder that left by a jump and will never give it back) gives up: the
 * caller has no block (each says so or does without), a free keeps its block. The forked
 * child starts with empty lists (a holder on another thread of the parent is not in the
 * child). */
#include "ckt.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#define CLASSES 13                       /* 16 B .. 64 KiB */
#define CHUNK ((size_t)2 << 20)          /* no padding needed around it (ownmaps.c) */

struct hdr {
	size_t cls;
	size_t pad;
};
struct blk {
	struct blk *next;
};

static _Atomic(const void *) holder; /* the holding thread's ckt_tls, or NULL */
static struct blk *free_list[CLASSES];
static char *bump, *bump_end;

#define GIVE_UP_NS 2000000000ull

/* 1 when taken; 0 when this thread holds it already, or after 2 s. Counted among the
 * thread's tracer mutexes (ckt_mutex_take), so that an _exit from a signal handler that
 * interrupted the holder does not finish the trace on this thread: the writer's every block
 * would wait 2 s for it (since 0.2.58, from a review's interleaving: a thread naming itself
 * as it first recorded). */
static int take(void)
{
	const void *me = &ckt_tls, *none = NULL;
	uint64_t since = 0;
	int taken = 1;
	ckt_tls.mutexes++;
	for (unsigned spins = 0; !atomic_compare_exchange_weak_explicit(&holder, &none, me,
								     memory_order_acquire,
								     memory_order_relaxed);
	     none = NULL) {
		if (none == me) {
			taken = 0;
			break;
		}
		if (++spins % 64 == 0) {
			uint64_t now = ckt_clock_raw();
			if (!since) {
				since = now;
			} else if (now - since > GIVE_UP_NS) {
				taken = 0;
				break;
			}
			sched_yield();
		}
	}
	if (!taken)
		ckt_tls.mutexes--;
	return taken;
}

static void give(void)
{
	atomic_store_explicit(&holder, NULL, memory_order_release);
	ckt_tls.mutexes--;
}

static unsigned class_of(size_t n)
{
	unsigned c = 0;
	while (c < CLASSES - 1 && ((size_t)16 << c) < n)
		c++;
	return c;
}

void *ckt_malloc(size_t n)
{
	size_t need = n + sizeof(struct hdr);
	if (need < n)
		return NULL;
	if (need > ((size_t)16 << (CLASSES - 1))) /* past the classes: a mapping of its own */
		return ckt_big_alloc(n);
	unsigned c = class_of(need);
	size_t sz = (size_t)16 << c;
	struct hdr *h = NULL;
	if (!take())
		return NULL;
	if (free_list[c]) {
		h = (struct hdr *)free_list[c];
		free_list[c] = free_list[c]->next;
	} else {
		if ((size_t)(bump_end - bump) < sz) {
			char *m = ckt_ownmaps_map(CHUNK, 0);
			if (m) { /* what was left of the old chunk is lost: under 64 KiB */
				bump = m;
				bump_end = m + CHUNK;
			}
		}
		if ((size_t)(bump_end - bump) >= sz) {
			h = (struct hdr *)bump;
			bump += sz;
		}
	}
	give();
	if (!h)
		return NULL;
	h->cls = c;
	return h + 1;
}

void ckt_free(void *p)
{
	if (!p)
		return;
	struct hdr *h = (struct hdr *)p - 1;
	if (h->cls >= CLASSES) { /* a block of ckt_big_alloc (its header holds its size) */
		ckt_big_free(p);
		return;
	}
	unsigned c = (unsigned)h->cls;
	struct blk *b = (struct blk *)h;
	if (!take())
		return; /* kept: see above */
	b->next = free_list[c];
	free_list[c] = b;
	give();
}

void *ckt_realloc(void *p, size_t n)
{
	if (!p)
		return ckt_malloc(n);
	struct hdr *h = (struct hdr *)p - 1;
	size_t have = h->cls < CLASSES ? ((size_t)16 << h->cls) - sizeof(*h) : h->cls - 16;
	if (n <= have)
		return p;
	void *q = ckt_malloc(n);
	if (q) {
		memcpy(q, p, have);
		ckt_free(p);
	}
	return q;
}

void ckt_arena_after_fork_child(void)
{
	atomic_store(&holder, NULL);
	memset(free_list, 0, sizeof(free_list));
	bump = bump_end = NULL;
}
