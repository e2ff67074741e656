/* newalloc.c: a toy allocator that, like tcmalloc, jemalloc and mimalloc, defines both malloc
 * and C++ operator new, and serves new without calling malloc. Preloaded after libcuzktrace,
 * it is the allocator behind the tracer's malloc, and a C++ program's new reaches it directly:
 * the tracer traces new and delete itself (hooks_cxx.c). Blocks come from one mapped arena
 * and carry their size in a 16-byte header; free does nothing. A new of more than 1 TiB
 * calls the program's new-handler once, then throws std::bad_alloc (through libstdc++'s own
 * thrower: linked with it), which must leave the tracer's hook with its guard down. Its aligned
 * new (one form) carves the block from the arena too, never through aligned_alloc. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

static char *arena, *top, *end;

static void *take(size_t n)
{
	if (!arena) {
		size_t len = (size_t)1 << 30;
		arena = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (arena == MAP_FAILED)
			return arena = NULL;
		top = arena;
		end = arena + len;
	}
	size_t need = (n + 16 + 15) & ~(size_t)15;
	char *p = __atomic_fetch_add(&top, need, __ATOMIC_RELAXED);
	if (p + need > end)
		return NULL;
	memcpy(p, &n, sizeof(n));
	return p + 16;
}

void *malloc(size_t n) { return take(n); }
void free(void *p) { (void)p; }
size_t malloc_usable_size(void *p)
{
	size_t n = 0;
	if (p)
		memcpy(&n, (char *)p - 16, sizeof(n));
	return n;
}
void *calloc(size_t a, size_t b)
{
	if (b && a > (size_t)-1 / b)
		return NULL;
	return take(a * b); /* the arena's pages are zero */
}
void *realloc(void *p, size_t n)
{
	void *q = take(n);
	size_t old = malloc_usable_size(p);
	if (q && p)
		memcpy(q, p, old < n ? old : n);
	return q;
}
/* std::__throw_bad_alloc() */
void _ZSt17__throw_bad_allocv(void) __attribute__((noreturn));
/* std::get_new_handler() */
typedef void new_handler_fn(void);
new_handler_fn *_ZSt15get_new_handlerv(void);

/* operator new(unsigned long), delete(void *), delete(void *, unsigned long) */
void *_Znwm(size_t n)
{
	void *p = n > (size_t)1 << 40 ? NULL : take(n);
	if (!p) { /* the program's new-handler once, as operator new must try it */
		new_handler_fn *h = _ZSt15get_new_handlerv();
		if (h)
			h();
		_ZSt17__throw_bad_allocv();
	}
	return p;
}
void _ZdlPv(void *p) { (void)p; }
void _ZdlPvm(void *p, size_t n) { (void)p; (void)n; }

/* operator new(unsigned long, std::align_val_t), delete(void *, std::align_val_t) */
void *_ZnwmSt11align_val_t(size_t n, size_t al)
{
	char *p = take(n + al);
	if (!p)
		_ZSt17__throw_bad_allocv();
	char *q = (char *)(((uintptr_t)p + al - 1) & ~(uintptr_t)(al - 1));
	memcpy(q - 16, &n, sizeof(n)); /* within the block's own header or its padding */
	return q;
}
void _ZdlPvSt11align_val_t(void *p, size_t al) { (void)p; (void)al; }
