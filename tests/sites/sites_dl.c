/* sites_dl.c: allocates 1,200,000 bytes through libsites_dla.so, dlcloses it, then 900,000 through
 * libsites_dlb.so, which the loader usually maps at the same addresses. Both blocks stay live:
 * each must be charged to its own library's function. The libraries are found next to the
 * program (argv[0]'s directory). */
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*alloc_fn)(size_t);
static void *volatile keep[2];

static void *use(const char *dir, const char *lib, const char *fn, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, lib);
	void *h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "sites_dl: %s\n", dlerror());
		exit(2);
	}
	void *p = ((alloc_fn)dlsym(h, fn))(n);
	dlclose(h);
	return p;
}

int main(int argc, char **argv)
{
	(void)argc;
	char self[4096];
	snprintf(self, sizeof(self), "%s", argv[0]);
	const char *dir = dirname(self);
	keep[0] = use(dir, "libsites_dla.so", "a_alloc", 1200000);
	keep[1] = use(dir, "libsites_dlb.so", "b_alloc", 900000);
	usleep(30000);
	return 0;
}
