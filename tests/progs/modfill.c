/* modfill.c: dlopens COUNT libraries DIR/libm0.so .. DIR/libm<COUNT-1>.so (copies of one, made
 * by the test under a long DIR), so that the module map, which names every loaded object by its
 * path, grows past the tracer's 256 KiB; then allocates, and prints "modfill: <loaded>".
 * Usage: modfill DIR COUNT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int n = atoi(argv[2]), loaded = 0;
	static char path[8192];
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/libm%d.so", argv[1], i);
		if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "modfill: %s\n", dlerror());
			return 1;
		}
		loaded++;
	}
	keep = malloc(1000);
	printf("modfill: %d\n", loaded);
	return 0;
}
