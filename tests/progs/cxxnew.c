/* cxxnew.c: what a C++ program does, from C: it needs the shared libstdc++ (linked by path, no
 * C++ compiler needed) and allocates with operator new by its mangled name: 50 MiB and 1000
 * blocks of 1000 bytes, freed with delete; then one malloc of 100,000 bytes. Run with
 * libnewalloc.so preloaded after the tracer (an allocator that serves new itself), or alone. */
#include <stdio.h>
#include <stdlib.h>

void *_Znwm(unsigned long n);
void _ZdlPv(void *p);

static void *volatile keep[1001];

int main(void)
{
	keep[0] = _Znwm(50ul << 20);
	for (int i = 1; i <= 1000; i++)
		keep[i] = _Znwm(1000);
	void *volatile m = malloc(100000);
	for (int i = 0; i <= 1000; i++)
		_ZdlPv(keep[i]);
	free(m);
	puts("cxxnew: done");
	return 0;
}
