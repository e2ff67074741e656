/* jemwrap.c: linked with libjemalloc_wrap.so (tests/progs/lib/jemalloc_wrap.c), whose jw_fill
 * makes a block of 2 MiB, kept to the end: jw_fill is its site, though its library's name
 * starts as jemalloc's. Prints "jemwrap: done". */
#include <stdio.h>

void *jw_fill(size_t n);

static void *volatile keep;

int main(void)
{
	keep = jw_fill((size_t)2 << 20);
	printf("jemwrap: %s\n", keep ? "done" : "failed");
	return 0;
}
