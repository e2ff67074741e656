/* jemalloc_wrap.c: libjemalloc_wrap.so, a program's own library whose file name starts as
 * jemalloc's does (a wrapper, a crate's cdylib): not the allocator. jw_fill mallocs n bytes and
 * fills them. */
#include <stdlib.h>
#include <string.h>

void *jw_fill(size_t n);

__attribute__((noinline)) void *jw_fill(size_t n)
{
	void *p = malloc(n);
	return p ? memset(p, 7, n) : NULL;
}
