/* cu_static.c: path (3), what a statically linked CUDA runtime (>= 11.3) does: dlopen
 * libcuda.so.1, dlsym one cuGetProcAddress, ask it for cuGetProcAddress itself, then obtain
 * every driver function by base name and version, before cuInit. Modes:
 *   v2      dlsym("cuGetProcAddress_v2"), 5-argument lookups, CUDA 12000 (default)
 *   v1      dlsym("cuGetProcAddress"), 4-argument lookups, CUDA 11030
 *   ptsz    v2 with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: the _ptsz allocators
 *   newver  one 1 MiB cuMemAlloc looked up for CUDA 14000 (unknown to the tracer)
 *   flags   v2 with a flag no CUDA version defines (8): taken as the default stream mode */
#include "exercise.h"

#include <dlfcn.h>

static gpa1_t *gpa1;
static gpa2_t *gpa2;
static int ver = 12000;
static cuuint64_t flags;

static void *lookup(const char *name)
{
	void *p = NULL;
	int st = -1;
	CUresult rc = gpa2 ? gpa2(name, &p, ver, flags, &st) : gpa1(name, &p, ver, flags);
	if (rc != CUDA_SUCCESS || !p || (gpa2 && st != CU_GET_PROC_ADDRESS_SUCCESS)) {
		fprintf(stderr, "cuGetProcAddress %s failed: %d\n", name, rc);
		exit(4);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "v2";
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 7;
	}
	int *marker = dlsym(h, "cuzktrace_stub_libcuda_marker");
	check_marker(marker ? *marker : 0);
	if (!strcmp(mode, "v1")) {
		ver = 11030;
		gpa1 = dlsym(h, "cuGetProcAddress");
		/* the runtime asks for cuGetProcAddress itself and uses what it gets */
		gpa1_t *self = NULL;
		if (!gpa1 || gpa1("cuGetProcAddress", (void **)&self, ver, 0) != CUDA_SUCCESS || !self)
			return 8;
		gpa1 = self;
	} else {
		gpa2 = dlsym(h, "cuGetProcAddress_v2");
		gpa2_t *self = NULL;
		int st;
		if (!gpa2 || gpa2("cuGetProcAddress", (void **)&self, 12000, 0, &st) != CUDA_SUCCESS || !self)
			return 8;
		gpa2 = self;
	}
	if (!strcmp(mode, "ptsz"))
		flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	if (!strcmp(mode, "flags"))
		flags = 8;
	/* a lookup the driver does not know fails and nothing else happens */
	void *none = NULL;
	int st = 0;
	if ((gpa2 ? gpa2("cuNoSuchFunction", &none, ver, 0, &st) : gpa1("cuNoSuchFunction", &none, ver, 0)) ==
	    CUDA_SUCCESS)
		return 9;
	if (!strcmp(mode, "newver")) {
		CUresult (*init)(unsigned) = lookup("cuInit");
		ver = 14000;
		CUresult (*alloc)(CUdeviceptr *, size_t) = lookup("cuMemAlloc");
		CUresult (*mfree)(CUdeviceptr) = lookup("cuMemFree");
		CUdeviceptr p;
		CHECK(init(0));
		CHECK(alloc(&p, MiB));
		CHECK(mfree(p));
		puts("cu_static: done");
		return 0;
	}
	struct drv d = { lookup("cuInit"), lookup("cuDevicePrimaryCtxRetain"), lookup("cuCtxSetCurrent"),
			 lookup("cuMemAlloc"), lookup("cuMemAllocPitch"), lookup("cuMemAllocManaged"),
			 lookup("cuMemAllocHost"), lookup("cuMemHostAlloc"), NULL, NULL,
			 NULL, lookup("cuMemCreate"), lookup("cuMemHostRegister"),
			 lookup("cuMemHostUnregister"), lookup("cuMemFree"), lookup("cuMemFreeHost"), NULL,
			 lookup("cuMemRelease"), lookup("cuMemMap"), lookup("cuMemUnmap") };
	int async_ver = ver;
	ver = ver < 11020 ? 11020 : ver; /* the pool API is 11.2 */
	d.alloc_async = lookup("cuMemAllocAsync");
	d.alloc_pool = lookup("cuMemAllocFromPoolAsync");
	d.default_pool = lookup("cuDeviceGetDefaultMemPool");
	d.free_async = lookup("cuMemFreeAsync");
	ver = async_ver;
	exercise(&d);
	int *ptsz = dlsym(h, "cuzktrace_stub_ptsz_calls"), *legacy = dlsym(h, "cuzktrace_stub_legacy_async_calls");
	if (!strcmp(mode, "ptsz") ? (*ptsz != 4 || *legacy != 0) : (*ptsz != 0 || *legacy != 4)) {
		fprintf(stderr, "async calls reached the wrong variant: ptsz %d, legacy %d\n", *ptsz, *legacy);
		return 10;
	}
	puts("cu_static: done");
	return 0;
}
