/* cu_min.h: the few CUDA driver declarations the stub driver and the test programs need. Our
 * own, written from the documented ABI; no NVIDIA header or code. */
#ifndef CU_MIN_H
#define CU_MIN_H
#include <stddef.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUmemoryPool;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef unsigned long long cuuint64_t;
typedef struct { char bytes[16]; } CUuuid;
typedef struct { char reserved[64]; } CUipcMemHandle;
typedef struct {
	int type;
	int requestedHandleTypes;
	struct { int type; int id; } location;
	void *win32HandleMetaData;
	struct { unsigned char compressionType, gpuDirectRDMACapable; unsigned short usage;
		 unsigned char reserved[4]; } allocFlags;
} CUmemAllocationProp;

typedef struct { int type; int id; } CUmemLocation;
typedef struct {
	int allocType;
	int handleTypes;
	CUmemLocation location;
	void *win32SecurityAttributes;
	size_t maxSize;
	unsigned short usage;
	unsigned char reserved[54];
} CUmemPoolProps;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NOT_INITIALIZED 3
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201
#define CUDA_ERROR_NOT_FOUND 500
#define CU_MEM_LOCATION_TYPE_DEVICE 1
#define CU_MEM_LOCATION_TYPE_HOST 2
#define CU_MEM_LOCATION_TYPE_NONE 0
#define CU_MEM_LOCATION_TYPE_HOST_NUMA 3
#define CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT 4
#define CU_MEM_ALLOCATION_TYPE_PINNED 1
#define CU_MEM_ALLOCATION_TYPE_MANAGED 2
#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 1
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM 2
#define CU_GET_PROC_ADDRESS_SUCCESS 0
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1
#define CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT 2

CUresult cuInit(unsigned flags);
CUresult cuDriverGetVersion(int *v);
CUresult cuDeviceGetCount(int *n);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned *flags, int *active);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxGetDevice(CUdevice *dev);
CUresult cuDeviceGetUuid(CUuuid *u, CUdevice dev);
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice dev);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned elem);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned flags);
CUresult cuMemAllocHost_v2(void **pp, size_t bytesize);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned flags);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream s);
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream s);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream s);
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props);
CUresult cuMemPoolDestroy(CUmemoryPool pool);
CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);
CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
		     unsigned long long flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle h);
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
		  unsigned long long flags);
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size);
CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned flags);
CUresult cuMemHostUnregister(void *p);
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *va);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *os_handle, int type);
CUresult cuArrayCreate_v2(void **arr, const void *desc);
CUresult cuArray3DCreate_v2(void **arr, const void *desc);
CUresult cuMipmappedArrayCreate(void **arr, const void *desc, unsigned levels);
CUresult cuGraphAddMemAllocNode(void **node, void *graph, void *const *deps, size_t ndeps, void *params);
CUresult cuDevicePrimaryCtxReset(CUdevice dev);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
CUresult cuIpcOpenMemHandle(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags);
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle, unsigned flags);
CUresult cuMemPoolImportPointer(CUdeviceptr *dptr, CUmemoryPool pool, void *share_data);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemFreeHost(void *p);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuGetProcAddress(const char *sym, void **pfn, int ver, cuuint64_t flags);
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status);
CUresult cuGetProcAddress_v2_ptsz(const char *sym, void **pfn, int ver, cuuint64_t flags, int *status);

typedef CUresult gpa1_t(const char *, void **, int, cuuint64_t);
typedef CUresult gpa2_t(const char *, void **, int, cuuint64_t, int *);

/* stub only: how many calls each variant received (tests check the _ptsz ones were used) */
extern int cuzktrace_stub_libcuda_marker;
extern int cuzktrace_stub_refuse_next_free;
#define CKT_STUB_MARKER 0x5eedc0da
#endif
