/* cu_static.c: path (3), what a statically linked CUDA runtime (>= 11.3) does: dlopen
 * libcuda.so.1, dlsym one cuGetProcAddress, ask it for cuGetProcAddress itself, then obtain
 * every driver function by base name and version, before cuInit. Modes:
 *   v2      dlsym("cuGetProcAddress_v2"), 5-argument lookups, CUDA 12000 (default)
 *   v1      dlsym("cuGetProcAddress"), 4-argument lookups, CUDA 11030
 *   ptsz    v2 with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: the _ptsz allocators
 *   v2ptsz  dlsym("cuGetProcAddress_v2_ptsz") (what cuda.h of CUDA 12 and later names
 *           cuGetProcAddress in a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM), asked
 *           with flags 0, which mean the per-thread default stream for it: the _ptsz allocators
 *   ptszself  v2, asked for cuGetProcAddress itself with the per-thread flag, which hands out
 *           cuGetProcAddress_v2_ptsz: then the same as v2ptsz
 *   newver  one 1 MiB cuMemAlloc looked up for CUDA 14000 (unknown to the tracer)
 *   flags   v2 with a flag no CUDA version defines (8): taken as the default stream mode
 *   cudart13  the lookups of the CUDA 13.0 static runtime (libcudart_static.a), in its order,
 *           at its versions: a probe with an empty name and version 0, cuInit, cuGetProcAddress
 *           at 11030 and 12000 (the runtime uses the second), then each allocator at the
 *           version of its ABI, the stream-ordered ones in both stream modes (recorded by
 *           linking a program with the toolkit's libcudart_static.a and breaking on this stub's
 *           cuGetProcAddress_v2; the runtime itself refuses a stand-in driver, it needs the
 *           driver's private export tables). cuMemAllocHost and the VMM calls, which the runtime
 *           does not look up, are looked up at their ABI's version as cudaGetDriverEntryPoint
 *           would. At the end, with nothing live, a reset of device 0 through what the runtime
 *           looks up for cudaDeviceReset: cuDevicePrimaryCtxReset at 7000, the 7.0 ABI.
 *   cudart13live  the same, then 1 MiB allocated and left live across that reset, and memory
 *           of another process opened through cuIpcOpenMemHandle at 4010 (the runtime looks it
 *           up at 4010 and 11000) and a block of its pool through cuMemPoolImportPointer at
 *           11020 */
#include "exercise.h"

#include <dlfcn.h>

static gpa1_t *gpa1;
static gpa2_t *gpa2;
static int ver = 12000;
static cuuint64_t flags;

static void *lookup_at(const char *name, int v, cuuint64_t fl)
{
	void *p = NULL;
	int st = -1;
	CUresult rc = gpa2 ? gpa2(name, &p, v, fl, &st) : gpa1(name, &p, v, fl);
	if (rc != CUDA_SUCCESS || !p || (gpa2 && st != CU_GET_PROC_ADDRESS_SUCCESS)) {
		fprintf(stderr, "cuGetProcAddress %s failed: %d\n", name, rc);
		exit(4);
	}
	return p;
}

static void *lookup(const char *name)
{
	return lookup_at(name, ver, flags);
}

/* the four stream-ordered calls of exercise() reached the stub's variant of the mode asked for
 * (per-thread default stream or legacy); returns the exit status */
static int async_calls(void *h, int want_ptsz)
{
	int *ptsz = dlsym(h, "cuzktrace_stub_ptsz_calls"), *legacy = dlsym(h, "cuzktrace_stub_legacy_async_calls");
	if (want_ptsz ? (*ptsz != 4 || *legacy != 0) : (*ptsz != 0 || *legacy != 4)) {
		fprintf(stderr, "async calls reached the wrong variant: ptsz %d, legacy %d\n", *ptsz, *legacy);
		return 10;
	}
	puts("cu_static: done");
	return 0;
}

/* the CUDA 13.0 static runtime's lookups (see cudart13 above), then with LIVE a reset while
 * 1 MiB is live and an IPC import; returns the exit status */
static int cudart13(int live)
{
	void *none = NULL;
	int st = 0;
	if (gpa2("", &none, 0, 0, &st) == CUDA_SUCCESS || none)
		return 9;
	struct drv d = { .init = lookup_at("cuInit", 2000, 0) };
	if (lookup_at("cuGetProcAddress", 11030, 0) == (void *)gpa2)
		return 8; /* the 11030 ABI is the 4-argument one */
	gpa2 = lookup_at("cuGetProcAddress", 12000, 0);
	d.default_pool = lookup_at("cuDeviceGetDefaultMemPool", 11020, 0);
	d.retain = lookup_at("cuDevicePrimaryCtxRetain", 7000, 0);
	CUresult (*reset)(CUdevice) = lookup_at("cuDevicePrimaryCtxReset", 7000, 0);
	d.set_ctx = lookup_at("cuCtxSetCurrent", 4000, 0);
	d.managed = lookup_at("cuMemAllocManaged", 6000, 0);
	d.alloc = lookup_at("cuMemAlloc", 3020, 0);
	d.pitch = lookup_at("cuMemAllocPitch", 3020, 0);
	d.free = lookup_at("cuMemFree", 3020, 0);
	d.free_host = lookup_at("cuMemFreeHost", 2000, 0);
	d.host_alloc = lookup_at("cuMemHostAlloc", 2020, 0);
	d.reg = lookup_at("cuMemHostRegister", 6050, 0);
	d.unreg = lookup_at("cuMemHostUnregister", 4000, 0);
	d.alloc_async = lookup_at("cuMemAllocAsync", 11020, 0);
	void *async_ptsz = lookup_at("cuMemAllocAsync", 11020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	d.alloc_pool = lookup_at("cuMemAllocFromPoolAsync", 11020, 0);
	void *pool_ptsz = lookup_at("cuMemAllocFromPoolAsync", 11020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	d.free_async = lookup_at("cuMemFreeAsync", 11020, 0);
	void *free_ptsz = lookup_at("cuMemFreeAsync", 11020, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	if (async_ptsz == (void *)d.alloc_async || pool_ptsz == (void *)d.alloc_pool ||
	    free_ptsz == (void *)d.free_async)
		return 11; /* the two stream modes are two functions */
	CUresult (*ipc_open)(CUdeviceptr *, CUipcMemHandle, unsigned) = lookup_at("cuIpcOpenMemHandle", 4010, 0);
	if (lookup_at("cuIpcOpenMemHandle", 11000, 0) == (void *)ipc_open)
		return 12; /* two ABIs, two functions */
	d.alloc_host = lookup_at("cuMemAllocHost", 3020, 0);
	d.create = lookup_at("cuMemCreate", 10020, 0);
	d.release = lookup_at("cuMemRelease", 10020, 0);
	d.map = lookup_at("cuMemMap", 10020, 0);
	d.unmap = lookup_at("cuMemUnmap", 10020, 0);
	exercise(&d);
	if (live) {
		CUdeviceptr a, imported;
		CUipcMemHandle ipc = { { 1 } };
		CHECK(d.alloc(&a, MiB));
		CHECK(ipc_open(&imported, ipc, 1));
		/* and a block of another process's pool (its pool imported before: any handle) */
		CUresult (*pool_import)(CUdeviceptr *, CUmemoryPool, void *) = lookup_at("cuMemPoolImportPointer", 11020, 0);
		char share[64] = { 1 };
		CUdeviceptr pooled;
		CHECK(pool_import(&pooled, (CUmemoryPool)share, share));
	}
	CHECK(reset(0));
	return 0;
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
		gpa2 = dlsym(h, !strcmp(mode, "v2ptsz") ? "cuGetProcAddress_v2_ptsz" : "cuGetProcAddress_v2");
		gpa2_t *self = NULL;
		int st;
		cuuint64_t self_flags = !strcmp(mode, "ptszself") ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
		if (!gpa2 || gpa2("cuGetProcAddress", (void **)&self, 12000, self_flags, &st) != CUDA_SUCCESS || !self)
			return 8;
		gpa2 = self;
	}
	if (!strcmp(mode, "cudart13") || !strcmp(mode, "cudart13live")) {
		int rc = cudart13(!strcmp(mode, "cudart13live"));
		if (rc)
			return rc;
		return async_calls(h, 0);
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
	return async_calls(h, !strcmp(mode, "ptsz") || !strcmp(mode, "v2ptsz") || !strcmp(mode, "ptszself"));
}
