/* cu_pools.c: allocations from CUDA memory pools of every kind, counted by what each pool holds
 * and where (tests/integration/t_cuda.sh checks the figures below). Modes, how the driver
 * functions are found:
 *   dlsym   dlsym in the handle of libcuda.so.1 (a program's own lookups)
 *   cudart  cuGetProcAddress_v2 at the versions the CUDA 13.0 static runtime asks (11020 for
 *           the pool calls, 13000 for CUDA 13's pools of a location and allocation type)
 *   ptsz    cudart with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM: the _ptsz allocators
 * With device 1's context current unless said, all live at once:
 *   a pool created on device 0, 4 MiB                  GPU, device 0
 *   a pool created on the host, 8 MiB                  pinned host RAM (real memory here)
 *   a pool created on host NUMA node 0, 2 MiB          pinned host RAM (with ptsz: on the
 *                                                      calling thread's NUMA node)
 *   CUDA 13's default managed pool, 3 MiB              managed
 *   a managed pool created on device 1, 1 MiB          managed
 *   cuMemAllocAsync, 2 MiB                             GPU, device 1 (the current pool)
 *   device 1's current pool, device 0 current, 1 MiB   GPU, device 1
 *   a pool the tracer has not seen handed out (device 0's default pool by its handle, as a
 *   pool created before tracing), 512 KiB              GPU, as before: the current device, 1
 *   device 0's default pool, asked for now, 1 MiB      GPU, device 0
 * Peaks: GPU 8.5 MiB (device 0 5 MiB, device 1 3.5 MiB, all pool memory), pinned 10 MiB,
 * managed 4 MiB. cuMemFreeHost of the host pool's 8 MiB, which the driver refuses, comes
 * before the 2 MiB of the NUMA pool: the pinned peak holds both. Everything is freed with
 * cuMemFreeAsync or cuMemFree; then the host pool is destroyed and a pool created on device 0
 * takes its handle: 1 MiB from it is memory of device 0, left live at exit. */
#include "exercise.h"

#include <dlfcn.h>
#include <stdint.h>

static void *h;
static gpa2_t *gpa2;
static cuuint64_t flags;

static void *fn(const char *name, const char *base, int ver)
{
	void *p = NULL;
	int st = -1;
	if (!gpa2)
		p = dlsym(h, name);
	else if (gpa2(base, &p, ver, flags, &st) != CUDA_SUCCESS || st != CU_GET_PROC_ADDRESS_SUCCESS)
		p = NULL;
	if (!p) {
		fprintf(stderr, "cannot find %s\n", name);
		exit(4);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "dlsym";
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 7;
	}
	check_marker(*(int *)dlsym(h, "cuzktrace_stub_libcuda_marker"));
	int ptsz = !strcmp(mode, "ptsz");
	if (ptsz || !strcmp(mode, "cudart")) {
		gpa2 = (gpa2_t *)dlsym(h, "cuGetProcAddress_v2");
		gpa2 = (gpa2_t *)fn("cuGetProcAddress_v2", "cuGetProcAddress", 12000);
		flags = ptsz ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0;
	} else if (strcmp(mode, "dlsym")) {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	CUresult (*init)(unsigned) = fn("cuInit", "cuInit", 2000);
	CUresult (*retain)(CUcontext *, CUdevice) = fn("cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", 7000);
	CUresult (*set_ctx)(CUcontext) = fn("cuCtxSetCurrent", "cuCtxSetCurrent", 4000);
	CUresult (*create)(CUmemoryPool *, const CUmemPoolProps *) = fn("cuMemPoolCreate", "cuMemPoolCreate", 11020);
	CUresult (*destroy)(CUmemoryPool) = fn("cuMemPoolDestroy", "cuMemPoolDestroy", 11020);
	CUresult (*dev_default)(CUmemoryPool *, CUdevice) =
		fn("cuDeviceGetDefaultMemPool", "cuDeviceGetDefaultMemPool", 11020);
	CUresult (*dev_current)(CUmemoryPool *, CUdevice) = fn("cuDeviceGetMemPool", "cuDeviceGetMemPool", 11020);
	CUresult (*loc_default)(CUmemoryPool *, CUmemLocation *, int) =
		fn("cuMemGetDefaultMemPool", "cuMemGetDefaultMemPool", 13000);
	CUresult (*from_pool)(CUdeviceptr *, size_t, CUmemoryPool, CUstream) =
		fn(ptsz ? "cuMemAllocFromPoolAsync_ptsz" : "cuMemAllocFromPoolAsync", "cuMemAllocFromPoolAsync", 11020);
	CUresult (*alloc_async)(CUdeviceptr *, size_t, CUstream) =
		fn(ptsz ? "cuMemAllocAsync_ptsz" : "cuMemAllocAsync", "cuMemAllocAsync", 11020);
	CUresult (*free_async)(CUdeviceptr, CUstream) =
		fn(ptsz ? "cuMemFreeAsync_ptsz" : "cuMemFreeAsync", "cuMemFreeAsync", 11020);
	CUresult (*free_dev)(CUdeviceptr) = fn("cuMemFree_v2", "cuMemFree", 3020);
	CUresult (*free_host)(void *) = fn("cuMemFreeHost", "cuMemFreeHost", 2000);

	CUcontext c0, c1;
	CUmemoryPool p0, ph, pn, pm, pm1, pd1, pd0, pv;
	CUdeviceptr a0, h1, h2, m1, m2, as, d1, d0, unseen, v;
	CUmemPoolProps props;
	CUmemLocation none = { CU_MEM_LOCATION_TYPE_NONE, 0 };

	CHECK(init(0));
	CHECK(retain(&c0, 0));
	CHECK(retain(&c1, 1));
	CHECK(set_ctx(c1));
	memset(&props, 0, sizeof(props));
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 0;
	CHECK(create(&p0, &props));
	CHECK(from_pool(&a0, 4 * MiB, p0, NULL));
	props.location.type = CU_MEM_LOCATION_TYPE_HOST;
	CHECK(create(&ph, &props));
	CHECK(from_pool(&h1, 8 * MiB, ph, NULL));
	/* not memory cuMemFreeHost frees: the driver refuses, the 8 MiB stay */
	if (free_host((void *)(uintptr_t)h1) == CUDA_SUCCESS)
		return 13;
	/* the NUMA node by number; with ptsz, the calling thread's node (the same memory) */
	props.location.type = ptsz ? CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT : CU_MEM_LOCATION_TYPE_HOST_NUMA;
	CHECK(create(&pn, &props));
	CHECK(from_pool(&h2, 2 * MiB, pn, NULL));
	CHECK(loc_default(&pm, &none, CU_MEM_ALLOCATION_TYPE_MANAGED));
	CHECK(from_pool(&m1, 3 * MiB, pm, NULL));
	props.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 1;
	CHECK(create(&pm1, &props));
	CHECK(from_pool(&m2, MiB, pm1, NULL));
	CHECK(alloc_async(&as, 2 * MiB, NULL));
	CHECK(set_ctx(c0));
	CHECK(dev_current(&pd1, 1));
	CHECK(from_pool(&d1, MiB, pd1, NULL));
	CHECK(set_ctx(c1));
	CHECK(from_pool(&unseen, MiB / 2, (CUmemoryPool)(uintptr_t)0x100, NULL));
	CHECK(dev_default(&pd0, 0));
	if (pd0 != (CUmemoryPool)(uintptr_t)0x100)
		return 18;
	CHECK(from_pool(&d0, MiB, pd0, NULL));
	/* everything is live: RSS samples see the host pools' 10 MiB. 4 MiB more of heap, touched,
	 * only meanwhile, make this the peak RSS (as in exercise.h) */
	char *volatile hold = malloc(4 * MiB);
	if (!hold)
		return 14;
	memset(hold, 2, 4 * MiB);
	usleep(60 * 1000);
	free(hold);

	CHECK(free_async(a0, NULL));
	CHECK(free_async(h1, NULL));
	CHECK(free_dev(h2));
	CHECK(free_dev(m1));
	CHECK(free_async(m2, NULL));
	CHECK(free_async(as, NULL));
	CHECK(free_async(d1, NULL));
	CHECK(free_dev(d0));
	CHECK(free_async(unseen, NULL));
	/* a default pool cannot be destroyed (the driver refuses); the others can */
	if (destroy(pd0) == CUDA_SUCCESS)
		return 15;
	CHECK(destroy(ph));
	CHECK(destroy(pn));
	CHECK(destroy(pm1));
	/* a new pool on device 0 takes the host pool's handle (the stub hands out the lowest free) */
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = 0;
	CHECK(create(&pv, &props));
	if (pv != ph)
		return 16;
	CHECK(from_pool(&v, MiB, pv, NULL));
	CHECK(destroy(p0));
	int *ptsz_calls = dlsym(h, "cuzktrace_stub_ptsz_calls");
	if (ptsz != (*ptsz_calls != 0))
		return 17;
	puts("cu_pools: done");
	return 0;
}
