/* gpu_driver.c: tests/gpu/run.sh's program when no CUDA toolkit (nvcc) is installed. Built by
 * the C compiler alone (our own declarations of the few driver functions it calls), it reaches
 * the real driver the way a static CUDA runtime does: dlopen libcuda.so.1 RTLD_LOCAL, dlsym
 * cuGetProcAddress_v2 (cuGetProcAddress for a driver older than 12.0), ask it for
 * cuGetProcAddress itself, then look every function up by base name and CUDA version. It makes
 * the allocations of gpu_alloc.cu and one VMM allocation (cuMemCreate, a multiple of the
 * device's granularity), and prints the same "delta NAME BYTES" / "expect KIND BYTES" lines. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct { /* CUmemAllocationProp (cuda.h, CUDA 10.2 to 13.x) */
	int type;                 /* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
	int requestedHandleTypes; /* CU_MEM_HANDLE_TYPE_NONE = 0 */
	struct { int type; int id; } location; /* CU_MEM_LOCATION_TYPE_DEVICE = 1, ordinal */
	void *win32HandleMetaData;
	struct { unsigned char compressionType, gpuDirectRDMACapable; unsigned short usage;
		 unsigned char reserved[4]; } allocFlags;
} CUmemAllocationProp;
typedef CUresult gpa1_t(const char *, void **, int, unsigned long long);
typedef CUresult gpa2_t(const char *, void **, int, unsigned long long, int *);

#define MiB (1024ull * 1024ull)
#define CU_MEMHOSTALLOC_PORTABLE 1u
#define CU_MEM_ATTACH_GLOBAL 1u

static gpa1_t *gpa1;
static gpa2_t *gpa2;
static int ver;

static void *lookup(const char *name)
{
	void *p = NULL;
	int st = -1;
	CUresult rc = gpa2 ? gpa2(name, &p, ver, 0, &st) : gpa1(name, &p, ver, 0);
	if (rc != 0 || !p) {
		fprintf(stderr, "gpu_driver: cuGetProcAddress(%s, %d) failed: %d (status %d)\n", name, ver, rc, st);
		exit(1);
	}
	return p;
}

#define CHECK(x)                                                                      \
	do {                                                                          \
		CUresult e_ = (x);                                                    \
		if (e_ != 0) {                                                        \
			fprintf(stderr, "%s:%d: %s: CUDA error %d\n", __FILE__, __LINE__, #x, e_); \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

static CUresult (*mem_get_info)(size_t *, size_t *);

static size_t used_now(void)
{
	size_t free_b = 0, total_b = 0;
	CHECK(mem_get_info(&free_b, &total_b));
	return total_b - free_b;
}

int main(void)
{
	const size_t dev_n = 256 * MiB, host1_n = 64 * MiB, host2_n = 128 * MiB, pool_n = 96 * MiB,
		     managed_n = 32 * MiB;
	size_t vmm_n = 64 * MiB;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "gpu_driver: dlopen libcuda.so.1: %s\n", dlerror());
		return 1;
	}
	if ((gpa2 = (gpa2_t *)dlsym(h, "cuGetProcAddress_v2")) != NULL) {
		ver = 12000;
		gpa2_t *self = NULL;
		int st = 0;
		CHECK(gpa2("cuGetProcAddress", (void **)&self, ver, 0, &st));
		if (self)
			gpa2 = self;
	} else if ((gpa1 = (gpa1_t *)dlsym(h, "cuGetProcAddress")) != NULL) {
		ver = 11030;
		gpa1_t *self = NULL;
		CHECK(gpa1("cuGetProcAddress", (void **)&self, ver, 0));
		if (self)
			gpa1 = self;
	} else {
		fprintf(stderr, "gpu_driver: libcuda.so.1 has no cuGetProcAddress (driver older than CUDA 11.3)\n");
		return 1;
	}

	CUresult (*init)(unsigned) = lookup("cuInit");
	CUresult (*device_get)(CUdevice *, int) = lookup("cuDeviceGet");
	CUresult (*retain)(CUcontext *, CUdevice) = lookup("cuDevicePrimaryCtxRetain");
	CUresult (*set_ctx)(CUcontext) = lookup("cuCtxSetCurrent");
	CUresult (*alloc)(CUdeviceptr *, size_t) = lookup("cuMemAlloc");
	CUresult (*alloc_host)(void **, size_t) = lookup("cuMemAllocHost");
	CUresult (*host_alloc)(void **, size_t, unsigned) = lookup("cuMemHostAlloc");
	CUresult (*alloc_async)(CUdeviceptr *, size_t, CUstream) = lookup("cuMemAllocAsync");
	CUresult (*managed)(CUdeviceptr *, size_t, unsigned) = lookup("cuMemAllocManaged");
	CUresult (*granularity)(size_t *, const CUmemAllocationProp *, int) =
		lookup("cuMemGetAllocationGranularity");
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			   unsigned long long) = lookup("cuMemCreate");
	CUresult (*release)(CUmemGenericAllocationHandle) = lookup("cuMemRelease");
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long) =
		lookup("cuMemAddressReserve");
	CUresult (*addr_free)(CUdeviceptr, size_t) = lookup("cuMemAddressFree");
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) =
		lookup("cuMemMap");
	CUresult (*unmap)(CUdeviceptr, size_t) = lookup("cuMemUnmap");
	CUresult (*mfree)(CUdeviceptr) = lookup("cuMemFree");
	CUresult (*free_host)(void *) = lookup("cuMemFreeHost");
	CUresult (*free_async)(CUdeviceptr, CUstream) = lookup("cuMemFreeAsync");
	CUresult (*sync)(CUstream) = lookup("cuStreamSynchronize");
	mem_get_info = lookup("cuMemGetInfo");

	CUdevice dev;
	CUcontext ctx;
	CHECK(init(0));
	CHECK(device_get(&dev, 0));
	CHECK(retain(&ctx, dev));
	CHECK(set_ctx(ctx));

	CUdeviceptr d = 0, d2 = 0, pool = 0, man = 0, va = 0;
	const size_t dev2_n = 32 * MiB;
	void *host1 = NULL, *host2 = NULL;
	CUmemGenericAllocationHandle vh = 0;
	CUmemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = 1;
	prop.location.type = 1;
	prop.location.id = dev;
	size_t g = 0;
	CHECK(granularity(&g, &prop, 0 /* CU_MEM_ALLOC_GRANULARITY_MINIMUM */));
	if (g)
		vmm_n = (vmm_n + g - 1) / g * g;

	size_t u0 = used_now();
	CHECK(alloc(&d, dev_n));
	size_t u1 = used_now();

	CHECK(alloc_host(&host1, host1_n));
	CHECK(host_alloc(&host2, host2_n, CU_MEMHOSTALLOC_PORTABLE));
	((volatile char *)host1)[0] = 1;
	((volatile char *)host2)[0] = 1;

	size_t u2 = used_now();
	CHECK(alloc_async(&pool, pool_n, NULL));
	CHECK(sync(NULL));
	size_t u3 = used_now();
	printf("delta pool %zu\n", u3 - u2);

	CHECK(create(&vh, vmm_n, &prop, 0));
	size_t u4 = used_now();
	printf("delta vmm %zu\n", u4 - u3);
	/* mapped, then released at once (as NVIDIA's samples do): the memory lives until it is
	 * unmapped, so it is still counted at the peak the next allocation makes */
	CHECK(reserve(&va, vmm_n, 0, 0, 0));
	CHECK(map(va, vmm_n, 0, vh, 0));
	CHECK(release(vh));
	size_t u5 = used_now();
	CHECK(alloc(&d2, dev2_n));
	size_t u6 = used_now();
	/* both device allocations, as "expect device" counts them */
	printf("delta device %zu\n", (u1 - u0) + (u6 - u5));

	CHECK(managed(&man, managed_n, CU_MEM_ATTACH_GLOBAL));

	printf("expect device %zu\n", dev_n + dev2_n);
	printf("expect pool %zu\n", pool_n);
	printf("expect vmm %zu\n", vmm_n);
	printf("expect gpu %zu\n", dev_n + dev2_n + pool_n + vmm_n);
	printf("expect pinned %zu\n", host1_n + host2_n);
	printf("expect managed %zu\n", managed_n);
	fflush(stdout);

	CHECK(free_async(pool, NULL));
	CHECK(sync(NULL));
	CHECK(unmap(va, vmm_n));
	CHECK(addr_free(va, vmm_n));
	CHECK(mfree(d2));
	CHECK(mfree(d));
	CHECK(free_host(host1));
	CHECK(free_host(host2));
	CHECK(mfree(man));
	printf("gpu_driver: done\n");
	return 0;
}
