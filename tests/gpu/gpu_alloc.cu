// gpu_alloc.cu: known CUDA allocations through the runtime API, for tests/gpu/run.sh. Built by
// nvcc with its default *static* CUDA runtime, the case that symbol-level cudaMalloc hooks miss.
// Prints one "delta NAME BYTES" line per device allocation (cudaMemGetInfo before/after) and
// "expect KIND BYTES" lines with the sizes asked for, then frees everything. Where the device
// supports pools on the host (CUDA 12.6 drivers on), 32 MiB come from a pool created on the
// host: pinned host memory, not GPU memory (before 0.2.41 the tracer counted them as GPU pool
// memory). With the argument
// "live": 1 MiB of device memory is left live across the cudaDeviceReset at the end, of which
// the tracer must say one line.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define MiB (1024ull * 1024ull)
#define CHECK(x)                                                                        \
	do {                                                                            \
		cudaError_t e_ = (x);                                                   \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,      \
				cudaGetErrorString(e_));                                \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

static size_t used_now()
{
	size_t free_b = 0, total_b = 0;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	return total_b - free_b;
}

int main(int argc, char **argv)
{
	const size_t dev_n = 256 * MiB, host1_n = 64 * MiB, host2_n = 128 * MiB, pool_n = 96 * MiB,
		     managed_n = 32 * MiB, hpool_n = 32 * MiB;
	void *dev = nullptr, *host1 = nullptr, *host2 = nullptr, *pool = nullptr, *managed = nullptr,
	     *hpool = nullptr;
	cudaMemPool_t host_pool = nullptr;
	cudaStream_t s;

	CHECK(cudaSetDevice(0));
	CHECK(cudaFree(0)); // creates the context before anything is measured
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaDeviceSynchronize());

	size_t u0 = used_now();
	CHECK(cudaMalloc(&dev, dev_n));
	size_t u1 = used_now();
	printf("delta device %zu\n", u1 - u0);

	CHECK(cudaMallocHost(&host1, host1_n));
	CHECK(cudaHostAlloc(&host2, host2_n, cudaHostAllocPortable));
	((volatile char *)host1)[0] = 1;
	((volatile char *)host2)[0] = 1;

	size_t u2 = used_now();
	CHECK(cudaMallocAsync(&pool, pool_n, s));
	CHECK(cudaStreamSynchronize(s));
	size_t u3 = used_now();
	printf("delta pool %zu\n", u3 - u2);

	CHECK(cudaMallocManaged(&managed, managed_n));

	// a pool on the host (by number: older headers lack the names), where the device has them
	int host_pools = 0;
	if (cudaDeviceGetAttribute(&host_pools, (cudaDeviceAttr)144 /* HostMemoryPoolsSupported */, 0) != cudaSuccess)
		host_pools = 0;
	(void)cudaGetLastError();
	if (host_pools) {
		cudaMemPoolProps props = {};
		props.allocType = cudaMemAllocationTypePinned;
		props.location.type = (cudaMemLocationType)2; // host
		props.location.id = 0;
		CHECK(cudaMemPoolCreate(&host_pool, &props));
		CHECK(cudaMallocFromPoolAsync(&hpool, hpool_n, host_pool, s));
		CHECK(cudaStreamSynchronize(s));
		((volatile char *)hpool)[0] = 1;
	}

	printf("expect device %zu\n", dev_n);
	printf("expect pool %zu\n", pool_n);
	printf("expect gpu %zu\n", dev_n + pool_n);
	printf("expect pinned %zu\n", host1_n + host2_n + (host_pools ? hpool_n : 0));
	printf("expect managed %zu\n", managed_n);
	printf("host pool %s\n", host_pools ? "32 MiB (in pinned)" : "not supported by the device: not tested");
	fflush(stdout);

	CHECK(cudaFreeAsync(pool, s));
	if (host_pools) {
		CHECK(cudaFreeAsync(hpool, s));
		CHECK(cudaStreamSynchronize(s));
		CHECK(cudaMemPoolDestroy(host_pool));
	}
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaFree(dev));
	CHECK(cudaFreeHost(host1));
	CHECK(cudaFreeHost(host2));
	CHECK(cudaFree(managed));
	CHECK(cudaStreamDestroy(s));
	void *left = nullptr;
	if (argc > 1 && argv[1][0] == 'l')
		CHECK(cudaMalloc(&left, MiB));
	// everything is freed (but "live"'s 1 MiB): the reset (cuDevicePrimaryCtxReset, the CUDA
	// 7.0 ABI the runtime looks up) leaves nothing behind, and the tracer, whose count of live
	// allocations must be 0 here, says nothing of it
	CHECK(cudaDeviceReset());
	printf("gpu_alloc: done\n");
	return 0;
}
