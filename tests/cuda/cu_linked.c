/* cu_linked.c: path (1), a program linked with -lcuda calling the exported driver symbols.
 * "both": allocations go through a runtime-like layer that got its driver pointers from
 * cuGetProcAddress, frees through the linked symbols: every byte must still count once.
 * "phase": the same as without arguments, inside the phase "gpuwork" (pushed with the shim).
 * "keep": the same, then 4 MiB on the device (keep_device), 1 MiB pinned (keep_pinned), 2 MiB
 * managed and a registration of 3 MiB left live at exit.
 * "reset": after the same, the primary context reset with nothing live, then with 1 MiB live
 * (cudaDeviceReset), twice.
 * "release": after the same, device 0's primary context released (its last reference: the
 * driver destroys it) with nothing live; then retained again, 1 MiB on the device, not freed,
 * retained once more and released twice: the first release leaves the context active, the
 * second destroys it (and frees the 1 MiB) with no call the tracer records.
 * "refused": after the same, 4 MiB on the device whose first cuMemFree the driver refuses
 * (error 201, no current context: the stub's cuzktrace_stub_refuse_next_free), then 1 MiB,
 * then its free again, accepted, and the 1 MiB's; then 64 KiB registered and unregistered twice
 * (the driver's second answer: 713, not registered).
 * "vmmreset": after the same, a VMM handle of 2 MiB mapped, released (its memory lives while
 * mapped), then the primary context reset.
 * "ctxmap": after the same (run with CKT_STUB_CTX_MAP=1: device 0's context holds 1 MiB the
 * driver mapped when it was first retained), device 0's primary context reset with nothing
 * live: the driver unmaps that 1 MiB inside the reset.
 * "regreset": after the same, 1 MiB of heap registered (cuMemHostRegister) and kept registered
 * across a reset (cuDevicePrimaryCtxReset_v2) with nothing allocated live, then 1 MiB on the
 * device and a reset through the 7.0 ABI (cuDevicePrimaryCtxReset) with both live.
 * "retainreset": after the same, 1 MiB on the device kept, a VMM handle of 2 MiB mapped, a
 * reference to it retained (cuMemRetainAllocationHandle), unmapped, released twice (the handle
 * and the reference, as NCCL frees its buffers), then the primary context reset.
 * "refsreset": after the same, a handle imported (cuMemImportFromShareableHandle) and kept; a
 * VMM handle of 2 MiB mapped, a reference to it retained, unmapped and the handle released
 * (the trace ends its memory there); then the primary context reset: nothing the figures
 * count is live.
 * "untraced": after the same, two CUDA arrays (linked symbol), a 3D and a mipmapped one, a
 * graph's memory node, and a retained reference to a mapped VMM handle (through
 * cuGetProcAddress): memory the tracer says once per entry point it does not count.
 * "race" instead of all that: two threads' first allocations at once, 1 MiB on device 0 and,
 * 50 ms later, 2 MiB on device 1 (run with CKT_STUB_SLOW_VERSION_MS=300: the tracer resolves
 * the driver during the first; the second must wait for it, not go without its device).
 * "tls DIR N" instead of all that: dlopen DIR/1.so .. DIR/N.so (libraries with TLS), then 64 KiB
 * pinned and its free: the allocation's stack capture runs glibc's TLS-table update, whose
 * allocations are traced.
 * "pinnedbig N" instead of all that: 4 rounds of N MiB pinned (cuMemHostAlloc), every page
 * touched, then cuMemFreeHost, which unmaps them during the call (an RSS sample then must not
 * count pages the trace has freed).
 * "syncfree N" instead of all that: 1 MiB pinned, then its cuMemFreeHost (run with
 * CKT_STUB_SLOW_FREEHOST_MS: the driver waits for the device first, moving no page) while a
 * thread touches N MiB of a mapping, 64 KiB a millisecond, until the free returns. */
#include "cuzktrace_shim.h"
#include "exercise.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <stdint.h>
#include <time.h>

static gpa2_t *gpa;

static void *lookup(const char *name, int ver)
{
	void *p = NULL;
	int st = -1;
	if (gpa(name, &p, ver, 0, &st) != CUDA_SUCCESS || !p || st != 0) {
		fprintf(stderr, "lookup of %s failed\n", name);
		exit(4);
	}
	return p;
}

/* a stand-in for the CUDA runtime's cudaMalloc: the driver call underneath is what counts */
static CUresult (*rt_alloc)(CUdeviceptr *, size_t);
CUresult cudaMalloc(CUdeviceptr *p, size_t n);
CUresult cudaMalloc(CUdeviceptr *p, size_t n) { return rt_alloc(p, n); }

/* "keep"'s device and pinned memory, each from a function of its own: the sites of the lists
 * of CUDA memory live at exit */
static __attribute__((noinline)) void keep_device(void)
{
	CUdeviceptr p;
	CHECK(cuMemAlloc_v2(&p, 4 * MiB));
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void keep_pinned(void)
{
	void *h;
	CHECK(cuMemAllocHost_v2(&h, MiB));
	__asm__ volatile("" ::: "memory");
}

static void *race_alloc(void *arg)
{
	int dev = (int)(intptr_t)arg;
	CUcontext c;
	CUdeviceptr p;
	CHECK(cuDevicePrimaryCtxRetain(&c, dev));
	CHECK(cuCtxSetCurrent(c));
	CHECK(cuMemAlloc_v2(&p, (size_t)(dev + 1) * MiB));
	return NULL;
}

/* "syncfree": touches toucher_n bytes of one mapping, 64 KiB a millisecond, until told */
static size_t toucher_n;
static atomic_int toucher_stop;
static void *toucher(void *arg)
{
	(void)arg;
	char *m = mmap(NULL, toucher_n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		exit(3);
	struct timespec ms = { 0, 1000000 };
	for (size_t off = 0; !atomic_load(&toucher_stop); off = (off + 65536) % toucher_n) {
		memset(m + off, 1, 65536);
		nanosleep(&ms, NULL);
	}
	munmap(m, toucher_n);
	return NULL;
}

int main(int argc, char **argv)
{
	check_marker(cuzktrace_stub_libcuda_marker);
	if (argc > 1 && !strcmp(argv[1], "race")) {
		pthread_t a, b;
		struct timespec gap = { 0, 50000000 };
		CHECK(cuInit(0));
		if (pthread_create(&a, NULL, race_alloc, (void *)0))
			return 1;
		nanosleep(&gap, NULL);
		if (pthread_create(&b, NULL, race_alloc, (void *)1))
			return 1;
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		puts("cu_linked: done");
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "tls")) {
		void *h;
		CHECK(cuInit(0));
		for (int i = 1; i <= atoi(argv[3]); i++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%d.so", argv[2], i);
			if (!dlopen(path, RTLD_NOW)) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
		}
		CHECK(cuMemAllocHost_v2(&h, 64 * 1024));
		CHECK(cuMemFreeHost(h));
		puts("cu_linked: done");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "syncfree")) {
		void *h;
		pthread_t th;
		toucher_n = strtoul(argv[2], NULL, 10) << 20;
		CHECK(cuInit(0));
		CHECK(cuMemHostAlloc(&h, MiB, 0));
		memset(h, 1, MiB);
		if (pthread_create(&th, NULL, toucher, NULL))
			return 1;
		CHECK(cuMemFreeHost(h));
		atomic_store(&toucher_stop, 1);
		pthread_join(th, NULL);
		puts("cu_linked: done");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "pinnedbig")) {
		size_t n = strtoul(argv[2], NULL, 10) << 20;
		CHECK(cuInit(0));
		for (int r = 0; r < 4; r++) {
			void *h;
			CHECK(cuMemHostAlloc(&h, n, 0));
			memset(h, r + 1, n);
			__asm__ volatile("" : : "r"(h) : "memory");
			CHECK(cuMemFreeHost(h));
		}
		puts("cu_linked: done");
		return 0;
	}
	struct drv d = { cuInit, cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuMemAlloc_v2,
			 cuMemAllocPitch_v2, cuMemAllocManaged, cuMemAllocHost_v2, cuMemHostAlloc,
			 cuMemAllocAsync, cuMemAllocFromPoolAsync, cuDeviceGetDefaultMemPool,
			 cuMemCreate, cuMemHostRegister_v2, cuMemHostUnregister, cuMemFree_v2,
			 cuMemFreeHost, cuMemFreeAsync, cuMemRelease, cuMemMap, cuMemUnmap };
	if (argc > 1 && !strcmp(argv[1], "both")) {
		gpa = cuGetProcAddress_v2;
		rt_alloc = lookup("cuMemAlloc", 12000);
		d.alloc = cudaMalloc;
		d.pitch = lookup("cuMemAllocPitch", 12000);
		d.managed = lookup("cuMemAllocManaged", 12000);
		d.alloc_host = lookup("cuMemAllocHost", 12000);
		d.host_alloc = lookup("cuMemHostAlloc", 12000);
		d.alloc_async = lookup("cuMemAllocAsync", 12000);
		d.create = lookup("cuMemCreate", 12000);
	}
	int phase = argc > 1 && !strcmp(argv[1], "phase");
	if (phase)
		cuzktrace_shim_phase_push("gpuwork");
	exercise(&d);
	if (phase)
		cuzktrace_shim_phase_pop();
	if (argc > 1 && !strcmp(argv[1], "keep")) {
		CUdeviceptr m;
		char *reg = malloc(3 * MiB);
		sink = reg;
		keep_device();
		keep_pinned();
		CHECK(cuMemAllocManaged(&m, 2 * MiB, 1));
		CHECK(cuMemHostRegister_v2(reg, 3 * MiB, 0));
	}
	if (argc > 1 && !strcmp(argv[1], "reset")) {
		/* everything above was freed: a reset now leaves nothing behind; then 1 MiB on the
		 * device, not freed, and the reset again (cudaDeviceReset), twice */
		CUdeviceptr m;
		CHECK(cuDevicePrimaryCtxReset_v2(0));
		CHECK(cuMemAlloc_v2(&m, MiB));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
	}
	if (argc > 1 && !strcmp(argv[1], "release")) {
		CUcontext c;
		CUdeviceptr m;
		CHECK(cuDevicePrimaryCtxRelease_v2(0));
		CHECK(cuDevicePrimaryCtxRetain(&c, 0));
		CHECK(cuCtxSetCurrent(c));
		CHECK(cuMemAlloc_v2(&m, MiB));
		CHECK(cuDevicePrimaryCtxRetain(&c, 0));
		CHECK(cuDevicePrimaryCtxRelease_v2(0));
		CHECK(cuDevicePrimaryCtxRelease_v2(0));
		if (cuDevicePrimaryCtxRelease_v2(0) != CUDA_ERROR_INVALID_CONTEXT)
			return 15;
	}
	if (argc > 1 && !strcmp(argv[1], "refused")) {
		CUdeviceptr a, b;
		CHECK(cuMemAlloc_v2(&a, 4 * MiB));
		cuzktrace_stub_refuse_next_free = 201;
		if (cuMemFree_v2(a) != 201)
			exit(5);
		CHECK(cuMemAlloc_v2(&b, MiB));
		CHECK(cuMemFree_v2(a));
		CHECK(cuMemFree_v2(b));
		/* a registration undone twice: the second is the driver's "not registered" (713),
		 * a pointer that entry point does not free, said nothing of as INVALID_VALUE is */
		static char reg[64 * 1024];
		CHECK(cuMemHostRegister_v2(reg, sizeof(reg), 0));
		CHECK(cuMemHostUnregister(reg));
		if (cuMemHostUnregister(reg) != 713)
			exit(6);
	}
	if (argc > 1 && !strcmp(argv[1], "vmmreset")) {
		CUmemGenericAllocationHandle h;
		CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
					     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
		CHECK(cuMemCreate(&h, 2 * MiB, &prop, 0));
		CHECK(cuMemMap(0x7c0000000000ull, 2 * MiB, 0, h, 0));
		CHECK(cuMemRelease(h));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
	}
	if (argc > 1 && !strcmp(argv[1], "retainreset")) {
		CUdeviceptr m;
		CUmemGenericAllocationHandle h, h2;
		CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
					     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
		CHECK(cuMemAlloc_v2(&m, MiB));
		CHECK(cuMemCreate(&h, 2 * MiB, &prop, 0));
		CHECK(cuMemMap(0x7c0000000000ull, 2 * MiB, 0, h, 0));
		CHECK(cuMemRetainAllocationHandle(&h2, (void *)0x7c0000000000ull));
		CHECK(cuMemUnmap(0x7c0000000000ull, 2 * MiB));
		CHECK(cuMemRelease(h));
		CHECK(cuMemRelease(h2));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
	}
	if (argc > 1 && !strcmp(argv[1], "refsreset")) {
		CUmemGenericAllocationHandle h, h2, h3;
		CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
					     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
		CHECK(cuMemImportFromShareableHandle(&h3, (void *)(uintptr_t)7, 1));
		CHECK(cuMemCreate(&h, 2 * MiB, &prop, 0));
		CHECK(cuMemMap(0x7c0000000000ull, 2 * MiB, 0, h, 0));
		CHECK(cuMemRetainAllocationHandle(&h2, (void *)0x7c0000000000ull));
		CHECK(cuMemUnmap(0x7c0000000000ull, 2 * MiB));
		CHECK(cuMemRelease(h));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
		CHECK(cuMemRelease(h2));
		CHECK(cuMemRelease(h3));
	}
	if (argc > 1 && !strcmp(argv[1], "ctxmap"))
		CHECK(cuDevicePrimaryCtxReset_v2(0));
	if (argc > 1 && !strcmp(argv[1], "regreset")) {
		CUdeviceptr m;
		char *reg = malloc(MiB);
		sink = reg;
		memset(reg, 3, MiB);
		CHECK(cuMemHostRegister_v2(reg, MiB, 0));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
		CHECK(cuMemAlloc_v2(&m, MiB));
		CHECK(cuDevicePrimaryCtxReset(0));
	}
	if (argc > 1 && !strcmp(argv[1], "vmmtiled")) {
		/* four handles mapped back to back and released, one unmap of the whole range,
		 * one handle mapped twice and unmapped by one call each, then a reset: nothing
		 * live (the one unmap took one mapping off the tracer's count: a reset warned) */
		CUmemGenericAllocationHandle h[4];
		CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
					     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
		const CUdeviceptr va = 0x7c0000000000ull;
		for (int i = 0; i < 4; i++) {
			CHECK(cuMemCreate(&h[i], 2 * MiB, &prop, 0));
			CHECK(cuMemMap(va + (CUdeviceptr)i * 2 * MiB, 2 * MiB, 0, h[i], 0));
			CHECK(cuMemRelease(h[i]));
		}
		CHECK(cuMemUnmap(va, 8 * MiB));
		CHECK(cuMemCreate(&h[0], 2 * MiB, &prop, 0));
		CHECK(cuMemMap(va, 2 * MiB, 0, h[0], 0));
		CHECK(cuMemMap(va + 2 * MiB, 2 * MiB, 0, h[0], 0));
		CHECK(cuMemRelease(h[0]));
		CHECK(cuMemUnmap(va, 4 * MiB));
		CHECK(cuDevicePrimaryCtxReset_v2(0));
	}
	if (argc > 1 && !strcmp(argv[1], "untraced")) {
		static const char desc[24]; /* the stub reads no descriptor */
		void *arr;
		CUmemGenericAllocationHandle h, h2;
		CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
					     .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 } };
		CUresult (*retain)(CUmemGenericAllocationHandle *, void *);
		gpa = cuGetProcAddress_v2;
		retain = lookup("cuMemRetainAllocationHandle", 12000);
		CHECK(cuArrayCreate_v2(&arr, desc));
		CHECK(cuArrayCreate_v2(&arr, desc));
		CHECK(cuArray3DCreate_v2(&arr, desc));
		CHECK(cuMipmappedArrayCreate(&arr, desc, 2));
		CHECK(cuGraphAddMemAllocNode(&arr, (void *)desc, NULL, 0, (void *)desc));
		CHECK(cuMemCreate(&h, 2 * MiB, &prop, 0));
		CHECK(cuMemMap(0x7c0000000000ull, 2 * MiB, 0, h, 0));
		CHECK(retain(&h2, (void *)0x7c0000000000ull));
		CHECK(h2 == h ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
		CHECK(cuMemUnmap(0x7c0000000000ull, 2 * MiB));
		CHECK(cuMemRelease(h));
	}
	puts("cu_linked: done");
	return 0;
}
