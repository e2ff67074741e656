/* mapwatch.c: preloaded after libcuzktrace, notes the 256 KiB private anonymous mappings made
 * through mmap (libunwind's per-thread trace cache is one: 16384 slots of 16 bytes), which the
 * tracer's mmap hook passes on to it. unwind_switch asks through mapwatch_get and looks at
 * their pages with mincore. Lock-free: a slot is claimed with an atomic add. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/types.h>

#define MAX 64
static void *maps[MAX];
static int nmaps;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	void *p = real(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && len == 256 * 1024 && (flags & (MAP_PRIVATE | MAP_ANONYMOUS)) == (MAP_PRIVATE | MAP_ANONYMOUS)) {
		int k = __atomic_fetch_add(&nmaps, 1, __ATOMIC_RELAXED);
		if (k < MAX)
			maps[k] = p;
	}
	return p;
}

int mapwatch_get(void ***list)
{
	*list = maps;
	int n = __atomic_load_n(&nmaps, __ATOMIC_RELAXED);
	return n < MAX ? n : MAX;
}
