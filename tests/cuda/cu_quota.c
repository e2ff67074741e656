/* cu_quota.c: a program linked with a quota layer of its own (lib/quota.c: refuses device
 * allocations over 64 MiB) before -lcuda. Allocates 1 MiB (allowed), asks for 128 MiB (refused
 * by the layer), frees the first and prints the two results and how many calls the layer saw:
 * "cu_quota: 0 2, 2 calls: done", traced or not. */
#include "cu_min.h"

#include <stdio.h>

extern int quota_calls;

int main(void)
{
	CUcontext ctx;
	CUdeviceptr a = 0, b = 0;
	if (cuzktrace_stub_libcuda_marker != CKT_STUB_MARKER || cuInit(0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return 3;
	CUresult r1 = cuMemAlloc_v2(&a, (size_t)1 << 20);
	CUresult r2 = cuMemAlloc_v2(&b, (size_t)128 << 20);
	if (r1 == CUDA_SUCCESS && cuMemFree_v2(a) != CUDA_SUCCESS)
		return 4;
	printf("cu_quota: %d %d, %d calls: done\n", r1, r2, quota_calls);
	return 0;
}
