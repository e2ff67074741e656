/* libmmapalloc.so, preloaded after the tracer: a toy allocator that takes its memory through
 * the mmap symbol, 1 MiB at a time, as jemalloc, tcmalloc and mimalloc do. Its mmap calls come
 * from inside the tracer's malloc hook (the real malloc is this one): the allocator's own, not
 * a signal handler's, so nothing may be counted lost. free keeps nothing. With
 * CKT_MMAPALLOC_THREAD=1 its 50th malloc starts a thread of its own that ends at once, as
 * jemalloc's background_thread:true does: the dynamic linker callocs the thread's TLS vector
 * inside that malloc, another call that is the allocator's, not a signal handler's. With
 * CKT_MMAPALLOC_RAISE=1 its 50th malloc raises SIGUSR1 first (a signal that interrupts the
 * tracer's malloc hook). */
#include <signal.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK ((size_t)1 << 20)
static __thread char *cur;
static __thread size_t left;

static void *get(size_t n)
{
	n = (n + 16 + 15) & ~(size_t)15;
	if (n > left) {
		size_t m = n > CHUNK ? n : CHUNK;
		char *p = mmap(NULL, m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			errno = ENOMEM;
			return NULL;
		}
		cur = p;
		left = m;
	}
	char *r = cur;
	cur += n;
	left -= n;
	*(size_t *)r = n - 16;
	return r + 16;
}

static void *bg(void *arg)
{
	return arg;
}

void *malloc(size_t n)
{
	static int calls;
	if (__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED) == 50 && getenv("CKT_MMAPALLOC_THREAD")) {
		pthread_t t;
		if (pthread_create(&t, NULL, bg, NULL) == 0)
			pthread_detach(t);
	}
	if (calls == 50 && getenv("CKT_MMAPALLOC_RAISE"))
		raise(SIGUSR1);
	return get(n);
}
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b) { return a && b > (size_t)-1 / a ? NULL : get(a * b); }
size_t malloc_usable_size(void *p) { return p ? *(size_t *)((char *)p - 16) : 0; }
void *realloc(void *p, size_t n)
{
	void *q = get(n);
	if (p && q) {
		size_t o = malloc_usable_size(p);
		memcpy(q, p, o < n ? o : n);
	}
	return q;
}
int posix_memalign(void **out, size_t a, size_t n)
{
	if (!n) { /* as POSIX allows for 0 bytes: success, and a null pointer */
		*out = NULL;
		return 0;
	}
	char *p = get(n + a);
	if (!p)
		return ENOMEM;
	*out = (void *)(((size_t)p + a - 1) & ~(a - 1));
	return 0;
}
void *aligned_alloc(size_t a, size_t n) { void *p; return posix_memalign(&p, a, n) ? NULL : p; }
void *memalign(size_t a, size_t n) { void *p; return posix_memalign(&p, a, n) ? NULL : p; }
