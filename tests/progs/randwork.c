/* randwork.c: a randomized heap and mmap workload for differential testing of the reader
 * against tests/oracle/oracle.py (see tests/integration/t_oracle.sh).
 *   randwork SEED THREADS OPS
 * Each of THREADS workers (and the main thread, lightly) runs OPS random operations from its own
 * generator seeded by SEED and its index: malloc of sizes 1..600, 2016..2040 (the address
 * model's class cap), 601..69999 and 70000..5000000; calloc, posix_memalign, aligned_alloc,
 * memalign, valloc, realloc(NULL, n); realloc and reallocarray growth and shrink, realloc(p, 0);
 * frees of random slots (random order); blocks handed to other threads through a shared locked
 * array and freed there; phase push/pop and begin/end through the shim; a few anonymous and
 * file-backed mmaps (1 in 5 anonymous ones PROT_NONE: reserved address space), partial munmaps
 * (head, tail, middle, lengths not a page multiple), MAP_FIXED over a mapping, mremap grow and
 * shrink, mprotect of a page-aligned part or all of one mapping (lengths not a page multiple
 * too) to PROT_NONE, PROT_READ or PROT_READ|PROT_WRITE. Mapped memory is written only where it
 * is known writable and anonymous (a new or just remapped read-write mapping, a range just made
 * read-write, a MAP_FIXED range); an mremap first makes a mapping of mixed protections uniform
 * with one mprotect of all of it (growing one spanning several protections would fail). Some
 * blocks and mappings stay live at exit. Deterministic per seed except for the interleaving of
 * the threads. Output through write(2) only (no stdio buffers). */
#include "cuzktrace_shim.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOTS 96
#define SHARED 64
#define MAPS 6
#define MAXLARGE 4
#define MAXT 16

static void *volatile sink;
static void *volatile shared[SHARED];
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static int exe_fd = -1;
static long page;
static uint64_t seed;
static long ops;

static const char *const pnames[4] = {"rw.alpha", "rw.beta", "rw.gamma", "rw.delta"};
static const char *const bnames[4] = {"rw.load", "rw.prove", "rw.commit", "rw.verify"};

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r) /* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in [lo, hi] */
static uint64_t between(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rnd(r) % (hi - lo + 1);
}

struct blk {
	char *p;
	size_t n;
};

struct map {
	char *p;
	size_t len; /* mapped, no holes: a middle munmap splits the range in two slots */
	int prot;   /* the protection of all of it, or -1 when its parts differ */
	int file;   /* file-backed (parts may be anonymous since): never written to */
};

struct worker {
	int id;
	struct rng r;
	struct blk b[SLOTS];
	struct map m[MAPS];
	int large; /* live blocks >= 70000 */
	int depth; /* pushed phases */
	int begins[4];
};

static void touch(char *p, size_t n)
{
	if (!p)
		return;
	p[0] = 1;
	p[n - 1] = 2;
	sink = p;
}

static size_t pick_size(struct worker *w)
{
	uint64_t k = rnd(&w->r) % 100;
	if (k < 55)
		return (size_t)between(&w->r, 1, 600);
	if (k < 72)
		return (size_t)between(&w->r, 2016, 2040);
	if (k < 92)
		return (size_t)between(&w->r, 601, 69999);
	if (w->large < MAXLARGE)
		return (size_t)between(&w->r, 70000, 5000000);
	return (size_t)between(&w->r, 1, 600);
}

static void drop(struct worker *w, int i)
{
	if (!w->b[i].p)
		return;
	if (w->b[i].n >= 70000)
		w->large--;
	free(w->b[i].p);
	w->b[i].p = NULL;
}

static void put(struct worker *w, int i, char *p, size_t n)
{
	w->b[i].p = p;
	w->b[i].n = p ? n : 0;
	if (p && n >= 70000)
		w->large++;
	touch(p, n);
}

static void allocate(struct worker *w, int i)
{
	size_t n = pick_size(w);
	uint64_t k = rnd(&w->r) % 100;
	void *p = NULL;
	drop(w, i); /* frees in random order: whatever held this slot */
	if (k < 66) {
		p = malloc(n);
	} else if (k < 78) {
		size_t m = (size_t)between(&w->r, 1, 16);
		n = (n + m - 1) / m * m;
		p = calloc(n / m, m);
	} else if (k < 86) {
		size_t al = (size_t)1 << between(&w->r, 4, 12);
		if (posix_memalign(&p, al, n))
			p = NULL;
	} else if (k < 90) {
		size_t al = (size_t)1 << between(&w->r, 4, 8);
		n = (n + al - 1) / al * al;
		p = aligned_alloc(al, n);
	} else if (k < 93) {
		p = memalign((size_t)1 << between(&w->r, 3, 10), n);
	} else if (k < 95) {
		p = valloc(n);
	} else {
		p = realloc(NULL, n);
	}
	put(w, i, p, n);
}

static void resize(struct worker *w, int i)
{
	struct blk *b = &w->b[i];
	if (!b->p) {
		allocate(w, i);
		return;
	}
	size_t n;
	uint64_t k = rnd(&w->r) % 100;
	if (k < 50) { /* growth */
		n = b->n + (size_t)between(&w->r, 1, b->n < 4096 ? 4096 : b->n);
		if (n > 5000000 || (n >= 70000 && b->n < 70000 && w->large >= MAXLARGE))
			n = b->n < 600 ? 600 : b->n;
	} else if (k < 94) { /* shrink */
		n = (size_t)between(&w->r, 1, b->n);
	} else if (k < 96) { /* glibc's realloc(p, 0) frees p and returns NULL */
		n = 0;
	} else { /* across the class cap */
		n = (size_t)between(&w->r, 2016, 2040);
	}
	char *p = k % 2 && n ? reallocarray(b->p, n, 1) : realloc(b->p, n);
	if (!p && n)
		return; /* failed: the old block is still there */
	if (!p) {
		if (b->n >= 70000)
			w->large--;
		b->p = NULL;
		b->n = 0;
		return;
	}
	if (b->n >= 70000)
		w->large--;
	b->p = NULL;
	put(w, i, p, n);
}

/* hand slot i to the shared array; whatever was there is freed here (a cross-thread free) */
static void give(struct worker *w, int i)
{
	if (!w->b[i].p)
		return;
	int j = (int)(rnd(&w->r) % SHARED);
	if (w->b[i].n >= 70000)
		w->large--;
	pthread_mutex_lock(&shared_lock);
	void *old = shared[j];
	shared[j] = w->b[i].p;
	pthread_mutex_unlock(&shared_lock);
	w->b[i].p = NULL;
	free(old);
}

static void take(struct worker *w)
{
	int j = (int)(rnd(&w->r) % SHARED);
	pthread_mutex_lock(&shared_lock);
	void *p = shared[j];
	shared[j] = NULL;
	pthread_mutex_unlock(&shared_lock);
	free(p);
}

static void phase_op(struct worker *w)
{
	uint64_t k = rnd(&w->r) % 4;
	if (k < 2 && w->depth < 3) {
		cuzktrace_shim_phase_push(pnames[rnd(&w->r) % 4]);
		w->depth++;
	} else if (w->depth > 0) {
		cuzktrace_shim_phase_pop();
		w->depth--;
	}
}

static void begin_op(struct worker *w)
{
	int k = (int)(rnd(&w->r) % 4);
	if (w->begins[k] == 0 || rnd(&w->r) % 2) {
		if (w->begins[k] < 2) {
			cuzktrace_shim_phase_begin(bnames[k]);
			w->begins[k]++;
		}
	} else {
		cuzktrace_shim_phase_end(bnames[k]);
		w->begins[k]--;
	}
}

#define PROT_RW (PROT_READ | PROT_WRITE)

/* mprotect of [p, p + len) within mapping m (len rounded up to a page by the kernel) */
static void protect(struct map *m, char *p, size_t len, int prot)
{
	if (mprotect(p, len, prot))
		return;
	size_t pg = (size_t)page;
	if (p == m->p && (len + pg - 1) / pg >= (m->len + pg - 1) / pg)
		m->prot = prot;
	else if (m->prot != prot)
		m->prot = -1;
	if (prot == PROT_RW && !m->file)
		touch(p, len);
}

static void map_op(struct worker *w)
{
	static const int prots[3] = {PROT_NONE, PROT_READ, PROT_RW};
	int i = (int)(rnd(&w->r) % MAPS);
	struct map *m = &w->m[i];
	uint64_t k = rnd(&w->r) % 100;
	if (!m->p) {
		size_t len = (size_t)between(&w->r, 1, 48) * (size_t)page;
		if (rnd(&w->r) % 3 == 0)
			len -= (size_t)between(&w->r, 1, (uint64_t)page - 1); /* not a page multiple */
		void *p;
		int file = k < 25 && exe_fd >= 0, prot = PROT_READ;
		if (file) {
			p = mmap(NULL, len, prot, MAP_PRIVATE, exe_fd, 0);
		} else {
			prot = rnd(&w->r) % 5 == 0 ? PROT_NONE : PROT_RW; /* reserved address space */
			p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		}
		if (p != MAP_FAILED) {
			m->p = p;
			m->len = len;
			m->prot = prot;
			m->file = file;
			if (prot == PROT_RW)
				touch(p, len);
		}
		return;
	}
	size_t pages = (m->len + (size_t)page - 1) / (size_t)page;
	if (k >= 82) { /* mprotect of page-aligned part or all of it, to a random protection */
		size_t at = (size_t)between(&w->r, 0, pages - 1);
		size_t len = (size_t)between(&w->r, 1, pages - at) * (size_t)page;
		if (rnd(&w->r) % 3 == 0)
			len -= (size_t)between(&w->r, 0, (uint64_t)page - 1); /* rounded up: same pages */
		protect(m, m->p + at * (size_t)page, len, prots[rnd(&w->r) % 3]);
		return;
	}
	if (k < 25 || pages < 3) { /* all of it */
		munmap(m->p, m->len);
		m->p = NULL;
	} else if (k < 37) { /* the head */
		size_t h = (size_t)between(&w->r, 1, pages - 1) * (size_t)page;
		munmap(m->p, h);
		m->p += h;
		m->len -= h;
	} else if (k < 49) { /* the tail, from a page boundary, a length that is no multiple */
		size_t keep = (size_t)between(&w->r, 1, pages - 1) * (size_t)page;
		munmap(m->p + keep, m->len - keep);
		m->len = keep;
	} else if (k < 59) { /* a hole in the middle: the piece after it goes to a free slot */
		size_t at = (size_t)between(&w->r, 1, pages - 2);
		size_t n = (size_t)between(&w->r, 1, pages - 1 - at), end = (at + n) * (size_t)page;
		int j = 0;
		while (j < MAPS && w->m[j].p)
			j++;
		if (j == MAPS) { /* no slot: unmap the rest too (a hole must not outlive the slot) */
			munmap(m->p + at * (size_t)page, m->len - at * (size_t)page);
		} else {
			munmap(m->p + at * (size_t)page, n * (size_t)page);
			w->m[j].p = m->p + end;
			w->m[j].len = m->len - end;
			w->m[j].prot = m->prot;
			w->m[j].file = m->file;
		}
		m->len = at * (size_t)page;
	} else if (k < 69) { /* a fixed anonymous mapping over part of it */
		size_t at = (size_t)between(&w->r, 0, pages - 2);
		size_t n = (size_t)between(&w->r, 1, pages - 1 - at);
		char *p = m->p + at * (size_t)page;
		if (mmap(p, n * (size_t)page, PROT_RW, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) != MAP_FAILED) {
			if (m->prot != PROT_RW)
				m->prot = -1;
			touch(p, n * (size_t)page);
		}
	} else { /* mremap: grow (may move) or shrink */
		if (m->prot < 0) /* one protection first: the new range takes the old one's */
			protect(m, m->p, m->len, prots[rnd(&w->r) % 3]);
		size_t len = rnd(&w->r) % 2 ? m->len + (size_t)between(&w->r, 1, 16) * (size_t)page
					    : (size_t)between(&w->r, 1, pages - 1) * (size_t)page;
		void *p = mremap(m->p, m->len, len, MREMAP_MAYMOVE);
		if (p != MAP_FAILED) {
			m->p = p;
			m->len = len;
			if (m->prot == PROT_RW && !m->file)
				touch(p, len);
		}
	}
}

static void run(struct worker *w, long n)
{
	for (long s = 0; s < n; s++) {
		uint64_t k = rnd(&w->r) % 1000;
		int i = (int)(rnd(&w->r) % SLOTS);
		if (k < 400)
			allocate(w, i);
		else if (k < 600)
			drop(w, i);
		else if (k < 760)
			resize(w, i);
		else if (k < 860)
			give(w, i);
		else if (k < 960)
			take(w);
		else if (k < 980)
			phase_op(w);
		else if (k < 988)
			begin_op(w);
		else
			map_op(w);
	}
	/* leave about a third of the blocks and mappings live, free the rest in random order */
	for (int s = 0; s < SLOTS; s++) {
		int i = (int)(rnd(&w->r) % SLOTS);
		if (rnd(&w->r) % 3)
			drop(w, i);
	}
	for (int i = 0; i < MAPS; i++)
		if (w->m[i].p && rnd(&w->r) % 2) {
			munmap(w->m[i].p, w->m[i].len);
			w->m[i].p = NULL;
		}
	while (w->depth > 0) {
		cuzktrace_shim_phase_pop();
		w->depth--;
	}
	for (int k = 0; k < 4; k++)
		while (w->begins[k] > 0 && rnd(&w->r) % 2) {
			cuzktrace_shim_phase_end(bnames[k]);
			w->begins[k]--;
		}
}

static void *thread_main(void *arg)
{
	run(arg, ops);
	return NULL;
}

static int put_str(const char *s)
{
	size_t n = strlen(s);
	return write(1, s, n) == (ssize_t)n ? 0 : -1;
}

static void put_num(char *buf, unsigned long long v)
{
	char t[24];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*buf++ = t[--n];
	*buf = 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		put_str("usage: randwork SEED THREADS OPS\n");
		return 2;
	}
	seed = strtoull(argv[1], NULL, 10);
	int nt = atoi(argv[2]);
	ops = atol(argv[3]);
	if (nt < 0 || nt > MAXT || ops < 0) {
		put_str("randwork: 0..16 threads, ops >= 0\n");
		return 2;
	}
	/* a fixed threshold: glibc's moving one would put freed large sizes on the heap, where
	 * calloc clears and realloc copies them, and RSS would dwarf the traced peak */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	page = sysconf(_SC_PAGESIZE);
	exe_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	static struct worker ws[MAXT + 1];
	pthread_t th[MAXT];
	for (int t = 0; t <= nt; t++) {
		ws[t].id = t;
		ws[t].r.s = seed * 0x100000001b3ull + (uint64_t)t * 0x9e3779b97f4a7c15ull + 1;
	}
	/* the main thread works a little before and while the workers run */
	run(&ws[nt], ops / 8);
	for (int t = 0; t < nt; t++)
		if (pthread_create(&th[t], NULL, thread_main, &ws[t])) {
			put_str("randwork: pthread_create failed\n");
			return 1;
		}
	run(&ws[nt], ops / 4);
	for (int t = 0; t < nt; t++)
		pthread_join(th[t], NULL);
	/* half of what is still shared is freed by main */
	for (int j = 0; j < SHARED; j += 2) {
		free(shared[j]);
		shared[j] = NULL;
	}
	char line[160], num[24];
	strcpy(line, "randwork: seed ");
	put_num(num, seed);
	strcat(line, num);
	strcat(line, " threads ");
	put_num(num, (unsigned long long)nt);
	strcat(line, num);
	strcat(line, " ops ");
	put_num(num, (unsigned long long)ops);
	strcat(line, num);
	strcat(line, " done\n");
	return put_str(line) ? 1 : 0;
}
