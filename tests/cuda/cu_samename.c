/* cu_samename.c: two static functions of one name, dev_alloc, here and in
 * tests/cuda/lib/samename_dev.c (linked into this program), that allocate CUDA device memory
 * only, for --diff.
 *   cu_samename [swap]
 * 1 MiB from the other file's dev_alloc, freed, then 4 MiB from this file's, live at the peak
 * GPU and freed before the end; with "swap" the other way round. The peak GPU is 4 MiB either
 * way: 4 MiB moved from one dev_alloc to the other, which --diff read as "no change" for one
 * function "dev_alloc" (a site that allocated device memory only was not looked at for its
 * file). Prints "cu_samename: done"; status 2 without the stub driver, 3 when a call fails. */
#include "cu_min.h"

#include <stdio.h>
#include <string.h>

CUdeviceptr samename_dev_make(size_t n);

__attribute__((noinline)) static CUdeviceptr dev_alloc(size_t n)
{
	CUdeviceptr p = 0;
	return cuMemAlloc_v2(&p, n) == CUDA_SUCCESS ? p : 0;
}

int main(int argc, char **argv)
{
	if (cuzktrace_stub_libcuda_marker != CKT_STUB_MARKER)
		return 2;
	int swap = argc > 1 && !strcmp(argv[1], "swap");
	CUcontext c;
	if (cuInit(0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&c, 0) != CUDA_SUCCESS ||
	    cuCtxSetCurrent(c) != CUDA_SUCCESS)
		return 3;
	CUdeviceptr small = swap ? dev_alloc(1 << 20) : samename_dev_make(1 << 20);
	if (!small || cuMemFree_v2(small) != CUDA_SUCCESS)
		return 3;
	CUdeviceptr big = swap ? samename_dev_make(4 << 20) : dev_alloc(4 << 20);
	if (!big || cuMemFree_v2(big) != CUDA_SUCCESS)
		return 3;
	printf("cu_samename: done\n");
	return 0;
}
