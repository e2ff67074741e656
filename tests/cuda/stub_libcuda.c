/* stub_libcuda.c: a stand-in libcuda.so.1 for tests on machines without a GPU. Fake device
 * addresses (never dereferenced), real host memory (mmap'd and touched, so it shows in RSS) for
 * pinned allocations and allocations from pools on the host, emulated stream-ordered pools
 * (each device's default pool, pools created on a device, on the host and of managed memory,
 * CUDA 13's default pools of a location), two devices. It exports
 * cuzktrace_stub_libcuda_marker, which every test program checks, so a test can never pass
 * against a real driver or the wrong library. It allocates nothing on the heap. */
#include "cu_min.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

__attribute__((visibility("default"))) int cuzktrace_stub_libcuda_marker = CKT_STUB_MARKER;
/* calls that arrived at each _ptsz variant, and at the legacy variants, for the tests */
__attribute__((visibility("default"))) int cuzktrace_stub_ptsz_calls;
__attribute__((visibility("default"))) int cuzktrace_stub_legacy_async_calls;
/* nonzero: the next cuMemFree_v2 returns this error and frees nothing (a call with no current
 * context, a sticky error), then it is 0 again */
__attribute__((visibility("default"))) int cuzktrace_stub_refuse_next_free;

#define NDEV 2
#define MAXA 4096
#define DEV_TOTAL (16ull << 30)

/* K_HPOOL: from a pool on the host (real memory); K_MPOOL: from a managed pool */
enum { K_DEV, K_MANAGED, K_POOL, K_VMM, K_PINNED, K_REG, K_HPOOL, K_MPOOL };
struct blk { uint64_t addr, size; int kind, dev, used, refs; /* refs: a VMM handle's references less one */ };
static struct blk blks[MAXA];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_addr[NDEV] = { 0x7e0000000000ull, 0x7f0000000000ull };
static uint64_t next_managed = 0x7d0000000000ull;
static uint64_t next_handle = 0x1000;
static uint64_t dev_used[NDEV], pool_used[NDEV], pool_reserved[NDEV];
static __thread int cur_dev;
static int inited;

static struct blk *find(uint64_t addr, int kind_mask)
{
	for (int i = 0; i < MAXA; i++)
		if (blks[i].used && blks[i].addr == addr && (kind_mask >> blks[i].kind & 1))
			return &blks[i];
	return NULL;
}

static int add(uint64_t addr, uint64_t size, int kind, int dev)
{
	for (int i = 0; i < MAXA; i++)
		if (!blks[i].used) {
			blks[i] = (struct blk){ addr, size, kind, dev, 1, 0 };
			return 0;
		}
	return -1;
}

static uint64_t fake_dev(int dev, uint64_t size)
{
	uint64_t a = next_addr[dev];
	next_addr[dev] += (size + 4095) & ~4095ull;
	return a;
}

CUresult cuInit(unsigned flags) { (void)flags; inited = 1; return CUDA_SUCCESS; }
/* CKT_STUB_DRIVER_VERSION: the version to report (a driver newer than the tracer knows) */
/* CKT_STUB_SLOW_VERSION_MS: take that long to answer (a tracer resolving the driver while
 * another thread allocates) */
CUresult cuDriverGetVersion(int *v)
{
	const char *e = getenv("CKT_STUB_DRIVER_VERSION"), *slow = getenv("CKT_STUB_SLOW_VERSION_MS");
	if (slow) {
		struct timespec ts = { atoi(slow) / 1000, atoi(slow) % 1000 * 1000000L };
		nanosleep(&ts, NULL);
	}
	*v = e ? atoi(e) : 12080;
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) { *n = NDEV; return CUDA_SUCCESS; }
/* each device's primary context: its references (retained minus released); active while any */
static int primary_refs[NDEV];
/* CKT_STUB_CTX_MAP=1: device 0's primary context holds 1 MiB of host memory the driver maps
 * itself, as a real one does for its context (mapped, touched, when its first reference is
 * taken, in a call the tracer does not wrap; unmapped when the context goes, by a reset or its
 * last release, calls the tracer wraps) */
#define CTX_MAP_BYTES (1u << 20)
static void *ctx_map;
static void ctx_map_make(CUdevice dev)
{
	const char *e = getenv("CKT_STUB_CTX_MAP");
	if (dev != 0 || !e || strcmp(e, "1") || __atomic_load_n(&ctx_map, __ATOMIC_RELAXED))
		return;
	void *m = mmap(NULL, CTX_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	memset(m, 0x33, CTX_MAP_BYTES);
	__atomic_store_n(&ctx_map, m, __ATOMIC_RELEASE);
}
static void ctx_map_drop(CUdevice dev)
{
	void *m = dev == 0 ? __atomic_exchange_n(&ctx_map, NULL, __ATOMIC_ACQ_REL) : NULL;
	if (m)
		munmap(m, CTX_MAP_BYTES);
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	if (dev < 0 || dev >= NDEV)
		return CUDA_ERROR_INVALID_DEVICE;
	__atomic_add_fetch(&primary_refs[dev], 1, __ATOMIC_RELAXED);
	ctx_map_make(dev);
	*ctx = (CUcontext)(uintptr_t)(dev + 1);
	return CUDA_SUCCESS;
}
/* the last reference released destroys the context, and the driver frees its memory then (the
 * stub keeps its books: the tracer must say so when the program had memory live) */
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	if (dev < 0 || dev >= NDEV)
		return CUDA_ERROR_INVALID_DEVICE;
	int n = __atomic_load_n(&primary_refs[dev], __ATOMIC_RELAXED);
	do {
		if (n == 0)
			return CUDA_ERROR_INVALID_CONTEXT;
	} while (!__atomic_compare_exchange_n(&primary_refs[dev], &n, n - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	if (n == 1)
		ctx_map_drop(dev);
	return CUDA_SUCCESS;
}
/* the 7.0 ABI, same argument */
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned *flags, int *active)
{
	if (dev < 0 || dev >= NDEV)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = 0;
	*active = __atomic_load_n(&primary_refs[dev], __ATOMIC_RELAXED) > 0;
	return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext ctx) { cur_dev = ctx ? (int)(uintptr_t)ctx - 1 : 0; return CUDA_SUCCESS; }
/* Built with -DCKT_STUB_NO_CTX_GET_DEVICE (build/cuda/nodev/): a driver without cuCtxGetDevice */
#ifndef CKT_STUB_NO_CTX_GET_DEVICE
CUresult cuCtxGetDevice(CUdevice *dev) { *dev = cur_dev; return CUDA_SUCCESS; }
#endif
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice dev)
{
	if (dev < 0 || dev >= NDEV)
		return CUDA_ERROR_INVALID_DEVICE;
	for (int i = 0; i < 16; i++)
		u->bytes[i] = (char)(0x10 * (dev + 1) + i);
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid(CUuuid *u, CUdevice dev) { return cuDeviceGetUuid_v2(u, dev); }
CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	if (dev < 0 || dev >= NDEV || len < 16)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(name, "Stub GPU 0", 11);
	name[9] = (char)('0' + dev);
	return CUDA_SUCCESS;
}
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b)
{
	*total_b = DEV_TOTAL;
	*free_b = DEV_TOTAL - dev_used[cur_dev] - pool_reserved[cur_dev];
	return CUDA_SUCCESS;
}

static CUresult dev_alloc(CUdeviceptr *dptr, size_t n, int kind, int dev)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!dptr || !n)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mu);
	uint64_t a = kind == K_MANAGED || kind == K_MPOOL ? (next_managed += (n + 4095) & ~4095ull)
								: fake_dev(dev, n);
	int rc = add(a, n, kind, dev);
	if (rc == 0 && kind == K_POOL) {
		pool_used[dev] += n;
		if (pool_used[dev] > pool_reserved[dev])
			pool_reserved[dev] = pool_used[dev];
	} else if (rc == 0 && kind != K_MANAGED && kind != K_MPOOL) {
		dev_used[dev] += n;
	}
	pthread_mutex_unlock(&mu);
	if (rc)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*dptr = a;
	return CUDA_SUCCESS;
}

static CUresult dev_free(uint64_t a, int kind_mask)
{
	pthread_mutex_lock(&mu);
	struct blk *b = find(a, kind_mask);
	uint64_t host = 0, size = 0;
	if (b) {
		if (b->kind == K_POOL)
			pool_used[b->dev] -= b->size; /* the pool keeps it reserved */
		else if (b->kind == K_HPOOL)
			host = b->addr, size = b->size; /* given back at once: RSS falls */
		else if (b->kind != K_MANAGED && b->kind != K_MPOOL)
			dev_used[b->dev] -= b->size;
		b->used = 0;
	}
	pthread_mutex_unlock(&mu);
	if (host)
		munmap((void *)(uintptr_t)host, size);
	return b ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
/* what cuMemFree and cuMemFreeAsync take: memory of every pool among it */
#define POOLS (1 << K_POOL | 1 << K_HPOOL | 1 << K_MPOOL)

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t n) { return dev_alloc(dptr, n, K_DEV, cur_dev); }
/* the v1 entry point (32-bit sizes in CUDA < 3.2): not for us to emulate */
CUresult cuMemAlloc(unsigned *dptr, unsigned n) { (void)dptr; (void)n; return CUDA_ERROR_NOT_INITIALIZED; }
/* Built with -DCKT_STUB_NO_PITCH (build/cuda/nopitch/): a driver without cuMemAllocPitch_v2 */
#ifndef CKT_STUB_NO_PITCH
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned elem)
{
	(void)elem;
	size_t p = (width + 511) & ~(size_t)511;
	CUresult rc = dev_alloc(dptr, p * height, K_DEV, cur_dev);
	if (rc == CUDA_SUCCESS)
		*pitch = p;
	return rc;
}
#endif
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t n, unsigned flags)
{
	(void)flags;
	return dev_alloc(dptr, n, K_MANAGED, cur_dev);
}
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t n, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_legacy_async_calls, 1, __ATOMIC_RELAXED);
	return dev_alloc(dptr, n, K_POOL, cur_dev);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t n, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_ptsz_calls, 1, __ATOMIC_RELAXED);
	return dev_alloc(dptr, n, K_POOL, cur_dev);
}
/* Pools: handle 0x100 + index. 0 and 1: the default pools of devices 0 and 1; 2: the default
 * pool on the host; 3: the default managed pool (no preferred location); from 4 on, created
 * ones, a destroyed one's index (and handle) going to the next created, as a driver may. */
#define NPOOLS 16
static struct { int used, kind, dev; } pools[NPOOLS] = {
	{ 1, K_POOL, 0 }, { 1, K_POOL, 1 }, { 1, K_HPOOL, -1 }, { 1, K_MPOOL, -1 },
};
static int pool_index(CUmemoryPool pool)
{
	uintptr_t i = (uintptr_t)pool - 0x100;
	return i < NPOOLS && pools[i].used ? (int)i : -1;
}
static CUmemoryPool pool_handle(int i) { return (CUmemoryPool)(uintptr_t)(0x100 + i); }
/* the device pool of device `pool_dev` (the trim below): -1 for any other pool */
static int pool_dev(CUmemoryPool pool)
{
	int i = pool_index(pool);
	return i >= 0 && pools[i].kind == K_POOL ? pools[i].dev : -1;
}
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
	if (dev < 0 || dev >= NDEV)
		return CUDA_ERROR_INVALID_DEVICE;
	*pool = pool_handle(dev);
	return CUDA_SUCCESS;
}
/* the stub sets no current pool: the current pool is the default one */
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) { return cuDeviceGetDefaultMemPool(pool, dev); }
/* CUDA 13: the default pool of a location and allocation type (pinned on a device or the host,
 * managed with no preferred location) */
CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type)
{
	if (!pool || !loc)
		return CUDA_ERROR_INVALID_VALUE;
	if (type == CU_MEM_ALLOCATION_TYPE_PINNED && loc->type == CU_MEM_LOCATION_TYPE_DEVICE)
		return cuDeviceGetDefaultMemPool(pool, loc->id);
	if (type == CU_MEM_ALLOCATION_TYPE_PINNED && loc->type == CU_MEM_LOCATION_TYPE_HOST)
		*pool = pool_handle(2);
	else if (type == CU_MEM_ALLOCATION_TYPE_MANAGED && loc->type == CU_MEM_LOCATION_TYPE_NONE)
		*pool = pool_handle(3);
	else
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}
CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type) { return cuMemGetDefaultMemPool(pool, loc, type); }
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!pool || !props)
		return CUDA_ERROR_INVALID_VALUE;
	int lt = props->location.type, id = props->location.id, kind;
	if (props->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED)
		kind = K_MPOOL;
	else if (props->allocType == CU_MEM_ALLOCATION_TYPE_PINNED && lt == CU_MEM_LOCATION_TYPE_DEVICE)
		kind = K_POOL;
	else if (props->allocType == CU_MEM_ALLOCATION_TYPE_PINNED &&
		 (lt == CU_MEM_LOCATION_TYPE_HOST || lt == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
		  lt == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT))
		kind = K_HPOOL;
	else
		return CUDA_ERROR_INVALID_VALUE;
	if (kind == K_POOL && (id < 0 || id >= NDEV))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&mu);
	int i = 4;
	while (i < NPOOLS && pools[i].used)
		i++;
	if (i < NPOOLS) {
		pools[i].used = 1;
		pools[i].kind = kind;
		pools[i].dev = kind == K_POOL ? id : -1;
	}
	pthread_mutex_unlock(&mu);
	if (i == NPOOLS)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pool = pool_handle(i);
	return CUDA_SUCCESS;
}
/* a default pool cannot be destroyed */
CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	pthread_mutex_lock(&mu);
	int i = pool_index(pool), ok = i >= 4;
	if (ok)
		pools[i].used = 0;
	pthread_mutex_unlock(&mu);
	return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
/* Host memory (pinned, or of a pool on the host) is real: mapped and touched, so RSS grows
 * like with the real driver; kind: K_PINNED or K_HPOOL. */
static CUresult host_mem(void **pp, size_t n, int kind)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!pp || !n)
		return CUDA_ERROR_INVALID_VALUE;
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memset(m, 0x5a, n);
	pthread_mutex_lock(&mu);
	int rc = add((uint64_t)(uintptr_t)m, n, kind, -1);
	pthread_mutex_unlock(&mu);
	if (rc) {
		munmap(m, n);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pp = m;
	return CUDA_SUCCESS;
}
static CUresult host_pool_alloc(CUdeviceptr *dptr, size_t n)
{
	void *m = NULL;
	CUresult rc = host_mem(dptr ? &m : NULL, n, K_HPOOL);
	if (rc == CUDA_SUCCESS)
		*dptr = (CUdeviceptr)(uintptr_t)m;
	return rc;
}
static CUresult pool_alloc(CUdeviceptr *dptr, size_t n, CUmemoryPool pool)
{
	int i = pool_index(pool);
	if (i < 0)
		return CUDA_ERROR_INVALID_VALUE;
	if (pools[i].kind == K_HPOOL)
		return host_pool_alloc(dptr, n);
	return dev_alloc(dptr, n, pools[i].kind, pools[i].kind == K_POOL ? pools[i].dev : cur_dev);
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t n, CUmemoryPool pool, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_legacy_async_calls, 1, __ATOMIC_RELAXED);
	return pool_alloc(dptr, n, pool);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t n, CUmemoryPool pool, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_ptsz_calls, 1, __ATOMIC_RELAXED);
	return pool_alloc(dptr, n, pool);
}
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
	int d = pool_dev(pool);
	if (d < 0 || d >= NDEV)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mu);
	pool_reserved[d] = pool_used[d] > keep ? pool_used[d] : keep < pool_reserved[d] ? keep : pool_reserved[d];
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr p)
{
	int refuse = __atomic_exchange_n(&cuzktrace_stub_refuse_next_free, 0, __ATOMIC_RELAXED);
	if (refuse)
		return (CUresult)refuse;
	return dev_free(p, 1 << K_DEV | 1 << K_MANAGED | POOLS);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_legacy_async_calls, 1, __ATOMIC_RELAXED);
	return dev_free(p, POOLS | 1 << K_DEV);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s)
{
	(void)s;
	__atomic_add_fetch(&cuzktrace_stub_ptsz_calls, 1, __ATOMIC_RELAXED);
	return dev_free(p, POOLS | 1 << K_DEV);
}
CUresult cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }

CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
		     unsigned long long flags)
{
	(void)flags;
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!h || !prop || !size)
		return CUDA_ERROR_INVALID_VALUE;
	int on_dev = prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
	if (on_dev && (prop->location.id < 0 || prop->location.id >= NDEV))
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&mu);
	uint64_t handle = next_handle++;
	int rc = add(handle, size, K_VMM, on_dev ? prop->location.id : -1);
	if (rc == 0 && on_dev)
		dev_used[prop->location.id] += size;
	pthread_mutex_unlock(&mu);
	if (rc)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*h = handle;
	return CUDA_SUCCESS;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
	pthread_mutex_lock(&mu);
	struct blk *b = find(h, 1 << K_VMM);
	if (b && b->refs) /* a reference cuMemRetainAllocationHandle took */
		b->refs--;
	else if (b) {
		if (b->dev >= 0)
			dev_used[b->dev] -= b->size;
		b->used = 0;
	}
	pthread_mutex_unlock(&mu);
	return b ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* VMM mappings: a handle's memory is freed when it is released and no range maps it. */
#define NMAPS 64
static struct { CUdeviceptr va; size_t size; CUmemGenericAllocationHandle h; } maps[NMAPS];
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
		  unsigned long long flags)
{
	(void)flags;
	if (!ptr || !size || offset)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&mu);
	struct blk *b = find(h, 1 << K_VMM);
	int i = 0;
	while (i < NMAPS && maps[i].size)
		i++;
	if (b && i < NMAPS) {
		maps[i].va = ptr;
		maps[i].size = size;
		maps[i].h = h;
	}
	pthread_mutex_unlock(&mu);
	return b && i < NMAPS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
static int map_at(CUdeviceptr va)
{
	for (int i = 0; i < NMAPS; i++)
		if (maps[i].size && maps[i].va == va)
			return i;
	return -1;
}

/* the handle mapped at va, with a reference more, which a cuMemRelease gives back (as the
 * driver's: each retain is paired with a release) */
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *va)
{
	pthread_mutex_lock(&mu);
	int i = map_at((CUdeviceptr)(uintptr_t)va);
	struct blk *b = i >= 0 ? find(maps[i].h, 1 << K_VMM) : NULL;
	if (b)
		b->refs++;
	if (i >= 0)
		*h = maps[i].h;
	pthread_mutex_unlock(&mu);
	return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* a handle to memory another process exported: a new handle of 2 MiB on device 0, which the
 * stub keeps as its own (the test needs the call and its release only) */
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os_handle, int type)
{
	(void)os_handle;
	(void)type;
	pthread_mutex_lock(&mu);
	uint64_t handle = next_handle++;
	int rc = add(handle, 2u << 20, K_VMM, 0);
	pthread_mutex_unlock(&mu);
	if (rc)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*h = handle;
	return CUDA_SUCCESS;
}

/* a context reset or destroyed: accepted; the stub keeps its books (the tracer cannot see what
 * a real driver frees there, and must say so when the program had memory live) */
static CUresult ctx_reset(CUdevice dev)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (dev != 0 && dev != 1)
		return CUDA_ERROR_INVALID_DEVICE;
	ctx_map_drop(dev);
	return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) { return ctx_reset(dev); }
/* the 7.0 ABI, same argument (what the CUDA 13.0 runtime's cudaDeviceReset looks up) */
CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return ctx_reset(dev); }

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	return ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* a CUDA array (of any of the three entry points), a graph's memory node: a fake handle, no
 * memory (the tracer must say it does not count it) */
static CUresult fake_handle(void **out, const void *arg)
{
	static char fake;
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!out || !arg)
		return CUDA_ERROR_INVALID_VALUE;
	*out = &fake;
	return CUDA_SUCCESS;
}

CUresult cuArrayCreate_v2(void **arr, const void *desc)
{
	return fake_handle(arr, desc);
}

CUresult cuArray3DCreate_v2(void **arr, const void *desc)
{
	return fake_handle(arr, desc);
}

CUresult cuMipmappedArrayCreate(void **arr, const void *desc, unsigned levels)
{
	(void)levels;
	return fake_handle(arr, desc);
}

CUresult cuGraphAddMemAllocNode(void **node, void *graph, void *const *deps, size_t ndeps, void *params)
{
	(void)deps;
	(void)ndeps;
	return graph ? fake_handle(node, params) : CUDA_ERROR_INVALID_VALUE;
}

/* memory another process exported: a fake device address, nothing counted on either side (the
 * 4.1 ABI and the 11.0 one take the same arguments) */
static CUresult ipc_open(CUdeviceptr *dptr, CUipcMemHandle handle)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!dptr || !handle.reserved[0])
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = 0x7c0000000000ull;
	return CUDA_SUCCESS;
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags)
{
	(void)flags;
	return ipc_open(dptr, handle);
}
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags)
{
	(void)flags;
	return ipc_open(dptr, handle);
}
/* a block of another process's pool: an address, no memory of this one */
CUresult cuMemPoolImportPointer(CUdeviceptr *dptr, CUmemoryPool pool, void *share_data)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!dptr || !pool || !share_data)
		return CUDA_ERROR_INVALID_VALUE;
	*dptr = 0x7c0000100000ull;
	return CUDA_SUCCESS;
}

/* like the driver: only whole mapped ranges that tile [ptr, ptr + size) exactly */
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	CUdeviceptr a = ptr, end = ptr + size;
	pthread_mutex_lock(&mu);
	for (int i; a < end && (i = map_at(a)) >= 0 && maps[i].size <= end - a;)
		a += maps[i].size;
	int ok = size && a == end;
	for (a = ptr; ok && a < end;) {
		int i = map_at(a);
		a += maps[i].size;
		maps[i].size = 0;
	}
	pthread_mutex_unlock(&mu);
	return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Pinned host memory is real (host_mem). */
CUresult cuMemHostAlloc(void **pp, size_t n, unsigned flags)
{
	(void)flags;
	return host_mem(pp, n, K_PINNED);
}
/* Goes through the exported cuMemHostAlloc, as a driver might: an interposer sees both calls
 * and must count the memory once. */
CUresult cuMemAllocHost_v2(void **pp, size_t n) { return cuMemHostAlloc(pp, n, 0); }
/* CKT_STUB_SLOW_FREEHOST_MS: wait that long first, as a driver does for the device's work
 * still running (cuMemFreeHost synchronizes the context), moving no page meanwhile */
CUresult cuMemFreeHost(void *p)
{
	const char *slow = getenv("CKT_STUB_SLOW_FREEHOST_MS");
	if (slow) {
		struct timespec ts = { atoi(slow) / 1000, atoi(slow) % 1000 * 1000000L };
		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&mu);
	struct blk *b = find((uint64_t)(uintptr_t)p, 1 << K_PINNED);
	uint64_t size = b ? b->size : 0;
	if (b)
		b->used = 0;
	pthread_mutex_unlock(&mu);
	if (!b)
		return CUDA_ERROR_INVALID_VALUE;
	munmap(p, size);
	return CUDA_SUCCESS;
}
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags)
{
	(void)flags;
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	pthread_mutex_lock(&mu);
	int rc = add((uint64_t)(uintptr_t)p, n, K_REG, -1);
	pthread_mutex_unlock(&mu);
	return rc ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}
/* as the driver: a pointer not registered is CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED (713), not
 * CUDA_ERROR_INVALID_VALUE */
CUresult cuMemHostUnregister(void *p)
{
	CUresult rc = dev_free((uint64_t)(uintptr_t)p, 1 << K_REG);
	return rc == CUDA_ERROR_INVALID_VALUE ? 713 : rc;
}

/* ---- cuGetProcAddress: base name + version + stream mode -> function ---- */
struct proc { const char *base; int minver; int mode; void *fn; };
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status);
CUresult cuGetProcAddress_v2_ptsz(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status);
CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags);
/* The table hands out the driver's own functions through hidden aliases: a reference to an
 * exported name would bind to an interposer's definition of that name (as it does for the
 * nested call in cuMemAllocHost_v2 above), and a real driver hands out its internal ones. */
#define LOCAL(n) extern __typeof__(n) h_##n __attribute__((alias(#n), visibility("hidden")));
#ifndef CKT_STUB_NO_CTX_GET_DEVICE
LOCAL(cuCtxGetDevice)
#endif
LOCAL(cuCtxSetCurrent)
LOCAL(cuDeviceGetCount)
LOCAL(cuDeviceGetDefaultMemPool)
LOCAL(cuDeviceGetName)
LOCAL(cuDeviceGetUuid)
LOCAL(cuDeviceGetUuid_v2)
LOCAL(cuDevicePrimaryCtxRetain)
LOCAL(cuDevicePrimaryCtxRelease_v2)
LOCAL(cuDevicePrimaryCtxRelease)
LOCAL(cuDevicePrimaryCtxGetState)
LOCAL(cuDriverGetVersion)
LOCAL(cuInit)
LOCAL(cuMemAlloc)
LOCAL(cuMemAllocAsync)
LOCAL(cuMemAllocAsync_ptsz)
LOCAL(cuMemAllocFromPoolAsync)
LOCAL(cuMemAllocFromPoolAsync_ptsz)
LOCAL(cuMemAllocHost_v2)
LOCAL(cuMemAllocManaged)
#ifndef CKT_STUB_NO_PITCH
LOCAL(cuMemAllocPitch_v2)
#endif
LOCAL(cuMemAlloc_v2)
LOCAL(cuMemCreate)
LOCAL(cuMemFreeAsync)
LOCAL(cuMemFreeAsync_ptsz)
LOCAL(cuMemFreeHost)
LOCAL(cuMemFree_v2)
LOCAL(cuMemGetInfo_v2)
LOCAL(cuMemHostAlloc)
LOCAL(cuMemHostRegister_v2)
LOCAL(cuMemHostUnregister)
LOCAL(cuMemPoolTrimTo)
LOCAL(cuDeviceGetMemPool)
LOCAL(cuMemPoolCreate)
LOCAL(cuMemPoolDestroy)
LOCAL(cuMemGetDefaultMemPool)
LOCAL(cuMemGetMemPool)
LOCAL(cuMemRelease)
LOCAL(cuMemMap)
LOCAL(cuMemUnmap)
LOCAL(cuMemRetainAllocationHandle)
LOCAL(cuMemImportFromShareableHandle)
LOCAL(cuArrayCreate_v2)
LOCAL(cuDevicePrimaryCtxReset_v2)
LOCAL(cuDevicePrimaryCtxReset)
LOCAL(cuIpcOpenMemHandle_v2)
LOCAL(cuIpcOpenMemHandle)
LOCAL(cuMemPoolImportPointer)
LOCAL(cuCtxDestroy_v2)
LOCAL(cuStreamSynchronize)
LOCAL(cuGetProcAddress_v2_ptsz)
LOCAL(cuGetProcAddress_v2)
static const struct proc procs[] = {
	/* newest version first: the first entry whose minver <= ver wins */
	{ "cuInit", 2000, 0, (void *)h_cuInit },
	{ "cuDriverGetVersion", 2020, 0, (void *)h_cuDriverGetVersion },
	{ "cuDeviceGetCount", 2000, 0, (void *)h_cuDeviceGetCount },
	{ "cuDevicePrimaryCtxRetain", 7000, 0, (void *)h_cuDevicePrimaryCtxRetain },
	{ "cuDevicePrimaryCtxRelease", 11000, 0, (void *)h_cuDevicePrimaryCtxRelease_v2 },
	{ "cuDevicePrimaryCtxRelease", 7000, 0, (void *)h_cuDevicePrimaryCtxRelease },
	{ "cuDevicePrimaryCtxGetState", 7000, 0, (void *)h_cuDevicePrimaryCtxGetState },
	{ "cuCtxSetCurrent", 4000, 0, (void *)h_cuCtxSetCurrent },
#ifndef CKT_STUB_NO_CTX_GET_DEVICE
	{ "cuCtxGetDevice", 2000, 0, (void *)h_cuCtxGetDevice },
#endif
	{ "cuDeviceGetUuid", 11040, 0, (void *)h_cuDeviceGetUuid_v2 },
	{ "cuDeviceGetUuid", 9020, 0, (void *)h_cuDeviceGetUuid },
	{ "cuDeviceGetName", 2000, 0, (void *)h_cuDeviceGetName },
	{ "cuMemGetInfo", 3020, 0, (void *)h_cuMemGetInfo_v2 },
	{ "cuMemAlloc", 3020, 0, (void *)h_cuMemAlloc_v2 },
	{ "cuMemAlloc", 2000, 0, (void *)h_cuMemAlloc },
#ifndef CKT_STUB_NO_PITCH
	{ "cuMemAllocPitch", 3020, 0, (void *)h_cuMemAllocPitch_v2 },
#endif
	{ "cuMemAllocManaged", 6000, 0, (void *)h_cuMemAllocManaged },
	{ "cuMemAllocHost", 3020, 0, (void *)h_cuMemAllocHost_v2 },
	{ "cuMemHostAlloc", 2020, 0, (void *)h_cuMemHostAlloc },
	{ "cuMemAllocAsync", 11020, 2, (void *)h_cuMemAllocAsync_ptsz },
	{ "cuMemAllocAsync", 11020, 1, (void *)h_cuMemAllocAsync },
	{ "cuMemAllocFromPoolAsync", 11020, 2, (void *)h_cuMemAllocFromPoolAsync_ptsz },
	{ "cuMemAllocFromPoolAsync", 11020, 1, (void *)h_cuMemAllocFromPoolAsync },
	{ "cuDeviceGetDefaultMemPool", 11020, 0, (void *)h_cuDeviceGetDefaultMemPool },
	{ "cuMemPoolTrimTo", 11020, 0, (void *)h_cuMemPoolTrimTo },
	{ "cuDeviceGetMemPool", 11020, 0, (void *)h_cuDeviceGetMemPool },
	{ "cuMemPoolCreate", 11020, 0, (void *)h_cuMemPoolCreate },
	{ "cuMemPoolDestroy", 11020, 0, (void *)h_cuMemPoolDestroy },
	{ "cuMemGetDefaultMemPool", 13000, 0, (void *)h_cuMemGetDefaultMemPool },
	{ "cuMemGetMemPool", 13000, 0, (void *)h_cuMemGetMemPool },
	{ "cuMemCreate", 10020, 0, (void *)h_cuMemCreate },
	{ "cuMemRelease", 10020, 0, (void *)h_cuMemRelease },
	{ "cuMemMap", 10020, 0, (void *)h_cuMemMap },
	{ "cuMemUnmap", 10020, 0, (void *)h_cuMemUnmap },
	{ "cuMemRetainAllocationHandle", 11000, 0, (void *)h_cuMemRetainAllocationHandle },
	{ "cuMemImportFromShareableHandle", 10020, 0, (void *)h_cuMemImportFromShareableHandle },
	{ "cuArrayCreate", 3020, 0, (void *)h_cuArrayCreate_v2 },
	{ "cuDevicePrimaryCtxReset", 11000, 0, (void *)h_cuDevicePrimaryCtxReset_v2 },
	{ "cuDevicePrimaryCtxReset", 7000, 0, (void *)h_cuDevicePrimaryCtxReset },
	{ "cuIpcOpenMemHandle", 11000, 0, (void *)h_cuIpcOpenMemHandle_v2 },
	{ "cuIpcOpenMemHandle", 4010, 0, (void *)h_cuIpcOpenMemHandle },
	{ "cuMemPoolImportPointer", 11020, 0, (void *)h_cuMemPoolImportPointer },
	{ "cuCtxDestroy", 4000, 0, (void *)h_cuCtxDestroy_v2 },
	{ "cuMemHostRegister", 6050, 0, (void *)h_cuMemHostRegister_v2 },
	{ "cuMemHostUnregister", 4000, 0, (void *)h_cuMemHostUnregister },
	{ "cuMemFree", 3020, 0, (void *)h_cuMemFree_v2 },
	{ "cuMemFreeHost", 2000, 0, (void *)h_cuMemFreeHost },
	{ "cuMemFreeAsync", 11020, 2, (void *)h_cuMemFreeAsync_ptsz },
	{ "cuMemFreeAsync", 11020, 1, (void *)h_cuMemFreeAsync },
	{ "cuStreamSynchronize", 2000, 0, (void *)h_cuStreamSynchronize },
	/* the driver's own, as a real one hands out (the two below are the exported ones, which an
	 * interposer's definitions take the place of) */
	{ "cuGetProcAddress", 12000, 2, (void *)h_cuGetProcAddress_v2_ptsz },
	{ "cuGetProcAddress", 12000, 0, (void *)cuGetProcAddress_v2 },
	{ "cuGetProcAddress", 11030, 0, (void *)cuGetProcAddress },
};

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status)
{
	int mode = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ? 2 : 1;
	int too_new = 0;
	if (!sym || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		if (strcmp(procs[i].base, sym) || (procs[i].mode && procs[i].mode != mode))
			continue;
		if (procs[i].minver > ver) {
			too_new = 1;
			continue;
		}
		*pfn = procs[i].fn;
		if (status)
			*status = CU_GET_PROC_ADDRESS_SUCCESS;
		return CUDA_SUCCESS;
	}
	if (status)
		*status = too_new ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags)
{
	return cuGetProcAddress_v2(sym, pfn, ver, flags, NULL);
}

/* the per-thread-default-stream form (CUDA 12: what cuda.h names cuGetProcAddress when
 * CUDA_API_PER_THREAD_DEFAULT_STREAM is defined): flags without a stream mode mean the
 * per-thread default stream (the lookup itself is the driver's own, not its export's, which an
 * interposer takes the place of) */
CUresult cuGetProcAddress_v2_ptsz(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status)
{
	if (!(flags & (CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
		flags |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	return h_cuGetProcAddress_v2(sym, pfn, ver, flags, status);
}
