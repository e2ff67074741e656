/* nofncall.c: allocates 4,096 bytes through nofn_alloc, a function of libnofn.so written in
 * assembly without a .type directive (tests/progs/lib/nofn.s), and keeps them: a call site
 * whose library has a compile unit without functions. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	void *(*f)(unsigned long) = h ? (void *(*)(unsigned long))dlsym(h, "nofn_alloc") : NULL;
	if (!f) {
		fprintf(stderr, "nofncall: %s\n", dlerror());
		return 3;
	}
	return f(4096) ? 0 : 4;
}
