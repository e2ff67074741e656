/* cxxown.c: a C library that defines operator new and delete itself (the shape of an allocator
 * library such as tcmalloc), counting the calls of its new in cxx_own_news, for cxxlocal.c's
 * "other" and "needed" modes. */
#include <stddef.h>
#include <stdlib.h>

int cxx_own_news;

void *_Znwm(size_t n)
{
	cxx_own_news++;
	return malloc(n ? n : 1);
}

void _ZdlPv(void *p)
{
	free(p);
}

void _ZdlPvm(void *p, size_t n)
{
	(void)n;
	free(p);
}
