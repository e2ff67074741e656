/* cu_quota.c: a program linked with a quota layer of its own (lib/quota.c: refuses device
 * allocations over 64 MiB) before -lcuda. Allocates 1 MiB (allowed), asks for 128 MiB (refused
 * by the layer), frees the first and prints the two results and how many calls the layer saw:
 * "cu_quota: 0 2, 2 calls: done", traced or not.
 * With an argument, the program also reaches cuMemAlloc by a lookup, which gives the driver's
 * own function, past the layer (as the CUDA runtime reaches the driver), and allocates through
 * both routes; the results must be those of the untraced run:
 *   gpafirst     1 MiB through cuGetProcAddress_v2's pointer, then 128 MiB through the linked
 *                symbol (the layer refuses it): "cu_quota gpafirst: 0 2, 1 calls: done"
 *   handlefirst  the same with the pointer dlsym gives for libcuda.so.1's handle
 *   linkfirst    1 MiB through the linked symbol (the layer's), then the lookup, and 128 MiB
 *                through its pointer (the driver's, no quota): "cu_quota linkfirst: 0 0, 1 calls: done"
 *   layerhandle  1 MiB through cuGetProcAddress_v2's pointer, then 128 MiB through the pointer
 *                dlsym gives for the layer's own handle (the layer's function: it refuses):
 *                "cu_quota layerhandle: 0 2, 1 calls: done"
 *   layerhandle2 the layer's handle first: 1 MiB through it, then 128 MiB through the driver's
 *                pointer from cuGetProcAddress_v2: "cu_quota layerhandle2: 0 0, 1 calls: done"
 * and frees what was allocated. */
#include "cu_min.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

extern int quota_calls;

typedef CUresult alloc_fn(CUdeviceptr *, size_t);

int main(int argc, char **argv)
{
	CUcontext ctx;
	CUdeviceptr a = 0, b = 0;
	if (cuzktrace_stub_libcuda_marker != CKT_STUB_MARKER || cuInit(0) != CUDA_SUCCESS ||
	    cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
		return 3;
	if (argc < 2) {
		CUresult r1 = cuMemAlloc_v2(&a, (size_t)1 << 20);
		CUresult r2 = cuMemAlloc_v2(&b, (size_t)128 << 20);
		if (r1 == CUDA_SUCCESS && cuMemFree_v2(a) != CUDA_SUCCESS)
			return 4;
		printf("cu_quota: %d %d, %d calls: done\n", r1, r2, quota_calls);
		return 0;
	}
	if (!strncmp(argv[1], "layerhandle", 11)) {
		int layer_first = argv[1][11] == '2';
		void *h = dlopen("libquota.so", RTLD_NOW | RTLD_NOLOAD);
		alloc_fn *layer = NULL, *drv = NULL;
		int st = 0;
		if (layer_first)
			layer = h ? (alloc_fn *)dlsym(h, "cuMemAlloc_v2") : NULL;
		if (cuGetProcAddress_v2("cuMemAlloc", (void **)&drv, 12000, 0, &st) != CUDA_SUCCESS)
			drv = NULL;
		if (!layer_first)
			layer = h ? (alloc_fn *)dlsym(h, "cuMemAlloc_v2") : NULL;
		if (!layer || !drv)
			return 5;
		CUresult r1 = layer_first ? layer(&a, (size_t)1 << 20) : drv(&a, (size_t)1 << 20);
		CUresult r2 = layer_first ? drv(&b, (size_t)128 << 20) : layer(&b, (size_t)128 << 20);
		if ((r1 == CUDA_SUCCESS && cuMemFree_v2(a) != CUDA_SUCCESS) ||
		    (r2 == CUDA_SUCCESS && cuMemFree_v2(b) != CUDA_SUCCESS))
			return 4;
		printf("cu_quota %s: %d %d, %d calls: done\n", argv[1], r1, r2, quota_calls);
		return 0;
	}
	int linkfirst = !strcmp(argv[1], "linkfirst");
	CUresult r1 = linkfirst ? cuMemAlloc_v2(&a, (size_t)1 << 20) : CUDA_SUCCESS, r2;
	alloc_fn *looked = NULL;
	int st = 0;
	if (!strcmp(argv[1], "handlefirst")) {
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		looked = h ? (alloc_fn *)dlsym(h, "cuMemAlloc_v2") : NULL;
	} else if (cuGetProcAddress_v2("cuMemAlloc", (void **)&looked, 12000, 0, &st) != CUDA_SUCCESS) {
		looked = NULL;
	}
	if (!looked)
		return 5;
	if (linkfirst) { /* the linked symbol called (and its function found) before the lookup */
		r2 = looked(&b, (size_t)128 << 20);
	} else {
		r1 = looked(&a, (size_t)1 << 20);
		r2 = cuMemAlloc_v2(&b, (size_t)128 << 20);
	}
	if ((r1 == CUDA_SUCCESS && cuMemFree_v2(a) != CUDA_SUCCESS) || (r2 == CUDA_SUCCESS && cuMemFree_v2(b) != CUDA_SUCCESS))
		return 4;
	printf("cu_quota %s: %d %d, %d calls: done\n", argv[1], r1, r2, quota_calls);
	return 0;
}
