/* quota.c: a layer of the program's own between it and the driver, linked before -lcuda (as a
 * quota or logging layer is): it defines cuMemAlloc_v2, refuses requests over 64 MiB and
 * forwards the others to the next definition, found with dlsym(RTLD_NEXT): in its constructor
 * with QUOTA_CTOR, else at the first call. cu_quota counts the calls it saw. */
#include "cu_min.h"

#include <dlfcn.h>

static CUresult (*next_alloc)(CUdeviceptr *, size_t);
int quota_calls;

#ifdef QUOTA_CTOR
__attribute__((constructor)) static void quota_init(void)
{
	next_alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
}
#endif

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	if (!next_alloc)
		next_alloc = (CUresult(*)(CUdeviceptr *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
	quota_calls++;
	if (n > ((size_t)64 << 20))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return next_alloc ? next_alloc(p, n) : CUDA_ERROR_NOT_INITIALIZED;
}
