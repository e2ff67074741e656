/* nopieaddr.c: a non-PIE program (built with -no-pie) that takes the addresses of malloc and
 * realloc, so that it exports canonical PLT stubs for them, and calls reallocarray, which it
 * does not define. Its calls reach the first definition after the executable: the tracer's,
 * or an allocator's preloaded ahead of it. With tcmalloc ahead, the tracer took the stubs for
 * nothing of an allocator's (no line) and gave reallocarray's block, tcmalloc's, to glibc's
 * realloc: "realloc(): invalid pointer", abort (before 0.2.23). Prints "nopieaddr: done". */
#include <stdio.h>
#include <stdlib.h>

void *(*volatile take_realloc)(void *, size_t);
void *(*volatile take_malloc)(size_t);

int main(void)
{
	take_realloc = realloc;
	take_malloc = malloc;
	char *s = take_malloc(100);
	s = reallocarray(s, 1000, 2);
	free(s);
	puts("nopieaddr: done");
	return 0;
}
