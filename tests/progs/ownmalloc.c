/* ownmalloc.c: an executable that brings its own allocator and exports malloc (built with
 * -rdynamic), like a program linking an allocator without symbol prefixes. Its allocations
 * never reach the tracer: the tracer must say so in one line. Prints "own: done". */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static _Alignas(16) char arena[1 << 24];
static size_t used;

void *malloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (used + n > sizeof(arena))
		return NULL;
	void *p = arena + used;
	used += n;
	return p;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	void *p = malloc(a * b);
	if (p)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);
	if (q && p)
		memmove(q, p, n); /* a toy: copies n bytes whatever the old size */
	return q;
}

static void *volatile keep;

int main(void)
{
	keep = malloc(8 << 20);
	memset(keep, 1, 8 << 20);
	return write(1, "own: done\n", 10) == 10 ? 0 : 1;
}
