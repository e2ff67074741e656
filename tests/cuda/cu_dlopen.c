/* cu_dlopen.c: path (2), dlopen("libcuda.so.1") and dlsym of the _v2 names, as CUDA runtimes
 * before 11.3 did. Also checks that dlsym interposition is invisible: before the driver is
 * loaded, no cu* name resolves, and RTLD_NEXT from the executable finds what it would find
 * without an interposed dlsym (the preloaded malloc comes after the executable). */
#include "exercise.h"

#include <dlfcn.h>

static void *h;
static void *sym(const char *name)
{
	void *p = dlsym(h, name);
	if (!p) {
		fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
		exit(4);
	}
	return p;
}

int main(void)
{
	if (dlsym(RTLD_DEFAULT, "cuMemAlloc_v2") || dlsym(RTLD_DEFAULT, "cuGetProcAddress")) {
		fprintf(stderr, "a cu* name resolves before the driver is loaded\n");
		return 5;
	}
	if (dlsym(RTLD_NEXT, "malloc") != dlsym(RTLD_DEFAULT, "malloc")) {
		fprintf(stderr, "dlsym(RTLD_NEXT) is not relative to its caller\n");
		return 6;
	}
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 7;
	}
	check_marker(*(int *)sym("cuzktrace_stub_libcuda_marker"));
	struct drv d = { sym("cuInit"), sym("cuDevicePrimaryCtxRetain"), sym("cuCtxSetCurrent"),
			 sym("cuMemAlloc_v2"), sym("cuMemAllocPitch_v2"), sym("cuMemAllocManaged"),
			 sym("cuMemAllocHost_v2"), sym("cuMemHostAlloc"), sym("cuMemAllocAsync"),
			 sym("cuMemAllocFromPoolAsync"), sym("cuDeviceGetDefaultMemPool"),
			 sym("cuMemCreate"), sym("cuMemHostRegister_v2"), sym("cuMemHostUnregister"),
			 sym("cuMemFree_v2"), sym("cuMemFreeHost"), sym("cuMemFreeAsync"),
			 sym("cuMemRelease"), sym("cuMemMap"), sym("cuMemUnmap") };
	exercise(&d);
	puts("cu_dlopen: done");
	return 0;
}
