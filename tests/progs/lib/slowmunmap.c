/* slowmunmap.c: preloaded after libcuzktrace, so the tracer's munmap hook calls this munmap as
 * the real one. It makes two sizes behave as the kernel can, on demand:
 *   SLOWMUNMAP_MS=N   a munmap of exactly 32 MiB or 8 MiB takes N ms more (a big mapping of
 *                     touched pages takes seconds to tear down: 0.3 s per 4 GiB here)
 *   48 MiB            fails with ENOMEM and unmaps nothing, as the kernel does when the split
 *                     the call needs would pass vm.max_map_count
 * Every other call goes to the next munmap unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int munmap(void *addr, size_t len)
{
	if (len == (size_t)48 << 20) {
		errno = ENOMEM;
		return -1;
	}
	const char *ms = getenv("SLOWMUNMAP_MS");
	if ((len == (size_t)32 << 20 || len == (size_t)8 << 20) && ms) {
		long n = atol(ms);
		struct timespec d = {n / 1000, n % 1000 * 1000000L};
		while (nanosleep(&d, &d) != 0 && errno == EINTR)
			;
	}
	return (int)syscall(SYS_munmap, addr, len);
}
