/* cxxlocal.c: a C program that opens a C++ plugin RTLD_LOCAL (build/progs/libcxxplug.so, next to
 * it) and runs it: the plugin's new finds no libstdc++ after the tracer in the global scope, and
 * must still get libstdc++'s (aligned new kept aligned, the blocks traced). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	(void)argc;
	snprintf(path, sizeof(path), "%s", argv[0]);
	char *slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "libcxxplug.so");
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	int (*run)(void) = (int (*)(void))dlsym(h, "plug_run");
	int bad = run ? run() : 3;
	printf("cxxlocal: %s\n", bad ? "misaligned" : "aligned");
	return bad;
}
