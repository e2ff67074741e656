/* ownmalloc.c: an executable that brings its own allocator and exports malloc (built with
 * -rdynamic), like a program linking an allocator without symbol prefixes (rustc links
 * jemalloc so). Its allocations never reach the tracer: the tracer must say so in one line.
 * Like jemalloc, it maps memory for a large block while it holds its lock, on a thread whose
 * first traced call that mmap is: the tracer must not call malloc from that hook, which would
 * be this allocator again (jemalloc deadlocks; this one says "own: re-entered" and exits 7).
 * It does not define reallocarray: glibc's calls realloc, the program's, and so must the
 * tracer's (it called glibc's, whose block then went to this allocator's free; says
 * "own: reallocarray from another heap" and exits 3). Prints "own: done".
 * Built with -DOWN_ALIAS (ownalias) its functions are own_malloc and so on, and malloc, free,
 * calloc and realloc aliases of them, as allocators define them (tcmalloc's malloc is found as
 * __libc_malloc, its realloc as tc_realloc): the tracer took only a symbol named malloc for
 * an allocator's, said nothing and gave reallocarray to glibc. */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h> /* reallocarray */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static _Alignas(16) char arena[1 << 24];
static size_t used;
static __thread volatile int busy; /* this thread is inside malloc (jemalloc: holds its lock) */

#ifdef OWN_ALIAS
#define OWN(f) own_##f
void *malloc(size_t) __attribute__((alias("own_malloc")));
void free(void *) __attribute__((alias("own_free")));
void *calloc(size_t, size_t) __attribute__((alias("own_calloc")));
void *realloc(void *, size_t) __attribute__((alias("own_realloc")));
#else
#define OWN(f) f
#endif

void *OWN(malloc)(size_t n)
{
	if (busy) {
		(void)!write(1, "own: re-entered\n", 16);
		_exit(7);
	}
	if (n >= (1 << 20)) { /* large: mapped, as jemalloc maps a new extent */
		busy = 1;
		void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		busy = 0;
		return m == MAP_FAILED ? NULL : m;
	}
	n = (n + 15) & ~(size_t)15;
	if (used + n > sizeof(arena))
		return NULL;
	void *p = arena + used;
	used += n;
	return p;
}

void OWN(free)(void *p)
{
	(void)p;
}

void *OWN(calloc)(size_t a, size_t b)
{
	void *p = OWN(malloc)(a * b);
	if (p)
		memset(p, 0, a * b);
	return p;
}

void *OWN(realloc)(void *p, size_t n)
{
	void *q = OWN(malloc)(n);
	if (q && p)
		memmove(q, p, n); /* a toy: copies n bytes whatever the old size */
	return q;
}

static void *volatile keep;

static void *worker(void *arg)
{
	(void)arg;
	keep = malloc(8 << 20); /* this thread's first traced call: the mmap inside */
	memset(keep, 1, 8 << 20);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 2;
	char *r = reallocarray(malloc(16), 4, 8);
	if (r < arena || r >= arena + sizeof(arena)) {
		(void)!write(1, "own: reallocarray from another heap\n", 36);
		return 3;
	}
	return write(1, "own: done\n", 10) == 10 ? 0 : 1;
}
