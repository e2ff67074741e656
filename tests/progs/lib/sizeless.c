/* sizeless.c: a toy allocator preloaded after the tracer (or linked) that defines malloc, free,
 * calloc and realloc but no malloc_usable_size, as small custom allocators do. Like a slab
 * allocator it keeps a pointer to the owning arena in the word before each block (and the
 * request in the word before that); blocks are never reused. The next malloc_usable_size after
 * the tracer is glibc's, which read that pointer as a chunk size and looked for the next chunk
 * that far on: SIGSEGV at the traced program's first malloc, in both modes. */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

static char *arena, *cur, *end;

static int grow(size_t need)
{
	size_t sz = need + ((size_t)64 << 20);
	char *m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	arena = cur = m;
	end = m + sz;
	return 0;
}

/* the blocks of malloc, calloc and realloc (called by name, malloc and memset in calloc would
 * be made a call of calloc by the compiler) */
static void *take(size_t n)
{
	size_t need = ((n + 15) & ~(size_t)15) + 16;
	if (need < n || ((!cur || (size_t)(end - cur) < need) && grow(need)))
		return NULL;
	char *p = cur + 16;
	memcpy(p - 16, &n, sizeof(n));
	memcpy(p - 8, &arena, sizeof(arena));
	cur += need;
	return p;
}

void *malloc(size_t n)
{
	return take(n);
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	size_t n;
	if (__builtin_mul_overflow(a, b, &n))
		return NULL;
	void *p = take(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = take(n);
	if (p && q) {
		size_t o;
		memcpy(&o, (char *)p - 16, sizeof(o));
		memcpy(q, p, o < n ? o : n);
	}
	return q;
}
