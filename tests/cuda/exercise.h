/* exercise.h: the allocation pattern every CUDA test program runs, whichever path it took to
 * the driver functions in `struct drv`. Everything is allocated, then everything is freed, so
 * the peaks are the sums below (tests/integration/t_cuda.sh checks them):
 *   device (device + pool + VMM on a device): dev0 16 MiB + 1024*100 (pitch) + 6 MiB + 2 MiB
 *   (pools), dev1 3 MiB + 2 MiB (VMM: released while mapped, freed at its unmap)
 *                                                         = 30,511,104 bytes
 *   pinned host: 4 MiB + 2 MiB + 1 MiB (VMM on the host)  =  7,340,032 bytes
 *   managed: 8 MiB; registered (pinned existing memory): 1 MiB
 * While everything is live, three frees through the wrong entry point, which the driver
 * refuses (15 frees recorded, 12 done). */
#include "cu_min.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct drv {
	CUresult (*init)(unsigned);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*set_ctx)(CUcontext);
	CUresult (*alloc)(CUdeviceptr *, size_t);
	CUresult (*pitch)(CUdeviceptr *, size_t *, size_t, size_t, unsigned);
	CUresult (*managed)(CUdeviceptr *, size_t, unsigned);
	CUresult (*alloc_host)(void **, size_t);
	CUresult (*host_alloc)(void **, size_t, unsigned);
	CUresult (*alloc_async)(CUdeviceptr *, size_t, CUstream);
	CUresult (*alloc_pool)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
	CUresult (*default_pool)(CUmemoryPool *, CUdevice);
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			   unsigned long long);
	CUresult (*reg)(void *, size_t, unsigned);
	CUresult (*unreg)(void *);
	CUresult (*free)(CUdeviceptr);
	CUresult (*free_host)(void *);
	CUresult (*free_async)(CUdeviceptr, CUstream);
	CUresult (*release)(CUmemGenericAllocationHandle);
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
	CUresult (*unmap)(CUdeviceptr, size_t);
};

#define MiB (1024 * 1024)
static volatile void *sink; /* keeps the registered buffer alive in the optimizer's eyes */

#define CHECK(call)                                                                   \
	do {                                                                          \
		CUresult rc_ = (call);                                                \
		if (rc_ != CUDA_SUCCESS) {                                            \
			fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, \
				#call, rc_);                                          \
			exit(1);                                                      \
		}                                                                     \
	} while (0)

static void check_marker(int value)
{
	if (value != CKT_STUB_MARKER) {
		fprintf(stderr, "not the test stub libcuda (marker %x)\n", value);
		exit(2);
	}
}

/* unused in cu_pools.c, which takes only the helpers above */
__attribute__((unused)) static void exercise(const struct drv *d)
{
	CUcontext c0, c1;
	CUdeviceptr a, b, m, p1, p2, c;
	size_t pitch = 0;
	void *h1, *h2;
	CUmemoryPool pool;
	CUmemGenericAllocationHandle v, vh;
	CUmemAllocationProp prop;

	CHECK(d->init(0));
	CHECK(d->retain(&c0, 0));
	CHECK(d->retain(&c1, 1));
	CHECK(d->set_ctx(c0));
	CHECK(d->alloc(&a, 16 * MiB));
	CHECK(d->pitch(&b, &pitch, 1000, 100, 4));
	if (pitch != 1024)
		exit(3);
	CHECK(d->managed(&m, 8 * MiB, 1));
	CHECK(d->alloc_host(&h1, 4 * MiB));
	CHECK(d->host_alloc(&h2, 2 * MiB, 0));
	char *buf = malloc(MiB);
	sink = buf;
	CHECK(d->reg(buf, MiB, 0));
	CHECK(d->alloc_async(&p1, 6 * MiB, NULL));
	CHECK(d->default_pool(&pool, 0));
	CHECK(d->alloc_pool(&p2, 2 * MiB, pool, NULL));
	CHECK(d->set_ctx(c1));
	CHECK(d->alloc(&c, 3 * MiB));
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 1;
	CHECK(d->create(&v, 2 * MiB, &prop, 0));
	/* mapped, then released at once (as NVIDIA's samples do): the memory lives until unmapped */
	const CUdeviceptr va = 0x7f3000000000ull;
	CHECK(d->map(va, 2 * MiB, 0, v, 0));
	CHECK(d->release(v));
	/* half of the range: the driver refuses it (the tracer records it first; the reader must
	 * see that it cannot have happened) */
	if (d->unmap(va, MiB) == CUDA_SUCCESS)
		exit(11);
	/* a size no range can have: refused too, and its record is not corruption */
	if (d->unmap(va, (size_t)1 << 60) == CUDA_SUCCESS)
		exit(12);
	prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
	prop.location.id = 0;
	CHECK(d->create(&vh, MiB, &prop, 0));
	/* frees through the wrong entry point, which the driver refuses: the memory stays (the
	 * tracer records them before the call; the reader freed the blocks all the same) */
	if (d->free((CUdeviceptr)h1) == CUDA_SUCCESS || d->free_host((void *)a) == CUDA_SUCCESS ||
	    d->unreg(h2) == CUDA_SUCCESS)
		exit(13);
	memset(buf, 1, MiB);
	/* everything is live: several RSS samples see it. 4 MiB more of heap, touched, only
	 * meanwhile: a later sample (the frees are stamped before the driver's unmap, and the
	 * tracer's own pages grow a little) cannot pass these and become the peak RSS */
	char *volatile hold = malloc(4 * MiB);
	if (!hold)
		exit(14);
	memset(hold, 2, 4 * MiB);
	usleep(60 * 1000);
	free(hold);

	CHECK(d->free_async(p1, NULL));
	CHECK(d->free_async(p2, NULL));
	CHECK(d->free(a));
	CHECK(d->free(b));
	CHECK(d->free(c));
	CHECK(d->free(m));
	CHECK(d->free_host(h1));
	CHECK(d->free_host(h2));
	CHECK(d->unmap(va, 2 * MiB));
	CHECK(d->release(vh));
	CHECK(d->unreg(buf));
	free(buf);
	/* a later, smaller allocation does not move the peaks */
	CHECK(d->set_ctx(c0));
	CHECK(d->alloc(&a, MiB));
	CHECK(d->free(a));
}
