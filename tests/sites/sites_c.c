/* sites_c.c: known call paths for the site report, built -O2 -fomit-frame-pointer -g.
 * Live at both peaks: 3,145,851 bytes from the static inline helper grab_rows (inlined into
 * build_rows) and 2,097,229 bytes from sites_lib_alloc in the dlopened libsites_lib.so; at the
 * peak RSS also a touched 1 MiB anonymous mapping from map_cache. A 1 MiB scratch block is
 * freed before any of them exists. Lines marked SITE:/CALL: are what the test looks for.
 * Every block escapes into a volatile global; helpers have distinct bodies (-fipa-icf). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *volatile keep[4];

static inline void *grab_rows(size_t n)
{
	char *p = malloc(n); /* SITE:c_inline */
	memset(p, 0x11, n);
	return p;
}

__attribute__((noinline)) static void build_rows(void)
{
	keep[0] = grab_rows(3 * 1024 * 1024 + 123); /* CALL:c_inline */
}

__attribute__((noinline)) static void scratch(void)
{
	char *p = malloc(1024 * 1024); /* SITE:c_scratch */
	memset(p, 0x44, 1024 * 1024);
	keep[3] = p;
	free(keep[3]);
	keep[3] = NULL;
}

__attribute__((noinline)) static void map_cache(void)
{
	char *m = mmap(NULL, 1024 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); /* SITE:c_mmap */
	if (m == MAP_FAILED)
		exit(3);
	memset(m, 0x55, 1024 * 1024);
	keep[2] = m;
}

int main(int argc, char **argv)
{
	scratch();
	build_rows();
	/* argv[1]: the library by another path (a relative one: "./sites/libsites_lib.so") */
	void *h = dlopen(argc > 1 ? argv[1] : "libsites_lib.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "sites_c: %s\n", dlerror());
		return 2;
	}
	void *(*lib_alloc)(size_t) = (void *(*)(size_t))dlsym(h, "sites_lib_alloc");
	keep[1] = lib_alloc(2 * 1024 * 1024 + 77);
	map_cache();
	usleep(150 * 1000); /* several RSS samples with everything live */
	free(keep[0]);
	free(keep[1]);
	munmap(keep[2], 1024 * 1024);
	usleep(30 * 1000);
	puts("sites_c: done");
	return 0;
}
