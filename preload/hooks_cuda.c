/* hooks_cuda.c: CUDA memory at the driver layer (libcuda), whatever route the program takes to
 * the driver: (1) the exported cu* symbols below, for programs linked with -lcuda; (2) dlsym,
 * interposed so that a lookup of a tracked cu* name in libcuda hands out our wrapper; (3)
 * cuGetProcAddress and cuGetProcAddress_v2, through which the CUDA runtime (>= 11.3, static or
 * shared) obtains every driver function. The runtime API (cudaMalloc...) is never hooked: it
 * ends in these driver calls, so counting here counts each allocation once. We never link
 * libcuda: every driver function is found at run time, in the driver the program loaded.
 *
 * Cost per allocation beyond the driver call: guard test and set, one cuCtxGetDevice (a TLS
 * read inside the driver), a stack capture, a clock read, two ring slots. The driver's own
 * calls inside the real call run with in_driver raised: their mmap/munmap are not counted
 * (pinned host memory would count twice, as pinned and as anonymous mmap) and nested driver
 * calls are not counted again, but their malloc/free are: the driver's host heap is real heap,
 * and it may free later, outside any call we wrap, what it allocated inside one. The one state
 * kept per CUDA object: the memory pools seen created or handed out, with what each holds and
 * where (see "memory pools" below). */
#include "ckt.h"

#include <dlfcn.h>
#include <string.h>

/* ---- our own minimal declarations of the driver ABI (no CUDA header is needed) ---- */
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUstream;
typedef void *CUcontext;
typedef void *CUmemoryPool;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct {
	int type;                 /* CUmemAllocationType */
	int requestedHandleTypes; /* CUmemAllocationHandleType */
	struct {
		int type; /* CUmemLocationType: 1 = device; 2, 3, 4 = host (CUDA 12.2+) */
		int id;
	} location;
	void *win32HandleMetaData;
	unsigned char allocFlags[8];
} CUmemAllocationProp;
typedef struct {
	int type; /* CUmemLocationType */
	int id;
} CUmemLocation;
typedef struct {
	int allocType;   /* CUmemAllocationType: pinned (1); managed (2, CUDA 13) */
	int handleTypes; /* CUmemAllocationHandleType */
	CUmemLocation location;
	void *win32SecurityAttributes;
	size_t maxSize;
	unsigned short usage;
	unsigned char reserved[54];
} CUmemPoolProps;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_INVALID_VALUE 1 /* among others: a pointer or range that entry point does not free */
#define CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED 713 /* cuMemHostUnregister's: not a registered range */
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEM_LOCATION_TYPE_HOST 2
#define CU_MEM_LOCATION_TYPE_HOST_NUMA 3
#define CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT 4
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_ALLOCATION_TYPE_MANAGED 2
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2ull
/* Newest CUDA version whose entry points we know; a lookup for a newer one passes through. */
#define CKT_CU_MAX_VERSION 13999

/* ---- the tracked entry points: name, cuGetProcAddress base name, the CUDA versions for which
 * that base name means this ABI, and the stream mode (0 any, 1 legacy/default, 2 ptsz) ---- */
#define CKT_CU_WRAPS(X)                                                        \
	X(cuMemAlloc_v2, "cuMemAlloc", 3020, 99999, 0)                         \
	X(cuMemAllocPitch_v2, "cuMemAllocPitch", 3020, 99999, 0)               \
	X(cuMemAllocManaged, "cuMemAllocManaged", 0, 99999, 0)                 \
	X(cuMemAllocHost_v2, "cuMemAllocHost", 3020, 99999, 0)                 \
	X(cuMemHostAlloc, "cuMemHostAlloc", 0, 99999, 0)                       \
	X(cuMemAllocAsync, "cuMemAllocAsync", 0, 99999, 1)                     \
	X(cuMemAllocAsync_ptsz, "cuMemAllocAsync", 0, 99999, 2)                \
	X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 0, 99999, 1)     \
	X(cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync", 0, 99999, 2) \
	X(cuMemCreate, "cuMemCreate", 0, 99999, 0)                             \
	X(cuMemHostRegister_v2, "cuMemHostRegister", 6050, 99999, 0)           \
	X(cuMemFree_v2, "cuMemFree", 3020, 99999, 0)                           \
	X(cuMemFreeHost, "cuMemFreeHost", 0, 99999, 0)                         \
	X(cuMemFreeAsync, "cuMemFreeAsync", 0, 99999, 1)                       \
	X(cuMemFreeAsync_ptsz, "cuMemFreeAsync", 0, 99999, 2)                  \
	X(cuMemRelease, "cuMemRelease", 0, 99999, 0)                           \
	X(cuMemMap, "cuMemMap", 0, 99999, 0)                                   \
	X(cuMemUnmap, "cuMemUnmap", 0, 99999, 0)                               \
	X(cuMemHostUnregister, "cuMemHostUnregister", 0, 99999, 0)             \
	X(cuGetProcAddress, "cuGetProcAddress", 0, 11999, 0)                   \
	X(cuGetProcAddress_v2_ptsz, "cuGetProcAddress", 12000, 99999, 2)       \
	X(cuGetProcAddress_v2, "cuGetProcAddress", 12000, 99999, 0)            \
	X(cuArrayCreate_v2, "cuArrayCreate", 3020, 99999, 0)                   \
	X(cuArray3DCreate_v2, "cuArray3DCreate", 3020, 99999, 0)               \
	X(cuMipmappedArrayCreate, "cuMipmappedArrayCreate", 0, 99999, 0)       \
	X(cuGraphAddMemAllocNode, "cuGraphAddMemAllocNode", 0, 99999, 0)       \
	X(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle", 0, 99999, 0) \
	X(cuIpcOpenMemHandle, "cuIpcOpenMemHandle", 4010, 10999, 0)           \
	X(cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle", 11000, 99999, 0)       \
	X(cuMemRetainAllocationHandle, "cuMemRetainAllocationHandle", 0, 99999, 0) \
	X(cuMemPoolImportPointer, "cuMemPoolImportPointer", 0, 99999, 0)       \
	X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset", 7000, 10999, 0) \
	X(cuDevicePrimaryCtxReset_v2, "cuDevicePrimaryCtxReset", 11000, 99999, 0) \
	X(cuCtxDestroy_v2, "cuCtxDestroy", 4000, 99999, 0)                     \
	X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease", 7000, 10999, 0) \
	X(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease", 11000, 99999, 0) \
	X(cuMemPoolCreate, "cuMemPoolCreate", 0, 99999, 0)                     \
	X(cuMemPoolDestroy, "cuMemPoolDestroy", 0, 99999, 0)                   \
	X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", 0, 99999, 0) \
	X(cuDeviceGetMemPool, "cuDeviceGetMemPool", 0, 99999, 0)               \
	X(cuMemGetDefaultMemPool, "cuMemGetDefaultMemPool", 13000, 99999, 0)   \
	X(cuMemGetMemPool, "cuMemGetMemPool", 13000, 99999, 0)

enum {
#define CKT_CU_ENUM(name, base, lo, hi, mode) W_##name,
	CKT_CU_WRAPS(CKT_CU_ENUM)
#undef CKT_CU_ENUM
	W_COUNT
};

struct wrap {
	const char *name, *base;
	int lo, hi, mode;
};
static const struct wrap wraps[W_COUNT] = {
#define CKT_CU_DESC(name, base, lo, hi, mode) { #name, base, lo, hi, mode },
	CKT_CU_WRAPS(CKT_CU_DESC)
#undef CKT_CU_DESC
};

/* The function behind each wrapper, by the route that reached it (same ABI, not always the
 * same code):
 *   route 0, the export: what a program linked with -lcuda calls through us (and what a
 *     lookup in the global scope finds): the next definition after this library, which may be
 *     a layer of the program's own on the driver (a quota, a logger), else the driver's;
 *   route 1, a lookup: what cuGetProcAddress or dlsym on a library's handle gave the program
 *     (the driver's own function, past any such layer), which the program gets as the
 *     wrapper's twin (ckt_lk_<name>: it sets ckt_tls.cu_route and runs the wrapper).
 * Each route keeps the first function found by it. Until 0.2.50 one function served both, the
 * first found by either: a program that looked up cuMemAlloc through cuGetProcAddress (as the
 * CUDA runtime does) and also called the linked symbol had its linked calls sent past its
 * quota layer (an allocation the layer refuses went through, and was counted), or, the other
 * way round, the driver's own pointer sent through the layer. */
static void *_Atomic real_fn[2][W_COUNT];

CKT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CKT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
				       unsigned elem);
CKT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned flags);
CKT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize);
CKT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned flags);
CKT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream s);
CKT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream s);
CKT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
					    CUstream s);
CKT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
						 CUmemoryPool pool, CUstream s);
CKT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
				const CUmemAllocationProp *prop, unsigned long long flags);
CKT_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned flags);
CKT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr);
CKT_EXPORT CUresult cuMemFreeHost(void *p);
CKT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s);
CKT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s);
CKT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle h);
CKT_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
			     unsigned long long flags);
CKT_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CKT_EXPORT CUresult cuMemHostUnregister(void *p);
CKT_EXPORT CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, unsigned long long flags);
CKT_EXPORT CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, unsigned long long flags,
					int *status);
CKT_EXPORT CUresult cuGetProcAddress_v2_ptsz(const char *sym, void **pfn, int ver, unsigned long long flags,
					     int *status);
/* memory the tracer does not count (warn_untraced) */
typedef struct {
	char reserved[64];
} CUipcMemHandle;
CKT_EXPORT CUresult cuArrayCreate_v2(void **arr, const void *desc);
CKT_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev);
CKT_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
CKT_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx);
CKT_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CKT_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CKT_EXPORT CUresult cuArray3DCreate_v2(void **arr, const void *desc);
CKT_EXPORT CUresult cuMipmappedArrayCreate(void **arr, const void *desc, unsigned levels);
CKT_EXPORT CUresult cuGraphAddMemAllocNode(void **node, void *graph, void *const *deps, size_t ndeps,
					   void *params);
CKT_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os_handle,
						   int handle_type);
CKT_EXPORT CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags);
CKT_EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags);
CKT_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr);
CKT_EXPORT CUresult cuMemPoolImportPointer(CUdeviceptr *dptr, void *pool, void *share_data);
/* the pools cuMemAllocFromPoolAsync names: what each holds, and where */
CKT_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props);
CKT_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool);
CKT_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev);
CKT_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
CKT_EXPORT CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);
CKT_EXPORT CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);

/* each wrapper's twin, handed out for the lookup route (defined with its wrapper, CKT_TWIN) */
#define CKT_CU_TWIN_DECL(name, base, lo, hi, mode) static __typeof__(name) ckt_lk_##name;
CKT_CU_WRAPS(CKT_CU_TWIN_DECL)
#undef CKT_CU_TWIN_DECL

/* route 0: the exported wrapper; route 1: its twin */
static void *ours_by(int route, int w)
{
	static void *const tab[2][W_COUNT] = {
		{
#define CKT_CU_OURS(name, base, lo, hi, mode) (void *)&name,
			CKT_CU_WRAPS(CKT_CU_OURS)
#undef CKT_CU_OURS
		},
		{
#define CKT_CU_TWIN(name, base, lo, hi, mode) (void *)&ckt_lk_##name,
			CKT_CU_WRAPS(CKT_CU_TWIN)
#undef CKT_CU_TWIN
		},
	};
	return tab[route][w];
}

static int is_ours(const void *p)
{
	for (int w = 0; w < W_COUNT; w++)
		if (p == ours_by(0, w) || p == ours_by(1, w))
			return 1;
	return 0;
}

/* A wrapper's twin: the same call, marked as reached by the lookup route. It calls the wrapper
 * through a hidden alias (bound here, not through the global scope, where a layer ahead of the
 * tracer could answer), and the wrapper's first act takes the mark (get_real). The mark names
 * the entry point (its index + 1): a signal handler's call of another one between the two
 * (CUDA calls are not async-signal-safe, but a program may) neither takes it nor leaves it. */
#define CKT_TWIN(W, PARAMS, ARGS)                                                          \
	extern __typeof__(W) ckt_self_##W __attribute__((alias(#W), visibility("hidden")));  \
	static CUresult ckt_lk_##W PARAMS                                                  \
	{                                                                                  \
		ckt_tls.cu_route = W_##W + 1;                                              \
		return ckt_self_##W ARGS;                                                  \
	}

/* ---- one line per kind of surprise, then silence ---- */
enum { WARN_NO_REAL, WARN_NO_DEVICE, WARN_VERSION, WARN_FLAGS, WARN_DRIVER, WARN_POOLS, WARN_COUNT };
static atomic_int warned[WARN_COUNT];

/* "cuzktrace: warning: " a [num] b c, unless *flag was set (it is set) */
static void warn_once(atomic_int *flag, const char *a, const char *b, const char *c, uint64_t num)
{
	if (atomic_exchange(flag, 1))
		return;
	struct ckt_line l = { .len = 0 };
	ckt_line_str(&l, "cuzktrace: warning: ");
	ckt_line_str(&l, a);
	if (num != UINT64_MAX)
		ckt_line_u64(&l, num);
	ckt_line_str(&l, b);
	ckt_line_str(&l, c);
	ckt_line_emit(&l);
}

/* ---- the real dlsym: dlnext.c ---- */
typedef ckt_dlsym_fn dlsym_fn;

static void set_real(int route, int w, void *p)
{
	void *expect = NULL;
	if (p && !is_ours(p))
		atomic_compare_exchange_strong(&real_fn[route][w], &expect, p);
}

static void *find_driver_fn(const char *name, const char *base, int ver, unsigned long long flags);

/* The driver function behind wrapper w, when no lookup of ours has seen it yet: a program
 * linked with -lcuda calls our export directly, and a driver may call its own exports (which
 * bind to ours, being first in the global scope) even when the program loaded it RTLD_LOCAL. */
static CKT_NOINLINE void *resolve_real(int w)
{
	int ver = wraps[w].lo > 12000 ? wraps[w].lo : wraps[w].hi < 12000 ? wraps[w].hi : 12000;
	set_real(0, w, find_driver_fn(wraps[w].name, wraps[w].base, ver,
				      wraps[w].mode == 2 ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0));
	void *p = atomic_load(&real_fn[0][w]);
	if (!p)
		warn_once(&warned[WARN_NO_REAL], "cannot find the CUDA driver's ", wraps[w].name,
			  "; the program's calls to it fail (CUDA_ERROR_NOT_INITIALIZED)", UINT64_MAX);
	return p;
}

/* The function behind wrapper w for the route that reached it (the twin's mark, taken here:
 * every wrapper asks this first). A twin's route has its function (set before the twin was
 * handed out); should it not, the export's serves. */
static inline void *get_real(int w)
{
	struct ckt_tls *t = &ckt_tls;
	int route = t->cu_route == w + 1;
	if (route)
		t->cu_route = 0;
	void *p = atomic_load_explicit(&real_fn[route][w], memory_order_relaxed);
	if (CKT_LIKELY(p != NULL))
		return p;
	p = atomic_load_explicit(&real_fn[0][w], memory_order_relaxed);
	return p ? p : resolve_real(w);
}

/* ---- device identity ---- */
typedef CUresult ctx_get_device_fn(CUdevice *);
typedef CUresult device_get_uuid_fn(unsigned char *uuid16, CUdevice);
typedef CUresult device_get_name_fn(char *, int, CUdevice);
typedef CUresult driver_get_version_fn(int *);
typedef CUresult gpa1_fn(const char *, void **, int, unsigned long long);
typedef CUresult gpa2_fn(const char *, void **, int, unsigned long long, int *);

static struct {
	atomic_int state; /* 0 not tried, 1 resolving, 2 done */
	ctx_get_device_fn *ctx_get_device;
	device_get_uuid_fn *get_uuid;
	device_get_name_fn *get_name;
} drv;

#define CKT_CU_MAX_DEVICES 256
static atomic_uchar described[CKT_CU_MAX_DEVICES];
static char dev_names[CKT_CU_MAX_DEVICES][64]; /* written once, before the slot naming it */

/* The handle a program used to look up a tracked name in the driver (libcuda may be loaded
 * RTLD_LOCAL, out of reach of RTLD_NEXT and RTLD_DEFAULT). */
static void *_Atomic cuda_handle;

/* A driver function by exported name: after this library in the global scope (what a program
 * linked with -lcuda binds to without us: the driver, or a library of the program's that
 * interposes on it, linked before -lcuda, such as a quota or logging layer; looking in the
 * driver first skipped that layer: its quota was not applied), else in the handle the program
 * used, in libcuda.so.1 if it is loaded (RTLD_LOCAL: out of reach of RTLD_NEXT), and at last
 * through the driver's own cuGetProcAddress (base name, CUDA version ver, flags). */
static void *find_driver_fn(const char *name, const char *base, int ver, unsigned long long flags)
{
	dlsym_fn *ds = ckt_real_dlsym();
	void *p = NULL, *h = atomic_load(&cuda_handle);
	if (!ds)
		return NULL;
	p = ds(RTLD_NEXT, name);
	if ((!p || is_ours(p)) && h)
		p = ds(h, name);
	if (!p || is_ours(p)) /* read in memory: a dlopen, even RTLD_NOLOAD, may run other
			       * libraries' pending constructors (see elfsym.c) */
		p = ckt_elf_lookup_in("libcuda.so.1", name);
	if (is_ours(p))
		p = NULL;
	if (!p) {
		void *g2 = atomic_load(&real_fn[1][W_cuGetProcAddress_v2]);
		void *g1 = atomic_load(&real_fn[1][W_cuGetProcAddress]);
		g2 = g2 ? g2 : atomic_load(&real_fn[0][W_cuGetProcAddress_v2]);
		g1 = g1 ? g1 : atomic_load(&real_fn[0][W_cuGetProcAddress]);
		int st = 0;
		if (g2 && ((gpa2_fn *)g2)(base, &p, ver, flags, &st) != CUDA_SUCCESS)
			p = NULL;
		else if (!g2 && g1 &&
			 ((gpa1_fn *)g1)(base, &p, ver < 12000 ? ver : 11030, flags) != CUDA_SUCCESS)
			p = NULL;
	}
	return is_ours(p) ? NULL : p;
}

static CKT_NOINLINE void resolve_driver(void)
{
	int expect = 0;
	if (!atomic_compare_exchange_strong(&drv.state, &expect, 1)) {
		/* being resolved by another thread (a few lookups): wait for it, or a first
		 * allocation racing it would go without its device. At most 1 s, should that
		 * thread wait on something this one holds (the loader's lock). */
		for (int i = 0; i < 10000 && atomic_load_explicit(&drv.state, memory_order_acquire) == 1; i++)
			ckt_nap(100000);
		return;
	}
	driver_get_version_fn *ver =
		(driver_get_version_fn *)find_driver_fn("cuDriverGetVersion", "cuDriverGetVersion", 12000, 0);
	int v = 0;
	if (ver && ver(&v) == CUDA_SUCCESS && v > CKT_CU_MAX_VERSION)
		warn_once(&warned[WARN_DRIVER], "CUDA driver version ",
			  " is newer than this tracer knows; memory calls it adds are not counted", "",
			  (uint64_t)v);
	drv.ctx_get_device = (ctx_get_device_fn *)find_driver_fn("cuCtxGetDevice", "cuCtxGetDevice", 12000, 0);
	drv.get_uuid = (device_get_uuid_fn *)find_driver_fn("cuDeviceGetUuid_v2", "cuDeviceGetUuid", 12000, 0);
	if (!drv.get_uuid)
		drv.get_uuid = (device_get_uuid_fn *)find_driver_fn("cuDeviceGetUuid", "cuDeviceGetUuid", 11030, 0);
	drv.get_name = (device_get_name_fn *)find_driver_fn("cuDeviceGetName", "cuDeviceGetName", 12000, 0);
	if (!drv.ctx_get_device)
		warn_once(&warned[WARN_NO_DEVICE], "cannot find cuCtxGetDevice in the CUDA driver",
			  "; GPU allocations are recorded without their device", "", UINT64_MAX);
	atomic_store(&drv.state, 2);
}

static CKT_NOINLINE void describe_device(struct ckt_tls *t, CUdevice dev)
{
	if (atomic_exchange(&described[dev], 1))
		return;
	unsigned char u[16];
	int have_uuid = drv.get_uuid && drv.get_uuid(u, dev) == CUDA_SUCCESS;
	char *name = dev_names[dev];
	if (!drv.get_name || drv.get_name(name, (int)sizeof(dev_names[dev]), dev) != CUDA_SUCCESS)
		name[0] = 0;
	name[sizeof(dev_names[dev]) - 1] = 0;
	uint64_t lo = 0, hi = 0;
	for (int i = 0; have_uuid && i < 8; i++) {
		lo |= (uint64_t)u[i] << (8 * i);
		hi |= (uint64_t)u[8 + i] << (8 * i);
	}
	ckt_emit2(t, CKT_EV_CUDA_DEVICE, 0, 0, (uint64_t)dev, (uint64_t)(uintptr_t)name,
		  (uint64_t)have_uuid, lo, hi, 0);
}

/* A CUdevice is the device ordinal in every driver we know; the ordinal is recorded. */
static inline uint32_t note_device(struct ckt_tls *t, CUdevice dev)
{
	if (dev < 0 || dev >= CKT_CU_MAX_DEVICES)
		return CKT_CUDA_NO_DEVICE;
	if (CKT_UNLIKELY(!atomic_load_explicit(&described[dev], memory_order_relaxed)))
		describe_device(t, dev);
	return (uint32_t)dev;
}

static inline uint32_t current_device(struct ckt_tls *t)
{
	if (CKT_UNLIKELY(atomic_load_explicit(&drv.state, memory_order_acquire) != 2))
		resolve_driver();
	CUdevice dev = -1;
	if (!drv.ctx_get_device || drv.ctx_get_device(&dev) != CUDA_SUCCESS)
		return CKT_CUDA_NO_DEVICE;
	return note_device(t, dev);
}

/* ---- the hooks ---- */
static inline int hook_enter(struct ckt_tls *t)
{
	if (CKT_UNLIKELY(atomic_load_explicit(&ckt_boot_state, memory_order_relaxed) == 0))
		ckt_bootstrap();
	return CKT_LIKELY(!t->guard && !t->in_driver) &&
	       atomic_load_explicit(&ckt_active, memory_order_relaxed);
}

/* CUDA allocations recorded minus frees the driver accepted (CKT_DRV_FREE): whether any may
 * be live when a context goes (CKT_DRV_CONTEXT_GONE). A shared atomic add per driver call
 * that allocates or frees, calls of microseconds: not the malloc family's hot path.
 * Registrations (cuMemHostRegister) are counted apart: a context that goes drops them, which
 * leaves the registered figures high, not the GPU and pinned ones. */
static atomic_long cuda_recorded_live, cuda_registered_live;

static inline atomic_long *live_count(uint8_t kind)
{
	return kind == CKT_CUDA_REGISTERED ? &cuda_registered_live : &cuda_recorded_live;
}
/* The VMM handles cuMemCreate made that the trace counts live: a cuMemRelease counts one off
 * the live allocations for such a handle only, the first time, as the reader ends a handle's
 * memory at its first release once unmapped. A reference that cuMemRetainAllocationHandle or
 * cuMemImportFromShareableHandle hands out is given back by cuMemRelease too: counted off, it
 * cancelled an allocation the tracer recorded (NCCL retains and releases each buffer's handle:
 * a reset with 1 MiB live said nothing). Open addressing with linear probing, deletion by
 * shifting back; under a mutex (driver calls of microseconds, not the malloc family's hot
 * path); doubled in the tracer's own mappings at half full. Where it cannot grow (no memory),
 * every release counts off, as before (handles.lost). */
static struct {
	pthread_mutex_t lock;
	uint64_t *keys; /* 0: empty (the driver's handles are not 0) */
	size_t cap, n;
	int lost;
} handles = { .lock = PTHREAD_MUTEX_INITIALIZER };

static size_t handle_home(uint64_t h, size_t cap)
{
	return (size_t)((h * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static void handle_put(uint64_t *keys, size_t cap, uint64_t h)
{
	size_t i = handle_home(h, cap);
	while (keys[i])
		i = (i + 1) & (cap - 1);
	keys[i] = h;
}

static void handle_add(uint64_t h)
{
	pthread_mutex_lock(&handles.lock);
	if (!handles.lost && (handles.n + 1) * 2 > handles.cap) {
		size_t cap = handles.cap ? handles.cap * 2 : 512;
		uint64_t *keys = ckt_ownmaps_map(cap * sizeof(*keys), 0);
		if (keys) {
			for (size_t i = 0; i < handles.cap; i++)
				if (handles.keys[i])
					handle_put(keys, cap, handles.keys[i]);
			if (handles.keys)
				ckt_ownmaps_unmap(handles.keys, handles.cap * sizeof(*keys));
			handles.keys = keys;
			handles.cap = cap;
		} else
			handles.lost = 1;
	}
	if (!handles.lost) {
		handle_put(handles.keys, handles.cap, h);
		handles.n++;
	}
	pthread_mutex_unlock(&handles.lock);
}

/* 1: h was a live handle of cuMemCreate's, now taken out (or the set was lost: count it off
 * as before); 0: it was not (a reference retained or imported, or released already) */
static int handle_take(uint64_t h)
{
	int was = 0;
	pthread_mutex_lock(&handles.lock);
	if (handles.lost)
		was = 1;
	else if (handles.cap) {
		size_t i = handle_home(h, handles.cap), mask = handles.cap - 1;
		while (handles.keys[i] && handles.keys[i] != h)
			i = (i + 1) & mask;
		if (handles.keys[i]) { /* shift back the run after it */
			was = 1;
			handles.n--;
			for (size_t j = (i + 1) & mask; handles.keys[j]; j = (j + 1) & mask) {
				size_t home = handle_home(handles.keys[j], handles.cap);
				/* j's key may fill the hole at i if its home is not in (i, j] */
				if (((j - home) & mask) >= ((j - i) & mask)) {
					handles.keys[i] = handles.keys[j];
					i = j;
				}
			}
			handles.keys[i] = 0;
		}
	}
	pthread_mutex_unlock(&handles.lock);
	return was;
}

/* bytes mapped by cuMemMap minus those cuMemUnmap took off (one unmap may take several
 * mappings: counted in bytes, not in calls) */
static _Atomic uint64_t cuda_mapped_bytes;

static CKT_NOINLINE void record_alloc(struct ckt_tls *t, uint8_t fn, uint8_t kind, uint32_t dev,
				      uint64_t addr, uint64_t size)
{
	atomic_fetch_add_explicit(live_count(kind), 1, memory_order_relaxed);
	t->guard++;
	/* the clock first, then the stack (unlike the heap's, see hooks_malloc.c): the driver
	 * touched pinned pages inside the call, and an RSS sample taken while the stack was being
	 * captured (milliseconds, the first time) saw them with no pinned bytes to explain them.
	 * The stamp stays open until the event is committed, which holds the writer's horizon
	 * back meanwhile; nothing may stamp or emit before the event: the TLS-table update the
	 * capture may run (its allocations are traced) runs first. */
	ckt_stacks_tls_touch(t);
	uint64_t ts = ckt_stamp(t);
	uint32_t stack = ckt_stacks_capture(t);
	ckt_emit2(t, CKT_EV_CUDA_ALLOC, fn, ts, addr, size, 0, kind, dev, stack);
	t->guard--;
}

static inline void record_free(struct ckt_tls *t, uint8_t fn, uint8_t kind, uint64_t addr)
{
	t->guard++;
	ckt_emit(t, CKT_EV_CUDA_FREE, fn, ckt_stamp(t), addr, kind, 0);
	t->guard--;
}

/* Every driver hook starts alike: the real entry point (an error if the driver has none), a
 * pass-through when not tracing, then the driver's own calls marked as inside it. */
#define CKT_DRV_ENTER(W, PARAMS, ARGS)                                                   \
	CUresult (*real) PARAMS = get_real(W_##W);                                       \
	if (CKT_UNLIKELY(!real))                                                         \
		return CUDA_ERROR_NOT_INITIALIZED;                                       \
	struct ckt_tls *t = &ckt_tls;                                                    \
	if (!hook_enter(t))                                                              \
		return real ARGS;                                                        \
	t->in_driver++;

/* Every allocator has one shape: (out pointer, ...) -> after a successful call, the address
 * written through OUT, on device DEV (the current context's for device memory). */
#define CKT_DRV_ALLOC(W, FN, KIND, DEV, OUT, PARAMS, ARGS, SIZE)                          \
	CUresult W PARAMS                                                                \
	{                                                                                \
		CKT_DRV_ENTER(W, PARAMS, ARGS)                                           \
		/* pinned host memory: its pages are made during the call, recorded after \
		 * it (ckt_nosample_begin) */                                            \
		int made = KIND == CKT_CUDA_PINNED && (SIZE) >= CKT_NOSAMPLE_MIN;        \
		if (made)                                                                \
			ckt_nosample_begin(CKT_NOSAMPLE_MAKES * (size_t)(SIZE));        \
		CUresult rc = real ARGS;                                                 \
		__typeof__(OUT) out = OUT; /* a variable: OUT may be an address */    \
		if (rc == CUDA_SUCCESS && out)                                           \
			record_alloc(t, FN, KIND, DEV, (uint64_t)(uintptr_t)*out, (SIZE)); \
		if (made)                                                                \
			ckt_nosample_end(CKT_NOSAMPLE_MAKES * (size_t)(SIZE));          \
		t->in_driver--;                                                          \
		return rc;                                                               \
	}                                                                         \
	CKT_TWIN(W, PARAMS, ARGS)

/* Device, managed and pool memory: (CUdeviceptr *dptr, size, ...). */
#define CKT_DEV_ALLOC(W, FN, KIND, PARAMS, ARGS, SIZE) \
	CKT_DRV_ALLOC(W, FN, KIND, current_device(t), dptr, PARAMS, ARGS, SIZE)

CKT_DEV_ALLOC(cuMemAlloc_v2, CKT_CU_MEM_ALLOC, CKT_CUDA_DEVICE,
	      (CUdeviceptr * dptr, size_t bytesize), (dptr, bytesize), bytesize)
CKT_DEV_ALLOC(cuMemAllocPitch_v2, CKT_CU_MEM_ALLOC_PITCH, CKT_CUDA_DEVICE,
	      (CUdeviceptr * dptr, size_t * pitch, size_t width, size_t height, unsigned elem),
	      (dptr, pitch, width, height, elem), (pitch ? *pitch : width) * height)
CKT_DEV_ALLOC(cuMemAllocManaged, CKT_CU_MEM_ALLOC_MANAGED, CKT_CUDA_MANAGED,
	      (CUdeviceptr * dptr, size_t bytesize, unsigned flags), (dptr, bytesize, flags), bytesize)
CKT_DEV_ALLOC(cuMemAllocAsync, CKT_CU_MEM_ALLOC_ASYNC, CKT_CUDA_POOL,
	      (CUdeviceptr * dptr, size_t bytesize, CUstream s), (dptr, bytesize, s), bytesize)
CKT_DEV_ALLOC(cuMemAllocAsync_ptsz, CKT_CU_MEM_ALLOC_ASYNC_PTSZ, CKT_CUDA_POOL,
	      (CUdeviceptr * dptr, size_t bytesize, CUstream s), (dptr, bytesize, s), bytesize)

/* ---- memory pools: what each holds, and where ----
 * cuMemAllocAsync takes from the current pool of the stream's device, always device memory of
 * that device (cuDeviceSetMemPool takes only a pool of that device). cuMemAllocFromPoolAsync
 * names its pool, which may hold device memory of another device, pinned host RAM (a pool on
 * the host: part of RSS) or, since CUDA 13, managed memory. A pool's properties are seen where
 * it is created (cuMemPoolCreate) or handed out (the default and current pools of a device,
 * and CUDA 13's of a location and allocation type); a pool not seen there (created before
 * tracing) counts as before: device pool memory of the current context's device. (An imported
 * pool cannot be allocated from.)
 * Pools are few: a fixed table, open addressing, written under a mutex (pools are created,
 * handed out and destroyed seldom) and read without one (one look per pool allocation). A key
 * is never removed: a destroyed pool's slot is marked dead and taken by the next new pool, so
 * no probe chain is ever cut. */
#define CKT_CU_POOLS 1024 /* a power of two */
#define POOL_LIVE (1ull << 63)
#define POOL_NEXT(i) (((i) + 1) & (CKT_CU_POOLS - 1))
static struct {
	_Atomic uint64_t pool;  /* the CUmemoryPool; 0: never used */
	_Atomic uint64_t where; /* 0: dead; else POOL_LIVE | seq << 40 | kind << 32 | device */
} pools[CKT_CU_POOLS];
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pools_seq; /* under pools_lock: tells a pool's entry from its successor's */

/* kind << 32 | device for a pool of allocation type TYPE at LOC, or 0: not one we know */
static uint64_t pool_holds(int type, const CUmemLocation *loc)
{
	if (!loc)
		return 0;
	int on_dev = loc->type == CU_MEM_LOCATION_TYPE_DEVICE;
	uint32_t dev = on_dev && loc->id >= 0 ? (uint32_t)loc->id : CKT_CUDA_NO_DEVICE;
	if (type == CU_MEM_ALLOCATION_TYPE_MANAGED)
		return (uint64_t)CKT_CUDA_MANAGED << 32 | dev;
	if (type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return 0;
	if (on_dev)
		return (uint64_t)CKT_CUDA_POOL << 32 | dev;
	if (loc->type == CU_MEM_LOCATION_TYPE_HOST || loc->type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
	    loc->type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
		return (uint64_t)CKT_CUDA_PINNED << 32 | CKT_CUDA_NO_DEVICE;
	return 0;
}

static inline size_t pool_home(CUmemoryPool pool)
{
	return (size_t)(((uint64_t)(uintptr_t)pool * 0x9e3779b97f4a7c15ull) >> 54) & (CKT_CU_POOLS - 1);
}

/* the live entry of POOL, or 0 */
static uint64_t pool_find(CUmemoryPool pool)
{
	uint64_t key = (uint64_t)(uintptr_t)pool;
	for (size_t i = pool_home(pool), n = 0; key && n < CKT_CU_POOLS; i = POOL_NEXT(i), n++) {
		uint64_t k = atomic_load_explicit(&pools[i].pool, memory_order_acquire);
		if (k == key)
			return atomic_load_explicit(&pools[i].where, memory_order_acquire);
		if (!k)
			break;
	}
	return 0;
}

/* POOL holds HOLDS (pool_holds; 0: unknown, the entry goes). With OLD, only if the entry is
 * still OLD: a pool destroyed whose handle the driver gave to a new pool meanwhile keeps the
 * new one's. Takes pools_lock. */
static void pool_set(CUmemoryPool pool, uint64_t holds, uint64_t old)
{
	uint64_t key = (uint64_t)(uintptr_t)pool;
	if (!key || (!holds && !pool_find(pool)))
		return;
	ckt_mutex_take(&pools_lock);
	size_t at = CKT_CU_POOLS, dead = CKT_CU_POOLS, i = pool_home(pool);
	for (size_t n = 0; n < CKT_CU_POOLS; i = POOL_NEXT(i), n++) {
		uint64_t k = atomic_load_explicit(&pools[i].pool, memory_order_relaxed);
		if (k == key || !k) {
			at = i;
			break;
		}
		if (dead == CKT_CU_POOLS && !atomic_load_explicit(&pools[i].where, memory_order_relaxed))
			dead = i;
	}
	int found = at < CKT_CU_POOLS && atomic_load_explicit(&pools[at].pool, memory_order_relaxed) == key;
	if (!found && dead < CKT_CU_POOLS)
		at = dead;
	if (old && (!found || atomic_load_explicit(&pools[at].where, memory_order_relaxed) != old)) {
		/* its entry is gone or a successor's */
	} else if (!holds) {
		if (found)
			atomic_store_explicit(&pools[at].where, 0, memory_order_release);
	} else if (at < CKT_CU_POOLS) {
		uint64_t w = POOL_LIVE | (++pools_seq & 0x7fffff) << 40 | holds;
		if (!found) /* a slot never used or dead: its entry is 0 until the key is in */
			atomic_store_explicit(&pools[at].pool, key, memory_order_release);
		atomic_store_explicit(&pools[at].where, w, memory_order_release);
	} else {
		warn_once(&warned[WARN_POOLS], "more than ", " CUDA memory pools at once; allocations from the "
			  "others count as device pool memory of the current context's device", "", CKT_CU_POOLS);
	}
	ckt_mutex_give(&pools_lock);
}

/* a pool handed out by the driver holds HOLDS: recorded unless its entry says so already (the
 * default pool is asked for often) */
static void pool_seen(CUmemoryPool pool, uint64_t holds)
{
	if ((pool_find(pool) & ~(POOL_LIVE | 0x7fffffull << 40)) != holds || !holds)
		pool_set(pool, holds, 0);
}

/* Allocations from a named pool: its kind and device when the pool is known (pinned host RAM:
 * its pages are made during the call, see CKT_DRV_ALLOC), else device pool memory of the
 * current context's device, as before. */
#define CKT_POOL_ALLOC(W, FN)                                                                 \
	CUresult W(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s)           \
	{                                                                                     \
		CKT_DRV_ENTER(W, (CUdeviceptr *, size_t, CUmemoryPool, CUstream), (dptr, bytesize, pool, s)) \
		uint64_t where = pool_find(pool);                                             \
		unsigned kind = where ? (unsigned)(where >> 32 & 0xff) : CKT_CUDA_POOL;        \
		int made = kind == CKT_CUDA_PINNED && bytesize >= CKT_NOSAMPLE_MIN;           \
		if (made)                                                                     \
			ckt_nosample_begin(CKT_NOSAMPLE_MAKES * bytesize);                    \
		CUresult rc = real(dptr, bytesize, pool, s);                                  \
		if (rc == CUDA_SUCCESS && dptr)                                               \
			record_alloc(t, FN, (uint8_t)kind, where ? pool_device(t, where) : current_device(t), \
				     *dptr, bytesize);                                        \
		if (made)                                                                     \
			ckt_nosample_end(CKT_NOSAMPLE_MAKES * bytesize);                      \
		t->in_driver--;                                                               \
		return rc;                                                                    \
	}                                                                              \
	CKT_TWIN(W, (CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s), (dptr, bytesize, pool, s))

/* the device of a known pool's allocation (described once, as current_device does) */
static uint32_t pool_device(struct ckt_tls *t, uint64_t where)
{
	uint32_t dev = (uint32_t)where;
	if (dev == CKT_CUDA_NO_DEVICE)
		return dev;
	if (CKT_UNLIKELY(atomic_load_explicit(&drv.state, memory_order_acquire) != 2))
		resolve_driver();
	return note_device(t, (CUdevice)dev);
}

CKT_POOL_ALLOC(cuMemAllocFromPoolAsync, CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC)
CKT_POOL_ALLOC(cuMemAllocFromPoolAsync_ptsz, CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ)

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	CKT_DRV_ENTER(cuMemPoolCreate, (CUmemoryPool *, const CUmemPoolProps *), (pool, props))
	CUresult rc = real(pool, props);
	if (rc == CUDA_SUCCESS && pool && props) /* a handle seen before belonged to a pool gone */
		pool_set(*pool, pool_holds(props->allocType, &props->location), 0);
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuMemPoolCreate, (CUmemoryPool *pool, const CUmemPoolProps *props), (pool, props))

/* The entry goes once the driver accepted (a device's default pool it refuses); its blocks
 * keep their kind (CUDA frees the pool when the last is freed). */
CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	CKT_DRV_ENTER(cuMemPoolDestroy, (CUmemoryPool), (pool))
	uint64_t where = pool_find(pool);
	CUresult rc = real(pool);
	if (rc == CUDA_SUCCESS && where)
		pool_set(pool, 0, where);
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuMemPoolDestroy, (CUmemoryPool pool), (pool))

/* the default and the current pool of a device: device memory of that device (the current
 * one must be local to it: cuDeviceSetMemPool) */
#define CKT_DEVICE_POOL(W)                                                                    \
	CUresult W(CUmemoryPool *pool, CUdevice dev)                                          \
	{                                                                                     \
		CKT_DRV_ENTER(W, (CUmemoryPool *, CUdevice), (pool, dev))                     \
		CUresult rc = real(pool, dev);                                                \
		if (rc == CUDA_SUCCESS && pool && dev >= 0) {                                 \
			CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, dev };             \
			pool_seen(*pool, pool_holds(CU_MEM_ALLOCATION_TYPE_PINNED, &loc));    \
		}                                                                             \
		t->in_driver--;                                                               \
		return rc;                                                                    \
	}                                                                              \
	CKT_TWIN(W, (CUmemoryPool *pool, CUdevice dev), (pool, dev))
CKT_DEVICE_POOL(cuDeviceGetDefaultMemPool)
CKT_DEVICE_POOL(cuDeviceGetMemPool)

/* CUDA 13: the default and the current pool of a location and allocation type (the current
 * one must match both: cuMemSetMemPool), pinned or managed */
#define CKT_LOCATION_POOL(W)                                                                  \
	CUresult W(CUmemoryPool *pool, CUmemLocation *loc, int type)                          \
	{                                                                                     \
		CKT_DRV_ENTER(W, (CUmemoryPool *, CUmemLocation *, int), (pool, loc, type))   \
		CUresult rc = real(pool, loc, type);                                          \
		if (rc == CUDA_SUCCESS && pool)                                               \
			pool_seen(*pool, pool_holds(type, loc));                              \
		t->in_driver--;                                                               \
		return rc;                                                                    \
	}                                                                              \
	CKT_TWIN(W, (CUmemoryPool *pool, CUmemLocation *loc, int type), (pool, loc, type))
CKT_LOCATION_POOL(cuMemGetDefaultMemPool)
CKT_LOCATION_POOL(cuMemGetMemPool)

/* Host-memory allocators: pinned host RAM, no device: (void **pp, size, ...). */
#define CKT_HOST_ALLOC(W, FN, PARAMS, ARGS, SIZE) \
	CKT_DRV_ALLOC(W, FN, CKT_CUDA_PINNED, CKT_CUDA_NO_DEVICE, pp, PARAMS, ARGS, SIZE)

CKT_HOST_ALLOC(cuMemAllocHost_v2, CKT_CU_MEM_ALLOC_HOST, (void **pp, size_t bytesize), (pp, bytesize),
	       bytesize)
CKT_HOST_ALLOC(cuMemHostAlloc, CKT_CU_MEM_HOST_ALLOC, (void **pp, size_t bytesize, unsigned flags),
	       (pp, bytesize, flags), bytesize)

/* pins the caller's memory: the "out" address is p itself */
CKT_DRV_ALLOC(cuMemHostRegister_v2, CKT_CU_MEM_HOST_REGISTER, CKT_CUDA_REGISTERED, CKT_CUDA_NO_DEVICE,
	      (&p), (void *p, size_t bytesize, unsigned flags), (p, bytesize, flags), bytesize)

CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
		     unsigned long long flags)
{
	CKT_DRV_ENTER(cuMemCreate,
		      (CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
		       unsigned long long),
		      (h, size, prop, flags))
	CUresult rc = real(h, size, prop, flags);
	if (rc == CUDA_SUCCESS && h) {
		/* physical memory on a device, or (CUDA 12.2+) host memory: pinned host RAM */
		int on_dev = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
		if (on_dev && CKT_UNLIKELY(atomic_load(&drv.state) != 2))
			resolve_driver();
		handle_add(*h);
		record_alloc(t, CKT_CU_MEM_CREATE, on_dev ? CKT_CUDA_VMM : CKT_CUDA_PINNED,
			     on_dev ? note_device(t, prop->location.id) : CKT_CUDA_NO_DEVICE, *h, size);
	}
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuMemCreate, (CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop, unsigned long long flags), (h, size, prop, flags))

/* A free or unmap the driver refused after the tracer recorded it (a call with no current
 * context, a bad stream, a sticky error): the trace counts the memory gone where it is not.
 * Said once per entry point, with the driver's error; the call's result goes back unchanged.
 * Not for CUDA_ERROR_INVALID_VALUE, what the driver answers a pointer that entry point does
 * not free (unknown, freed already, or of another kind: cudaFree of cudaMallocHost memory) or
 * a range that is not whole mappings: the reader frees nothing there either; nor for
 * cuMemHostUnregister's CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, its answer to such a pointer
 * (a second unregister read as a refused free, and hid a later real one).
 * (Recorded after the call instead, its stamp would stay open across the call, which waits
 * for the device: every other thread's events of that time held back, see hooks_mmap.c.) */
static atomic_int refused_warned[W_COUNT];

static CKT_NOINLINE void warn_refused(int w, CUresult rc)
{
	if (rc == CUDA_ERROR_INVALID_VALUE || (w == W_cuMemHostUnregister && rc == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED) ||
	    atomic_exchange(&refused_warned[w], 1))
		return;
	struct ckt_line l = { .len = 0 };
	ckt_line_str(&l, "cuzktrace: warning: ");
	ckt_line_str(&l, wraps[w].name);
	ckt_line_str(&l, " failed (CUDA error ");
	ckt_line_u64(&l, (uint64_t)rc);
	ckt_line_str(&l, ") after the tracer recorded it: the trace may count that memory freed (GPU, "
			 "pinned or registered figures after it too low by it; later failures of this "
			 "call are not reported)");
	ckt_line_emit(&l);
}

/* Frees are recorded before the real call, so no other thread can be handed the same address
 * by an allocation stamped earlier than our record. ADDR is the freed address (or handle).
 * Pinned host memory is resident: the RSS sampler waits for its free (ckt_nosample_begin; the
 * size is the driver's, so every cuMemFreeHost, a rare call). */
#define CKT_DRV_FREE(W, FN, KIND, ADDR, PARAMS, ARGS) CKT_DRV_FREE_AS(W, FN, KIND, ADDR, 1, PARAMS, ARGS)
/* COUNTED: whether the free takes one off the live allocations (evaluated once it succeeded) */
#define CKT_DRV_FREE_AS(W, FN, KIND, ADDR, COUNTED, PARAMS, ARGS)                       \
	CUresult W PARAMS                                                                \
	{                                                                                \
		CKT_DRV_ENTER(W, PARAMS, ARGS)                                           \
		int release = ADDR && KIND == CKT_CUDA_PINNED;                           \
		if (release)                                                             \
			ckt_nosample_begin(0);                                            \
		if (ADDR)                                                                \
			record_free(t, FN, KIND, (uint64_t)(uintptr_t)ADDR);              \
		CUresult rc = real ARGS;                                                 \
		if (release)                                                             \
			ckt_nosample_end(0);                                              \
		if (ADDR && rc == CUDA_SUCCESS) {                                        \
			if (COUNTED)                                                     \
				atomic_fetch_sub_explicit(live_count(KIND), 1,           \
							  memory_order_relaxed);         \
		} else if (ADDR)                                                         \
			warn_refused(W_##W, rc);                                         \
		t->in_driver--;                                                          \
		return rc;                                                               \
	}                                                                         \
	CKT_TWIN(W, PARAMS, ARGS)

#define CKT_FREE(W, FN, KIND, T, ARG) CKT_DRV_FREE(W, FN, KIND, ARG, (T ARG), (ARG))

CKT_FREE(cuMemFree_v2, CKT_CU_MEM_FREE, CKT_CUDA_DEVICE, CUdeviceptr, dptr)
CKT_FREE(cuMemFreeHost, CKT_CU_MEM_FREE_HOST, CKT_CUDA_PINNED, void *, p)
CKT_DRV_FREE_AS(cuMemRelease, CKT_CU_MEM_RELEASE, CKT_CUDA_VMM, h, handle_take(h),
		(CUmemGenericAllocationHandle h), (h))

/* A VMM handle's memory lives until it is released and unmapped everywhere, whichever comes
 * last (a program may release it right after mapping it): the reader needs the mappings.
 * Mapped: recorded after the call succeeds; unmapped: before the call, like a free. */
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
		  unsigned long long flags)
{
	CKT_DRV_ENTER(cuMemMap, (CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long),
		      (ptr, size, offset, h, flags))
	CUresult rc = real(ptr, size, offset, h, flags);
	if (rc == CUDA_SUCCESS) {
		/* a mapping keeps its handle's memory live after cuMemRelease (see above): counted
		 * for CKT_DRV_CONTEXT_GONE until its unmap, in bytes (one unmap of adjacent
		 * mappings takes them all: counted in calls, a reset after it warned with nothing
		 * live) */
		atomic_fetch_add_explicit(&cuda_mapped_bytes, (uint64_t)size, memory_order_relaxed);
		t->guard++;
		ckt_emit2(t, CKT_EV_CUDA_MAP, 0, ckt_stamp(t), ptr, size, 0, h, 0, 0);
		t->guard--;
	}
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuMemMap, (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h, unsigned long long flags), (ptr, size, offset, h, flags))

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	CKT_DRV_ENTER(cuMemUnmap, (CUdeviceptr, size_t), (ptr, size))
	t->guard++;
	ckt_emit(t, CKT_EV_CUDA_UNMAP, 0, ckt_stamp(t), ptr, size, 0);
	t->guard--;
	CUresult rc = real(ptr, size);
	if (rc == CUDA_SUCCESS)
		atomic_fetch_sub_explicit(&cuda_mapped_bytes, (uint64_t)size, memory_order_relaxed);
	else
		warn_refused(W_cuMemUnmap, rc);
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuMemUnmap, (CUdeviceptr ptr, size_t size), (ptr, size))
CKT_FREE(cuMemHostUnregister, CKT_CU_MEM_HOST_UNREGISTER, CKT_CUDA_REGISTERED, void *, p)

/* Memory the tracer does not count: CUDA arrays, graph memory nodes, memory imported from
 * another process, and the references cuMemRetainAllocationHandle takes (the reader ends a
 * handle's memory at its first cuMemRelease once unmapped). Passed through; the first call of
 * each says so once, so that GPU figures without them are not taken as whole. */
static atomic_int untraced_warned[W_COUNT];

static CKT_NOINLINE void warn_untraced(int w, const char *what)
{
	warn_once(&untraced_warned[w], "the program called ", wraps[w].name, what, UINT64_MAX);
}

#define CKT_DRV_UNTRACED(W, WHAT, PARAMS, ARGS)                                         \
	CUresult W PARAMS                                                                \
	{                                                                                \
		CKT_DRV_ENTER(W, PARAMS, ARGS)                                           \
		CUresult rc = real ARGS;                                                 \
		if (rc == CUDA_SUCCESS)                                                  \
			warn_untraced(W_##W, WHAT);                                      \
		t->in_driver--;                                                          \
		return rc;                                                               \
	}                                                                         \
	CKT_TWIN(W, PARAMS, ARGS)

#define CKT_UNTRACED_MEMORY "; the memory it allocates is not traced: GPU figures leave it out"
CKT_DRV_UNTRACED(cuArrayCreate_v2, " (a CUDA array)" CKT_UNTRACED_MEMORY, (void **arr, const void *desc),
		 (arr, desc))
CKT_DRV_UNTRACED(cuArray3DCreate_v2, " (a CUDA array)" CKT_UNTRACED_MEMORY, (void **arr, const void *desc),
		 (arr, desc))
CKT_DRV_UNTRACED(cuMipmappedArrayCreate, " (a CUDA array)" CKT_UNTRACED_MEMORY,
		 (void **arr, const void *desc, unsigned levels), (arr, desc, levels))
CKT_DRV_UNTRACED(cuGraphAddMemAllocNode, " (graph memory, allocated when the graph runs)" CKT_UNTRACED_MEMORY,
		 (void **node, void *graph, void *const *deps, size_t ndeps, void *params),
		 (node, graph, deps, ndeps, params))
CKT_DRV_UNTRACED(cuMemImportFromShareableHandle,
		 " (memory another process allocated); it is not traced: GPU figures leave it out",
		 (CUmemGenericAllocationHandle * h, void *os_handle, int handle_type), (h, os_handle, handle_type))
/* the 4.1 ABI (same arguments) too: the CUDA 13.0 runtime looks up both */
CKT_DRV_UNTRACED(cuIpcOpenMemHandle, " (memory another process allocated); it is not traced: GPU figures leave it out",
		 (CUdeviceptr * dptr, CUipcMemHandle handle, unsigned flags), (dptr, handle, flags))
CKT_DRV_UNTRACED(cuIpcOpenMemHandle_v2, " (memory another process allocated); it is not traced: GPU figures leave it out",
		 (CUdeviceptr * dptr, CUipcMemHandle handle, unsigned flags), (dptr, handle, flags))
/* a block of another process's pool, imported (CUDA 11.2 on) */
CKT_DRV_UNTRACED(cuMemPoolImportPointer, " (memory another process allocated); it is not traced: GPU figures leave it out",
		 (CUdeviceptr * dptr, void *pool, void *share_data), (dptr, pool, share_data))
CKT_DRV_UNTRACED(cuMemRetainAllocationHandle,
		 "; the references it takes are not counted: a VMM allocation's memory ends at its first "
		 "cuMemRelease once unmapped, maybe early",
		 (CUmemGenericAllocationHandle * h, void *addr), (h, addr))

/* A context reset or destroyed (cudaDeviceReset resets the primary context): the driver frees
 * the memory it held, and drops the host memory registered in it, with no call the tracer
 * records, so what the program had not freed or unregistered stays counted. Said once per entry
 * point, when allocations or registrations the tracer recorded may be live then (a program that
 * freed everything first, as well-kept ones do before cudaDeviceReset at exit, hears nothing),
 * naming the figures that stay high: GPU and pinned for allocations, registered for
 * registrations (a registration alone said the GPU and pinned figures were high, which were
 * exact). A count of them per context would need the context of each allocation in the trace:
 * not in this format. */
struct gone_live {
	long allocs, regs;
};

static inline struct gone_live gone_live_now(void)
{
	struct gone_live g = {
		atomic_load_explicit(&cuda_recorded_live, memory_order_relaxed) +
			(atomic_load_explicit(&cuda_mapped_bytes, memory_order_relaxed) != 0),
		atomic_load_explicit(&cuda_registered_live, memory_order_relaxed),
	};
	return g;
}

/* "the program called <name><how> while ...": HOW says what destroyed the context ("" for a
 * reset or a destroy) */
static CKT_NOINLINE void warn_context_gone(int w, const char *how, struct gone_live g)
{
	if (atomic_exchange(&untraced_warned[w], 1))
		return;
	struct ckt_line l = { .len = 0 };
	ckt_line_str(&l, "cuzktrace: warning: the program called ");
	ckt_line_str(&l, wraps[w].name);
	ckt_line_str(&l, how);
	if (g.allocs > 0 && g.regs > 0)
		ckt_line_str(&l, " while CUDA memory it had allocated was live and host memory it had registered "
				 "(cuMemHostRegister) was still registered; the driver frees that memory and drops "
				 "those registrations there, with no call the tracer records: they stay counted "
				 "(GPU, pinned and registered figures after it, and live at exit, too high by them)");
	else if (g.allocs > 0)
		ckt_line_str(&l, " while CUDA memory it had allocated was live; the driver frees that memory "
				 "there, with no call the tracer records: it stays counted (GPU and pinned figures "
				 "after it, and live at exit, too high by it)");
	else
		ckt_line_str(&l, " while host memory it had registered (cuMemHostRegister) was still "
				 "registered; the driver drops those registrations there, with no call the tracer "
				 "records: they stay counted (registered figures after it, and live at exit, too "
				 "high by them; GPU and pinned figures are not affected)");
	ckt_line_emit(&l);
}

#define CKT_DRV_CONTEXT_GONE(W, PARAMS, ARGS)                                                          \
	CUresult W PARAMS                                                                              \
	{                                                                                              \
		CKT_DRV_ENTER(W, PARAMS, ARGS)                                                         \
		struct gone_live g = gone_live_now();                                                  \
		CUresult rc = real ARGS;                                                               \
		if (rc == CUDA_SUCCESS && (g.allocs > 0 || g.regs > 0))                                \
			warn_context_gone(W_##W, "", g);                                               \
		t->in_driver--;                                                                        \
		return rc;                                                                             \
	}                                                                                       \
	CKT_TWIN(W, PARAMS, ARGS)
/* the 7.0 ABI (same argument) too: the CUDA 13.0 runtime's cudaDeviceReset looks up
 * cuDevicePrimaryCtxReset at version 7000 only, which is this one, not _v2 */
CKT_DRV_CONTEXT_GONE(cuDevicePrimaryCtxReset, (CUdevice dev), (dev))
CKT_DRV_CONTEXT_GONE(cuDevicePrimaryCtxReset_v2, (CUdevice dev), (dev))
CKT_DRV_CONTEXT_GONE(cuCtxDestroy_v2, (CUcontext ctx), (ctx))

/* A primary context's last reference released: the driver destroys the context and frees its
 * memory, as a reset does (a program of the driver API that retained it, as Rust's and Python's
 * bindings do, and released it at the end without freeing everything first). An earlier
 * reference released leaves it active: cuDevicePrimaryCtxGetState after the call tells the
 * two apart (a driver without it: nothing said). */
typedef CUresult primary_state_fn(CUdevice, unsigned *, int *);

static int primary_gone(CUdevice dev)
{
	static void *_Atomic state_fn;
	static atomic_int state_tried;
	if (!atomic_load(&state_tried)) {
		void *p = find_driver_fn("cuDevicePrimaryCtxGetState", "cuDevicePrimaryCtxGetState", 7000, 0);
		if (p)
			atomic_store(&state_fn, p);
		atomic_store(&state_tried, 1);
	}
	primary_state_fn *st = (primary_state_fn *)atomic_load(&state_fn);
	unsigned flags = 0;
	int active = 1;
	return st && st(dev, &flags, &active) == CUDA_SUCCESS && !active;
}

#define CKT_DRV_PRIMARY_RELEASE(W)                                                                     \
	CUresult W(CUdevice dev)                                                                       \
	{                                                                                              \
		CKT_DRV_ENTER(W, (CUdevice), (dev))                                                    \
		struct gone_live g = gone_live_now();                                                  \
		CUresult rc = real(dev);                                                               \
		if (rc == CUDA_SUCCESS && (g.allocs > 0 || g.regs > 0) && primary_gone(dev))           \
			warn_context_gone(W_##W, " and released the last reference to a primary context, " \
					  "which the driver destroys,", g);                            \
		t->in_driver--;                                                                        \
		return rc;                                                                             \
	}                                                                                       \
	CKT_TWIN(W, (CUdevice dev), (dev))
/* the 7.0 ABI (same argument) and the 11.0 one */
CKT_DRV_PRIMARY_RELEASE(cuDevicePrimaryCtxRelease)
CKT_DRV_PRIMARY_RELEASE(cuDevicePrimaryCtxRelease_v2)

#define CKT_FREE_ASYNC(W, FN) \
	CKT_DRV_FREE(W, FN, CKT_CUDA_POOL, dptr, (CUdeviceptr dptr, CUstream s), (dptr, s))

CKT_FREE_ASYNC(cuMemFreeAsync, CKT_CU_MEM_FREE_ASYNC)
CKT_FREE_ASYNC(cuMemFreeAsync_ptsz, CKT_CU_MEM_FREE_ASYNC_PTSZ)

/* ---- cuGetProcAddress: call the driver's, then hand out our wrapper for what we track ---- */
static int match_wrap(const char *sym, int ver, unsigned long long flags)
{
	int mode = flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM ? 2 : 1;
	for (int w = 0; w < W_COUNT; w++)
		if (ver >= wraps[w].lo && ver <= wraps[w].hi &&
		    (wraps[w].mode == 0 || wraps[w].mode == mode) && !strcmp(sym, wraps[w].base))
			return w;
	return -1;
}

static void substitute(const char *sym, void **pfn, int ver, unsigned long long flags)
{
	if (!sym || !pfn || !*pfn || sym[0] != 'c' || sym[1] != 'u' || is_ours(*pfn))
		return;
	int w = match_wrap(sym, ver, flags);
	if (w < 0)
		return;
	if (ver > CKT_CU_MAX_VERSION) {
		warn_once(&warned[WARN_VERSION], "cuGetProcAddress asked for CUDA version ",
			  ", newer than this tracer knows; its memory calls are not counted", "",
			  (uint64_t)ver);
		return;
	}
	if (flags & ~3ull)
		warn_once(&warned[WARN_FLAGS], "cuGetProcAddress called with unknown flags ",
			  "; the stream mode is taken from the bits CUDA defines (2: per-thread default stream)",
			  "", (uint64_t)flags);
	set_real(1, w, *pfn);
	if (atomic_load(&real_fn[1][w]))
		*pfn = ours_by(1, w);
}

CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, unsigned long long flags)
{
	gpa1_fn *real = get_real(W_cuGetProcAddress);
	if (CKT_UNLIKELY(!real))
		return CUDA_ERROR_NOT_INITIALIZED;
	struct ckt_tls *t = &ckt_tls;
	t->in_driver++;
	CUresult rc = real(sym, pfn, ver, flags);
	if (rc == CUDA_SUCCESS)
		substitute(sym, pfn, ver, flags);
	t->in_driver--;
	return rc;
}
CKT_TWIN(cuGetProcAddress, (const char *sym, void **pfn, int ver, unsigned long long flags), (sym, pfn, ver, flags))

/* cuGetProcAddress_v2 and its _ptsz form: the driver's lookup through real, then our wrappers */
static CUresult gpa2_through(gpa2_fn *real, const char *sym, void **pfn, int ver, unsigned long long flags,
			     int *status)
{
	if (CKT_UNLIKELY(!real))
		return CUDA_ERROR_NOT_INITIALIZED;
	struct ckt_tls *t = &ckt_tls;
	t->in_driver++;
	CUresult rc = real(sym, pfn, ver, flags, status);
	if (rc == CUDA_SUCCESS)
		substitute(sym, pfn, ver, flags);
	t->in_driver--;
	return rc;
}

CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, unsigned long long flags, int *status)
{
	return gpa2_through(get_real(W_cuGetProcAddress_v2), sym, pfn, ver, flags, status);
}
CKT_TWIN(cuGetProcAddress_v2, (const char *sym, void **pfn, int ver, unsigned long long flags, int *status), (sym, pfn, ver, flags, status))

/* The per-thread-default-stream form of cuGetProcAddress_v2 (CUDA 12 and later): what cuda.h
 * names cuGetProcAddress in a program built with CUDA_API_PER_THREAD_DEFAULT_STREAM (nvcc
 * --default-stream per-thread), and what the driver hands out for a lookup of cuGetProcAddress
 * with the per-thread flag. Flags without a stream mode mean the per-thread default stream
 * there, as the driver's own does: said to the driver and to substitute(), so that the program
 * gets the _ptsz wrappers, each calling the driver's _ptsz function. */
CUresult cuGetProcAddress_v2_ptsz(const char *sym, void **pfn, int ver, unsigned long long flags, int *status)
{
	if (!(flags & 3ull))
		flags |= CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	return gpa2_through(get_real(W_cuGetProcAddress_v2_ptsz), sym, pfn, ver, flags, status);
}
CKT_TWIN(cuGetProcAddress_v2_ptsz, (const char *sym, void **pfn, int ver, unsigned long long flags, int *status), (sym, pfn, ver, flags, status))

/* ---- dlsym ----
 * glibc's dlsym resolves RTLD_NEXT (and the namespace of RTLD_DEFAULT) relative to the object
 * its return address lies in. A C wrapper that called the real dlsym would make every such
 * lookup relative to libcuzktrace.so. So dlsym is a few instructions of assembly: it asks
 * route() where to go and *jumps* there with the caller's return address untouched. Names we
 * do not track (everything but the ~20 cu* names above) go straight to glibc's dlsym, which
 * sees the true caller: to the program, the interposition is invisible. Tracked names go to
 * dlsym_tracked(), which answers with our wrapper, except with RTLD_NEXT: the next definition
 * after the caller is glibc's answer too (our export, for a caller ahead of us in the search
 * order; for one after us, the calls it forwards already came through our export). A layer of
 * the program's that interposes on the driver and forwards with dlsym(RTLD_NEXT) got our
 * wrapper, whose driver function was that layer's own: the two called each other for good. */
static void *dlsym_tracked(void *handle, const char *name);

static int tracked_index(const char *name)
{
	if (!name || name[0] != 'c' || name[1] != 'u')
		return -1;
	for (int w = 0; w < W_COUNT; w++)
		if (!strcmp(name, wraps[w].name))
			return w;
	return -1;
}

__attribute__((used, visibility("hidden"))) void *ckt_cuda_dlsym_route(const char *name, void *handle);
void *ckt_cuda_dlsym_route(const char *name, void *handle)
{
	if (handle != RTLD_NEXT && tracked_index(name) >= 0)
		return (void *)dlsym_tracked;
	return (void *)ckt_real_dlsym();
}

/* For a tracked name in a handle or RTLD_DEFAULT (not RTLD_NEXT: see above): the driver's
 * function (where that finds our own export, the next definition after this library, which
 * precedes the driver in every search order that can reach our exports), remembered as the
 * real one, and our wrapper handed out instead. If the lookup finds our own export but no
 * driver is loaded, the answer is NULL, as it would be without us. */
static void *dlsym_tracked(void *handle, const char *name)
{
	int w = tracked_index(name);
	dlsym_fn *ds = ckt_real_dlsym();
	if (!ds || w < 0)
		return NULL;
	void *p = ds(handle, name);
	/* the global scope's answer (ours, or RTLD_DEFAULT's), or what the export's route calls
	 * (a handle of the program's layer: its function): the export's route; another (the
	 * driver's handle, loaded RTLD_LOCAL or not): the lookup's */
	int route = handle != RTLD_DEFAULT;
	if (p && is_ours(p)) {
		p = ds(RTLD_NEXT, name);
		route = 0;
	} else if (p && route && p == ckt_elf_lookup_after((void *)&dlsym_tracked, name)) {
		route = 0; /* (read in memory: a dlsym that finds nothing would leave its error for
			    * the program's dlerror, after the program's own lookup succeeded) */
	}
	if (!p)
		return NULL;
	if (handle != RTLD_DEFAULT)
		atomic_store(&cuda_handle, handle);
	set_real(route, w, p);
	return ours_by(route, w);
}

#if defined(__x86_64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, @function\n"
	".p2align 4\n"
	"dlsym:\n"
	".cfi_startproc\n"
	"	push %rdi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	push %rsi\n"
	".cfi_adjust_cfa_offset 8\n"
	"	sub $8, %rsp\n"
	".cfi_adjust_cfa_offset 8\n"
	"	xchg %rsi, %rdi\n" /* route(name, handle) */
	"	call ckt_cuda_dlsym_route\n"
	"	add $8, %rsp\n"
	".cfi_adjust_cfa_offset -8\n"
	"	pop %rsi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	pop %rdi\n"
	".cfi_adjust_cfa_offset -8\n"
	"	jmp *%rax\n"
	".cfi_endproc\n"
	".size dlsym, .-dlsym\n");
#elif defined(__aarch64__)
__asm__(".text\n"
	".globl dlsym\n"
	".type dlsym, %function\n"
	".p2align 2\n"
	"dlsym:\n"
	".cfi_startproc\n"
	"	stp x29, x30, [sp, #-32]!\n"
	".cfi_def_cfa_offset 32\n"
	".cfi_offset 29, -32\n"
	".cfi_offset 30, -24\n"
	"	mov x29, sp\n"
	"	stp x0, x1, [sp, #16]\n"
	"	mov x2, x0\n" /* route(name, handle) */
	"	mov x0, x1\n"
	"	mov x1, x2\n"
	"	bl ckt_cuda_dlsym_route\n"
	"	mov x16, x0\n"
	"	ldp x0, x1, [sp, #16]\n"
	"	ldp x29, x30, [sp], #32\n"
	".cfi_def_cfa_offset 0\n"
	"	br x16\n"
	".cfi_endproc\n"
	".size dlsym, .-dlsym\n");
#else
#error "dlsym interposition needs a tail-jump stub for this architecture"
#endif
