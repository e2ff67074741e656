/* cxxlocal.c: a C program that opens C++ plugins (build/progs/libcxxplug*.so, next to it) and
 * runs them. With no argument: the plugin with the shared libstdc++, RTLD_LOCAL: its new finds
 * no libstdc++ after the tracer in the global scope, and must still get libstdc++'s (aligned
 * new kept aligned, the blocks traced, bad_alloc caught). With "static": first the plugin built
 * with -static-libstdc++, RTLD_LOCAL (its calls of new bind to the tracer's, which must pass
 * them to the plugin's own copy: a bad_alloc of another copy is not its), then the shared one
 * RTLD_GLOBAL. Prints one word per plugin: "ok" when aligned and bad_alloc was caught.
 * With "nested": opens libcxxouter.so RTLD_LOCAL, the shape of "import torch": the constructor
 * of its dependency libcxxinner.so calls new with its registry's mutex held, then its own
 * constructor registers through that mutex; prints the registry's count (2). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* lib, found next to this program */
static void *open_beside(const char *self, const char *lib, int flags)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s", self);
	char *slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, sizeof(path) - (size_t)(slash ? slash + 1 - path : 0), "%s", lib);
	void *h = dlopen(path, RTLD_NOW | flags);
	if (!h)
		fprintf(stderr, "dlopen: %s\n", dlerror());
	return h;
}

static int run(const char *self, const char *lib, int flags)
{
	void *h = open_beside(self, lib, flags);
	if (!h)
		return 2;
	int (*plug_run)(void) = (int (*)(void))dlsym(h, "plug_run");
	int (*plug_oom)(void) = (int (*)(void))dlsym(h, "plug_oom");
	int bad = !plug_run || !plug_oom || plug_run() != 0 || plug_oom() != 1;
	printf(" %s", bad ? "bad" : "ok");
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;
	if (argc > 1 && !strcmp(argv[1], "nested")) {
		void *h = open_beside(argv[0], "libcxxouter.so", RTLD_LOCAL);
		size_t (*count)(void) = h ? (size_t (*)(void))dlsym(h, "cxx_outer_count") : NULL;
		if (!count)
			return 2;
		printf("cxxlocal: nested %zu\n", count());
		return 0;
	}
	printf("cxxlocal:");
	if (argc > 1 && !strcmp(argv[1], "static"))
		bad |= run(argv[0], "libcxxplug_static.so", RTLD_LOCAL);
	bad |= run(argv[0], "libcxxplug.so", argc > 1 ? RTLD_GLOBAL : RTLD_LOCAL);
	printf("\n");
	return bad;
}
