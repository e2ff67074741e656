/* cxxlocal.c: a C program that opens C++ plugins (build/progs/libcxxplug*.so, next to it) and
 * runs them. With no argument: the plugin with the shared libstdc++, RTLD_LOCAL: its new finds
 * no libstdc++ after the tracer in the global scope, and must still get libstdc++'s (aligned
 * new kept aligned, the blocks traced, bad_alloc caught). With "static": first the plugin built
 * with -static-libstdc++, RTLD_LOCAL (its calls of new bind to the tracer's, which must pass
 * them to the plugin's own copy: a bad_alloc of another copy is not its), then the shared one
 * RTLD_GLOBAL. Prints one word per plugin: "ok" when aligned and bad_alloc was caught.
 * With "nested": opens libcxxouter.so RTLD_LOCAL, the shape of "import torch": the constructor
 * of its dependency libcxxinner.so calls new with its registry's mutex held, then its own
 * constructor registers through that mutex; prints the registry's count (2).
 * With "other": opens libcxxown.so (a C library defining operator new), then libcxxvia.so (C++
 * code that reaches libstdc++ only through libcxxplug.so), both RTLD_LOCAL; prints what
 * cxx_use and cxx_oom return (libstdc++'s bad_alloc caught: 1), how many times libcxxown.so's
 * new ran (0: it is not in libcxxvia.so's scope), and cxx_use again after libcxxown.so is
 * closed: "7 1 0 7".
 * With "needed": opens libcxxplug.so (it loads libstdc++), then libcxxfirst.so, whose DT_NEEDED
 * names libcxxown.so ahead of libstdc++; prints cxx_use and libcxxown.so's count: "7 1".
 * With "highbias": takes the link address of libcxxhigh.so, opens it (the loader moves it
 * below that address), then runs libcxxplug.so as with no argument: "ok".
 * With "reload": opens libcxxplug_static.so, runs it and closes it, then the same with
 * libcxxplug_static2.so (another build, its operator new 64 KiB further in), which the loader
 * maps over addresses the first had; prints "ok" for each (answers kept for the first must
 * not serve the second).
 * With "globalfirst": opens libcxxplug_static.so RTLD_GLOBAL (its own operator new then follows
 * the tracer's in the global scope), runs it and closes it, then runs libcxxplug.so RTLD_LOCAL:
 * "ok ok" (the first's new, kept for good, was called after it was gone: SIGSEGV).
 * With "many": opens libcxxmany.so, whose DT_NEEDED names 40 C libraries ahead of libstdc++,
 * and prints cxx_use and cxx_oom: "7 1" (libstdc++'s new found past them). */
#include <sys/mman.h>
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
	if (argc > 1 && !strcmp(argv[1], "other")) {
		void *own = open_beside(argv[0], "libcxxown.so", RTLD_LOCAL);
		void *via = open_beside(argv[0], "libcxxvia.so", RTLD_LOCAL);
		int *news = own ? (int *)dlsym(own, "cxx_own_news") : NULL;
		int (*use)(void) = via ? (int (*)(void))dlsym(via, "cxx_use") : NULL;
		int (*oom)(void) = via ? (int (*)(void))dlsym(via, "cxx_oom") : NULL;
		if (!news || !use || !oom)
			return 2;
		int a = use(), b = oom(), n = *news;
		dlclose(own);
		printf("cxxlocal: other %d %d %d", a, b, n);
		fflush(stdout);
		printf(" %d\n", use());
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "needed")) {
		void *first = open_beside(argv[0], "libcxxplug.so", RTLD_LOCAL) ?
				      open_beside(argv[0], "libcxxfirst.so", RTLD_LOCAL) : NULL;
		int *news = first ? (int *)dlsym(first, "cxx_own_news") : NULL;
		int (*use)(void) = first ? (int (*)(void))dlsym(first, "cxx_use") : NULL;
		if (!news || !use)
			return 2;
		int a = use();
		printf("cxxlocal: needed %d %d\n", a, *news);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "reload")) {
		printf("cxxlocal: reload");
		for (int k = 0; k < 2; k++) {
			void *h = open_beside(argv[0], k ? "libcxxplug_static2.so" : "libcxxplug_static.so", RTLD_LOCAL);
			int (*plug_run)(void) = h ? (int (*)(void))dlsym(h, "plug_run") : NULL;
			if (!plug_run)
				return 2;
			printf(" %s", plug_run() == 0 ? "ok" : "bad");
			fflush(stdout);
			dlclose(h);
		}
		printf("\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "globalfirst")) {
		void *h = open_beside(argv[0], "libcxxplug_static.so", RTLD_GLOBAL);
		int (*plug_run)(void) = h ? (int (*)(void))dlsym(h, "plug_run") : NULL;
		if (!plug_run)
			return 2;
		printf("cxxlocal: globalfirst %s", plug_run() == 0 ? "ok" : "bad");
		fflush(stdout);
		dlclose(h);
		int bad = run(argv[0], "libcxxplug.so", RTLD_LOCAL);
		printf("\n");
		return bad;
	}
	if (argc > 1 && !strcmp(argv[1], "many")) {
		void *h = open_beside(argv[0], "libcxxmany.so", RTLD_LOCAL);
		int (*use)(void) = h ? (int (*)(void))dlsym(h, "cxx_use") : NULL;
		int (*oom)(void) = h ? (int (*)(void))dlsym(h, "cxx_oom") : NULL;
		if (!use || !oom)
			return 2;
		int a = use();
		printf("cxxlocal: many %d %d\n", a, oom());
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "highbias")) {
		/* taken, or already in use: either way the loader places the library elsewhere */
		mmap((void *)0x7ffff0000000, 1 << 21, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (!open_beside(argv[0], "libcxxhigh.so", RTLD_LOCAL))
			return 2;
		printf("cxxlocal: highbias");
		int bad = run(argv[0], "libcxxplug.so", RTLD_LOCAL);
		printf("\n");
		return bad;
	}
	printf("cxxlocal:");
	if (argc > 1 && !strcmp(argv[1], "static"))
		bad |= run(argv[0], "libcxxplug_static.so", RTLD_LOCAL);
	bad |= run(argv[0], "libcxxplug.so", argc > 1 ? RTLD_GLOBAL : RTLD_LOCAL);
	printf("\n");
	return bad;
}
