/* samename_dev.c: the second file of tests/cuda/cu_samename.c, linked into it: a static
 * dev_alloc of the same name as the program's own, in another file. */
#include "cu_min.h"

CUdeviceptr samename_dev_make(size_t n);

__attribute__((noinline)) static CUdeviceptr dev_alloc(size_t n)
{
	CUdeviceptr p = 0;
	return cuMemAlloc_v2(&p, n) == CUDA_SUCCESS ? p : 0;
}

CUdeviceptr samename_dev_make(size_t n)
{
	CUdeviceptr p = dev_alloc(n);
	__asm__ volatile("" ::: "memory"); /* not a tail call: samename_dev_make stays a frame */
	return p;
}
