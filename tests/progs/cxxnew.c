/* cxxnew.c: what a C++ program does, from C: it needs the shared libstdc++ (linked by path, no
 * C++ compiler needed) and allocates with operator new by its mangled name: 50 MiB and 1000
 * blocks of 1000 bytes, freed with delete; then one malloc of 100,000 bytes. Run with
 * libnewalloc.so preloaded after the tracer (an allocator that serves new itself), or alone.
 * With "aligned": also 777 bytes by aligned new (alignment 4096), 100 by aligned new[]
 * (alignment 64) and 0 by aligned new (alignment 64), left live at exit (libstdc++ asks
 * aligned_alloc for 4096, 128 and 64), as the program's first calls of operator new; then
 * posix_memalign of 4096 bytes aligned to 4096, live too. */
#include <stdio.h>
#include <stdlib.h>

void *_Znwm(unsigned long n);
void _ZdlPv(void *p);
void *_ZnwmSt11align_val_t(unsigned long n, unsigned long al);
void *_ZnamSt11align_val_t(unsigned long n, unsigned long al);

static void *volatile keep[1001];

int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'a') {
		static void *volatile aligned[4];
		aligned[0] = _ZnwmSt11align_val_t(777, 4096);
		aligned[1] = _ZnamSt11align_val_t(100, 64);
		aligned[2] = _ZnwmSt11align_val_t(0, 64);
		void *pm = NULL;
		if (posix_memalign(&pm, 4096, 4096) != 0)
			return 1;
		aligned[3] = pm;
		if ((unsigned long)aligned[0] % 4096 || (unsigned long)aligned[1] % 64 ||
		    (unsigned long)aligned[2] % 64 || (unsigned long)aligned[3] % 4096)
			return 1;
	}
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
