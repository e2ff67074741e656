/* ownnew.c: an executable that exports its own C++ operator new and delete (built with
 * -rdynamic, as gcc's cc1 and programs linking libstdc++ statically do), which call malloc and
 * free. Behind the tracer, tcmalloc's malloc_usable_size makes an object with new on its first
 * call: the program's new, then malloc, inside the tracer's hook. That is the allocator's own
 * call, not a signal handler's: before tracer 0.2.23 it was counted as one, with a warning
 * and a lost event. Prints "ownnew: done". */
#include <stdio.h>
#include <stdlib.h>

void *_Znwm(unsigned long n)
{
	return malloc(n);
}

void _ZdlPv(void *p)
{
	free(p);
}

void _ZdlPvm(void *p, unsigned long n)
{
	(void)n;
	free(p);
}

int main(void)
{
	void *volatile p = malloc(100);
	free(p);
	puts("ownnew: done");
	return 0;
}
