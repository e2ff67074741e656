/* thread.c: per-thread state and the single-producer/single-consumer rings that carry events
 * from each thread to the writer. A thread gets a ring on its first event (the rare path
 * below); the ring outlives the thread's TLS destructors and is recycled only when the writer
 * has drained it and the kernel says the thread is gone. Encoding and I/O are writer.c's. */
#include "ckt.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <linux/futex.h>
#include <sched.h>
#include <time.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <unistd.h>

CKT_TLS struct ckt_tls ckt_tls;
struct ckt_ring *_Atomic ckt_rings;
atomic_uint ckt_rings_exited;
static pthread_key_t exit_key;
static atomic_uint rings_mapped;
#define CKT_KEYS_IN_DESCRIPTOR 32u /* glibc's PTHREAD_KEY_2NDLEVEL_SIZE */
static int exit_key_ok;

static void on_thread_exit(void *arg)
{
	/* Runs among the pthread key destructors. The thread may still allocate afterwards (later
	 * destructors, glibc's own teardown): its ring stays attached; the writer recycles it once
	 * the thread has really gone. */
	struct ckt_ring *r = arg;
	if ((ckt_tls.phase_depth > 0 || ckt_tls.scan_pending) && atomic_load_explicit(&ckt_active, memory_order_relaxed)) {
		ckt_tls.guard++;
		ckt_phase_thread_exit(&ckt_tls);
		ckt_tls.guard--;
	}
	if (ckt_sample_r) {
		/* Runs on the exiting thread, before the program's own key destructors (our key was
		 * created first). Send the running totals now, and from here on every change at
		 * once: those destructors still free memory. */
		ckt_tls.guard++;
		ckt_sample_flush(&ckt_tls);
		ckt_tls.agg_final = 1;
		ckt_tls.agg_step = 0;
		/* the ring's last stamp becomes now (the writer's THREAD_EXIT carries it): the
		 * totals may have moved and come back to zero since the last AGG, unsent */
		(void)ckt_stamp(&ckt_tls);
		ckt_done(&ckt_tls);
		ckt_tls.guard--;
	}
	ckt_stacks_thread_exit(&ckt_tls);
	atomic_store(&r->agg_src, NULL); /* its TLS goes away with the thread */
	atomic_store_explicit(&r->state, CKT_RING_EXITED, memory_order_release);
	/* counted while it waits to be recycled: never, for a ring taken in a vfork child */
	if (r->pid == ckt_writer_pid() && atomic_fetch_add(&ckt_rings_exited, 1) + 1 >= CKT_EXITED_WAKE)
		ckt_writer_wake();
}

/* The main thread's glibc thread exit: pthread_exit, but also C11's thrd_exit and a
 * cancellation, which reach glibc's exit path without the pthread_exit symbol. Each runs the
 * thread's key destructors; a raw exit system call or a seccomp kill does not. So the writer
 * knows a main thread that ended without this (writer.c, leader_raw) from one that ended as
 * glibc ends threads: then glibc's exit(0) ends the process with the last thread, and its
 * exit handlers run (the writer ended such a process itself, its atexit handlers and stdio
 * buffers lost: tests/progs/mainraw.c thrd, cancel). */
static pthread_key_t main_key;

static void on_main_exit(void *arg)
{
	(void)arg;
	atomic_store(&ckt_main_exited, 1);
	ckt_writer_wake();
}

static int main_key_ok;

void ckt_thread_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
	main_key_ok = pthread_key_create(&main_key, on_main_exit) == 0;
}

/* From the constructor, on the main thread, once the allocator is known: a key past glibc's
 * first 32 makes pthread_setspecific calloc, through a program's own allocator if it exports
 * one (as for exit_key: the bootstrap may run inside that allocator's mmap). */
void ckt_thread_watch_main(void)
{
	if (main_key_ok && syscall(SYS_gettid) == getpid() &&
	    (main_key < CKT_KEYS_IN_DESCRIPTOR || !atomic_load(&ckt_alloc_foreign)))
		(void)pthread_setspecific(main_key, (void *)1);
}

static struct ckt_ring *ring_new(void)
{
	/* the tracer's own mapping (raw system calls: our mmap hook must not see it) */
	void *m = ckt_ownmaps_map(sizeof(struct ckt_ring), 0);
	if (!m)
		return NULL;
	struct ckt_ring *r = m;
	atomic_store(&r->busy, CKT_NOT_BUSY); /* before the writer can see the ring */
	r->w_busy = CKT_NOT_BUSY;             /* the writer's: nothing seen yet */
	atomic_store(&r->state, CKT_RING_LIVE);
	struct ckt_ring *head = atomic_load(&ckt_rings);
	do
		r->next = head;
	while (!atomic_compare_exchange_weak(&ckt_rings, &head, r));
	return r;
}

/* Slots of the first windows of the rings in use (CKT_RING_FIRST_SLOTS): a CAS when a thread
 * takes a ring, a subtraction when the writer recycles it. */
static _Atomic uint64_t ring_first;

static uint32_t ring_first_take(struct ckt_ring *r)
{
	/* a vfork child's ring is never recycled (writer.c, own_tid): not counted, or 128 such
	 * children put every later thread of the process on the small window for good */
	pid_t tp = ckt_writer_pid();
	r->first_counted = !tp || r->pid == tp;
	if (!r->first_counted)
		return CKT_RING_MIN_SLOTS;
	uint64_t cur = atomic_load_explicit(&ring_first, memory_order_relaxed), w;
	do
		w = cur + (CKT_RING_SLOTS >> CKT_RING_SHRINK) <= CKT_RING_FIRST_SLOTS ? CKT_RING_SLOTS >> CKT_RING_SHRINK
										 : CKT_RING_MIN_SLOTS;
	while (!atomic_compare_exchange_weak(&ring_first, &cur, cur + w));
	return (uint32_t)w;
}

/* Counts that spare a new thread its walks of the ring list, which cost a cache miss per
 * ring: with thousands of threads alive at once, each start walked all their rings twice
 * (threads_bench 4000 200: 3.8 to 5.7 s in the default mode, 1.3 s untraced). rings_free
 * is at least the number of FREE rings: the writer adds to it before it sets a ring FREE, a
 * thread takes from it once it has taken one. tid_rings[] counts, by thread id modulo its
 * size, the rings that may hold that id (a non-zero tid): at least those that do, raised
 * before a thread stores its id, lowered after the writer has cleared it. Hints only: a
 * count above the truth costs a walk, never a wrong answer. */
static atomic_int rings_free;
#define CKT_TID_BUCKETS (1u << 15)
static atomic_uint tid_rings[CKT_TID_BUCKETS];

void ckt_ring_recycling(pid_t tid)
{
	if (tid)
		atomic_fetch_sub(&tid_rings[(uint32_t)tid % CKT_TID_BUCKETS], 1);
	atomic_fetch_add(&rings_free, 1);
}

int ckt_rings_tid_many(pid_t tid, unsigned have)
{
	return atomic_load(&tid_rings[(uint32_t)tid % CKT_TID_BUCKETS]) > have;
}

/* First event of a thread. Rare path: a CAS on the global list, maybe an mmap, a gettid. */
static struct ckt_ring *thread_attach(struct ckt_tls *t)
{
	if (t->dead)
		return NULL;
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (me <= 0) {
		/* gettid refused (a seccomp filter the program installed): no thread id to record
		 * its events under (a ring of tid -1 was never drained, and the thread waited for
		 * room for good; the process then outlived SIGTERM): the thread goes untraced */
		static atomic_int said_tid;
		t->dead = 2;
		if (!atomic_exchange(&said_tid, 1))
			ckt_log("error: a new thread cannot learn its id (gettid refused: a seccomp filter?); "
				"threads started from here on are not traced", NULL, NULL, NULL);
		return NULL;
	}
	struct ckt_ring *r = NULL;
	for (struct ckt_ring *c = atomic_load(&rings_free) > 0 ? atomic_load(&ckt_rings) : NULL; c; c = c->next) {
		int expect = CKT_RING_FREE;
		if (atomic_load_explicit(&c->state, memory_order_relaxed) == CKT_RING_FREE &&
		    atomic_compare_exchange_strong(&c->state, &expect, CKT_RING_LIVE)) {
			atomic_fetch_sub(&rings_free, 1);
			r = c;
			break;
		}
	}
	if (!r) {
		r = ring_new();
		/* No ring was free. Threads that ended without our destructor (a raw exit system
		 * call) do not wake the writer, which frees their rings only at its flushes: a
		 * program that churns such threads would map a ring for each thread started in a
		 * flush interval. Past 64 rings, each new one wakes the writer (one futex call
		 * beside a 1 MiB mmap). */
		if (r && atomic_fetch_add(&rings_mapped, 1) >= 64)
			ckt_writer_wake();
	}
	if (!r) {
		static atomic_int said, said_rss;
		t->dead = 2;
		/* the tracer's RSS sampler, whose first sample may come after the program capped its
		 * address space (setrlimit RLIMIT_AS below what it uses): "a new thread" named one
		 * the program never made */
		if (me == atomic_load(&ckt_rss_tid)) {
			if (!atomic_exchange(&said_rss, 1))
				ckt_log("error: cannot map an event buffer for the tracer's RSS sampler (the "
					"address space is exhausted, or capped below what the process uses); "
					"RSS is not sampled from here on (the trace counts the samples lost)",
					NULL, NULL, NULL);
		} else if (!atomic_exchange(&said, 1)) {
			/* the main thread's first event (a tight ulimit -v at start): no "new" thread,
			 * and the program's own events are the ones lost (since 0.2.56) */
			ckt_log("error: cannot map an event buffer for ",
				me == (pid_t)syscall(SYS_getpid) ? "the program's main thread" : "a new thread",
				"; threads without one are not traced (the trace counts what they lose)", NULL);
		}
		return NULL;
	}
	pid_t pid = (pid_t)syscall(SYS_getpid);
	/* a ring still held by an ended thread of the same number (the kernel reuses thread ids
	 * once a thread is gone; its ring waits for the writer's next flush): its events and its
	 * end must come before this thread's in the trace (writer.c, snapshot). Once per thread:
	 * a walk of the ring list. */
	static _Atomic uint64_t gens;
	int reused = 0;
	atomic_fetch_add(&tid_rings[(uint32_t)me % CKT_TID_BUCKETS], 1); /* before the id is stored */
	for (struct ckt_ring *o = ckt_rings_tid_many(me, 1) ? atomic_load(&ckt_rings) : NULL; o && !reused; o = o->next)
		reused = o != r && atomic_load_explicit(&o->state, memory_order_acquire) != CKT_RING_FREE &&
			 __atomic_load_n(&o->tid, __ATOMIC_ACQUIRE) == me && __atomic_load_n(&o->pid, __ATOMIC_RELAXED) == pid;
	r->gen = atomic_fetch_add(&gens, 1) + 1;
	r->attach_ts = ckt_now();
	atomic_store(&r->tid_reused, reused);
	__atomic_store_n(&r->pid, pid, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tid, me, __ATOMIC_RELEASE);
	r->pth = (unsigned long)pthread_self();
	/* a side stack its last owner could not map is tried again (stacks.c; one it mapped stays) */
	if (r->alt_stack == CKT_ALT_STACK_NONE)
		r->alt_stack = NULL;
	/* A recycled ring is empty: the writer drained it up to head before freeing it. */
	r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
	r->lost = r->lost_reported;
	/* the window starts small (the ring is empty, and the writer reads it only after head) */
	r->w_first = ring_first_take(r);
	ckt_ring_set_window(r, r->w_first);
	r->half_ts = 0;
	r->half_head = atomic_load_explicit(&r->head, memory_order_relaxed);
	/* a recycled ring: its last owner's last stamp is a lower bound of ours too */
	atomic_store(&r->busy, CKT_NOT_BUSY);
	t->ring = r;
	atomic_store(&r->agg_src, &t->agg_bytes);
	/* glibc keeps a thread's first 32 key values in its descriptor; past them,
	 * pthread_setspecific callocs a block on the thread's first use. That calloc must not be
	 * an allocator the program exports (this may be its first mmap, under its lock: see
	 * ckt_check_interposition). Without the key the writer finds the thread gone instead
	 * (recycle_gone in writer.c), later, and without its last unsent sampled totals. */
	if (exit_key_ok && (exit_key < CKT_KEYS_IN_DESCRIPTOR || !atomic_load(&ckt_alloc_foreign))) {
		/* past the first 32 keys glibc callocs 512 bytes here, freed through the traced free
		 * as the thread ends: traced too (CKT_GUARD_TLS, ckt_tls_update_call), or every
		 * thread took the default mode's running totals 520 bytes below zero */
		int g = ckt_tls_update_open(t, 2);
		pthread_setspecific(exit_key, r);
		ckt_tls_update_close(t, g);
	}
	char name[17] = "";
	if (syscall(SYS_prctl, PR_GET_NAME, name) == 0 && ckt_real.malloc)
		ckt_thread_name_record(t, name);
	return r;
}

/* Slots of all windows past their first windows (see CKT_RING_EXTRA_SLOTS). Changed only when
 * a window grows or a ring is recycled. */
static _Atomic uint64_t ring_extra;

static int ring_budget_take(uint64_t slots, bool must)
{
	if (must) {
		atomic_fetch_add(&ring_extra, slots);
		return 1;
	}
	uint64_t cur = atomic_load_explicit(&ring_extra, memory_order_relaxed);
	do
		if (cur + slots > CKT_RING_EXTRA_SLOTS)
			return 0;
	while (!atomic_compare_exchange_weak(&ring_extra, &cur, cur + slots));
	return 1;
}

static void ring_budget_give(uint64_t slots)
{
	atomic_fetch_sub(&ring_extra, slots);
}

/* The writer recycles r (drained, its thread gone): its slots go back to the kernel until a
 * new thread takes the ring (a program that churns threads does not keep every ring
 * resident), its first window and its growth to their budgets. */
void ckt_ring_release(struct ckt_ring *r)
{
	/* madvise takes whole pages: the slots begin inside the header's last page (the header
	 * is not a whole number of pages), and given as they are the call failed with EINVAL,
	 * so a ring's grown window stayed resident for good while its budget went to other
	 * threads (64 busy threads that ended one after another held 62 MiB of rings where the
	 * budget is 24 MiB). That last page stays, and is zeroed by nobody: not needed, the
	 * writer reads only what a producer wrote. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)r->slots + page - 1) & ~(page - 1);
	uintptr_t hi = (uintptr_t)(r->slots + CKT_RING_SLOTS) & ~(page - 1);
	if (hi > lo)
		syscall(SYS_madvise, (void *)lo, hi - lo, MADV_DONTNEED);
	ring_budget_give(ckt_ring_mask(r) + 1 - r->w_first);
	if (r->first_counted)
		atomic_fetch_sub(&ring_first, r->w_first);
	ckt_ring_set_window(r, r->w_first);
}

/* (ckt.h) */
int ckt_thread_child_memory(void)
{
	/* the answer for the process that asked (pid-keyed: harmless written from a vfork child
	 * into the parent's memory) */
	static pid_t asked;
	static int answer;
	pid_t tp = ckt_writer_pid(), me = getpid();
	if (asked != me) {
		long same = syscall(SYS_kcmp, me, tp, KCMP_VM, 0, 0);
		answer = same == 0 ? CKT_CHILD_SHARED : same > 0 ? CKT_CHILD_OWN : CKT_CHILD_UNKNOWN;
		asked = me;
	}
	return answer;
}

/* A child made without fork's atfork handlers (_Fork, clone) has no writer to drain its rings:
 * tracing stops in it (the child's own copy of the flag). A vfork child shares the traced
 * process's memory, whose writer runs on: it waits like any thread, and must write nothing
 * that would change the parent (the flag least of all). kcmp (KCMP_VM) says whether two
 * processes share their memory; only its positive "different" turns tracing off. Where it
 * cannot tell (refused by seccomp, or the traced process gone or out of sight), the event is
 * dropped (the child's own, not counted) and the thread keeps going. Returns 1 when the event
 * must be dropped. Called on a full ring only. */
static int ckt_thread_no_writer(void)
{
	pid_t tp = ckt_writer_pid();
	if (!tp || getpid() == tp)
		return 0;
	int answer = ckt_thread_child_memory();
	if (answer == CKT_CHILD_OWN)
		atomic_store(&ckt_active, 0);
	return answer != CKT_CHILD_SHARED;
}

/* Waits until at most `limit` events of r are pending (the owner's head is h): 1, or 0 when
 * no writer will drain them (none yet, none any more, or stuck).
 * Back-pressure keeps every event: the thread sleeps on a futex until the writer has drained
 * its ring (sched_yield loops made 4 producers on 2 cores take turns spinning while the
 * writer waited for a core). Never without a bound: after 10 s of waiting with no drain of
 * this ring in between (a writer stuck on I/O, or anything we did not foresee that waits on
 * this thread) the caller drops the event, counted; the trace then says how many were lost.
 * The 10 s are the thread's own waits of at most 5 ms each, not clock time: a stopped process
 * (Ctrl-Z) is not a stuck writer. Once a thread has given up, full rings drop at once until
 * the writer cycles again: 10 s per event would hang the program. */
static int wait_drained_for(struct ckt_ring *r, uint64_t h, uint64_t limit, uint64_t *slept)
{
	uint64_t waited = 0; /* ns spent waiting since this ring was last drained, 5 ms per wait at most */
	uint32_t drained = 0;
	int first = 1;
	while (h - r->tail_cache > limit) {
		if (first && ckt_thread_no_writer())
			return 0;
		uint64_t cycles = atomic_load_explicit(&ckt_writer_cycles, memory_order_relaxed);
		uint32_t d = atomic_load(&r->drained);
		if (first || d != drained) {
			drained = d;
			waited = 0;
			first = 0;
		}
		int running = atomic_load(&ckt_writer_running), expired = waited >= 10000000000ull;
		if (!running || expired ||
		    atomic_load_explicit(&ckt_writer_stalled, memory_order_relaxed) == cycles + 1) {
			if (running && expired)
				atomic_store_explicit(&ckt_writer_stalled, cycles + 1, memory_order_relaxed);
			atomic_store(&r->sleeping, 0);
			return 0;
		}
		uint32_t seq = atomic_load(&r->drained);
		atomic_store(&r->sleeping, 1);
		r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
		if (h - r->tail_cache <= limit)
			break;
		ckt_writer_wake();
		struct timespec ts = {0, 5000000}; /* re-check the writer's health every 5 ms */
		uint64_t t0 = ckt_clock_raw();
		syscall(SYS_futex, &r->drained, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
		/* the time it really waited (a signal cuts a wait short), but never more than
		 * the 5 ms asked: a process stopped meanwhile (Ctrl-Z) is not a stuck writer */
		uint64_t dt = ckt_clock_raw() - t0;
		waited += dt < 5000000 ? dt : 5000000;
		/* the program's thread was held up by it, its time to get a core again included; a
		 * stop (Ctrl-Z) inside one wait counts 100 ms at most */
		*slept += dt < 100000000 ? dt : 100000000;
		r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
	}
	atomic_store(&r->sleeping, 0);
	return 1;
}

_Atomic uint64_t ckt_wait_ns, ckt_waits;

/* wait_drained_for, and the time it slept counted in ckt_wait_ns and ckt_waits (a thread of the
 * program's: the RSS sampler is the tracer's own). Off the allocation path: only a thread that
 * finds its ring full comes here. */
static int wait_drained(struct ckt_ring *r, uint64_t h, uint64_t limit)
{
	uint64_t slept = 0;
	int ok = wait_drained_for(r, h, limit, &slept);
	if (slept && r->tid != atomic_load_explicit(&ckt_rss_tid, memory_order_relaxed)) {
		/* the time, then the count (release): a writer that sees the count sees the time */
		atomic_fetch_add_explicit(&ckt_wait_ns, slept, memory_order_relaxed);
		atomic_fetch_add_explicit(&ckt_waits, 1, memory_order_release);
	}
	return ok;
}

/* The cached view of the writer's tail says the ring's window is half full. Refresh it; wake
 * the writer; grow the window when this thread needs it (see CKT_RING_SHRINK); if there is
 * truly no room, wait for the writer, or drop the event (counted, reported as a LOST record)
 * when no writer can drain it (before init, after an error). */
static int thread_make_room(struct ckt_ring *r, unsigned n)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t win = ckt_ring_mask(r) + 1;
	r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (h + n - r->tail_cache <= win / 2)
		return 1;
	ckt_writer_wake();
	bool small = win < CKT_RING_SLOTS;
	/* Before the writer has started (a library constructor before ours), nothing drains: the
	 * window grows in place, up to the whole ring, as events come. Safe while the ring has
	 * never been drained (tail 0): events 0..h-1, h <= the window, sit in the same slots
	 * under the doubled window, whichever the writer reads if it starts meanwhile. */
	while (small && h + n - r->tail_cache > win / 2 && r->tail_cache == 0 &&
	       !atomic_load(&ckt_writer_running)) {
		ring_budget_take(win, true); /* constructors' threads: few, and nothing drains yet */
		win *= 2;
		ckt_ring_set_window(r, win);
		small = win < CKT_RING_SLOTS;
	}
	if (h + n - r->tail_cache <= win / 2)
		return 1;
	if (small) {
		/* Busy: no room at all, or another half window's worth of events since the last
		 * time within CKT_RING_GROW_NS (last_ts is this event's stamp, or the one before;
		 * counted in events, as this path runs on every event while the writer is behind).
		 * The window changes only while the ring is empty: wait for the writer to drain it
		 * all (once per doubling, four times in a ring's life at most). If that cannot be
		 * had, go on with the window as it is. */
		int busy = h + n - r->tail_cache > win;
		if (h - r->half_head >= win / 2) {
			busy |= r->last_ts - r->half_ts < CKT_RING_GROW_NS;
			r->half_ts = r->last_ts;
			r->half_head = h;
		}
		if (busy && ring_budget_take(win, false)) {
			if (wait_drained(r, h, 0)) {
				ckt_ring_set_window(r, win * 2);
				return 1; /* the next head's release store publishes the window with it */
			}
			ring_budget_give(win);
		}
	}
	if (h + n - r->tail_cache <= win)
		return 1;
	if (!wait_drained(r, h, win - n)) {
		r->lost++;
		return 0;
	}
	return 1;
}

atomic_int ckt_main_exited;

/* The main thread may end without ending the process: glibc then calls exit(0) when the last
 * thread ends, counting ours. Noting it lets the writer finish the trace and end the helpers
 * once only they are left (writer.c, orphaned). */
CKT_EXPORT void pthread_exit(void *ret)
{
	if (syscall(SYS_gettid) == getpid()) {
		atomic_store(&ckt_main_exited, 1);
		ckt_writer_wake(); /* from now on it looks for the program's end every 10 ms */
	}
	if (!ckt_real.pthread_exit && atomic_load(&ckt_boot_state) == 0)
		ckt_bootstrap();
	if (ckt_real.pthread_exit)
		ckt_real.pthread_exit(ret);
	/* no real pthread_exit (cannot happen with glibc): end this thread alone */
	for (;;)
		syscall(SYS_exit, 0);
}

void ckt_thread_after_fork_child(void)
{
	/* The child is untraced: no ring of the parent's threads may be drained here. */
	ckt_tls.dead = 1;
}

_Atomic uint64_t ckt_lost_jumped, ckt_lost_cxx;

/* The thread's alternate signal stack, noted as an mmap-family hook marks its frame. */
void ckt_guard_altstack(struct ckt_tls *t)
{
	stack_t ss;
	if (syscall(SYS_sigaltstack, NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
		t->guard_alt_lo = (uintptr_t)ss.ss_sp;
		t->guard_alt_hi = (uintptr_t)ss.ss_sp + ss.ss_size;
	} else {
		t->guard_alt_lo = t->guard_alt_hi = 0;
	}
}

/* See ckt.h. A signal handler that interrupted the hook runs below the hook's frame on the
 * same stack, or on its alternate stack, and the frame is intact: the frame is gone when the
 * calling hook's frame (fp) is at or above it on the thread's stack (a call at the same depth
 * as the one the jump left, the common case: a loop around the call), or when a deeper call
 * wrote over its token. (A deeper call that left the token as it was is not told apart: the
 * thread's calls pass untraced until one is.) One sigaltstack query, only when the guard is
 * up. */
CKT_NOINLINE int ckt_guard_stale(struct ckt_tls *t, void *fp)
{
	struct ckt_guard_frame *f = t->guard_frame;
	uintptr_t at = (uintptr_t)fp;
	if (t->guard != CKT_GUARD_MAP || !t->guard_in_call || !f)
		return 0;
	if (at >= t->guard_fp) {
		/* above the left frame: a jump back, unless on the alternate stack (noted when the
		 * hook marked, as a handler on one with SS_AUTODISARM finds it disabled) */
		stack_t ss;
		if ((at - t->guard_alt_lo < t->guard_alt_hi - t->guard_alt_lo) ||
		    syscall(SYS_sigaltstack, NULL, &ss) != 0 || (ss.ss_flags & SS_ONSTACK))
			return 0;
	} else if (f->token == t->guard_tok) {
		return 0;
	}
	t->guard_in_call = 0;
	t->guard = 0;
	ckt_done(t); /* a release stamped before its call (munmap) holds the horizon no more */
	if (t->nosample_open) { /* nor the RSS samples (ckt_nosample_begin) */
		ckt_nosample_end(t->nosample_open - 1);
		t->nosample_open = 0;
	}
	atomic_fetch_add_explicit(&ckt_lost_jumped, 1, memory_order_relaxed);
	return 1;
}

/* The two slow paths of recording keep errno as it was: their system calls (the ring's
 * mapping, a futex wait for the writer that ends in EAGAIN or ETIMEDOUT) are the tracer's, and
 * a program that reads errno after a successful call saw EAGAIN (tests/progs/errnokeep.c). */
CKT_NOINLINE struct ckt_ring *ckt_thread_attach(struct ckt_tls *t)
{
	int e = errno;
	struct ckt_ring *r = thread_attach(t);
	errno = e;
	return r;
}

CKT_NOINLINE int ckt_thread_make_room(struct ckt_ring *r, unsigned n)
{
	int e = errno;
	int rc = thread_make_room(r, n);
	errno = e;
	return rc;
}
