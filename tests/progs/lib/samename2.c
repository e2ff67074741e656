/* samename2.c: the second file of tests/progs/samename.c, linked into it: a static helper()
 * of the same name as the program's own, in another file. */
#include <stdlib.h>
#include <string.h>

void *samename2_make(size_t n);

__attribute__((noinline)) static void *helper(size_t n)
{
	return memset(malloc(n), 2, n);
}

void *samename2_make(size_t n)
{
	return helper(n);
}
