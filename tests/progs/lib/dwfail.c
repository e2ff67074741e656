/* dwfail.c: libdw out of memory, on any machine. Preloaded into cuzktrace-report, it fails the
 * malloc, calloc and realloc calls made from inside libdw.so after the first CKT_DWFAIL_AFTER of
 * them (unset: none fail); the reader's own calls, and every other library's, go through. The
 * reader must then end with its own line (libdw's out-of-memory handler), not libdw's
 * "libdw: Cannot allocate memory", nor crash. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static uintptr_t lo, hi; /* libdw's mapped text and data */
static long after = -1, seen;
static int busy;

static int find(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libdw.so"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		lo = lo && lo < a ? lo : a;
		hi = hi > b ? hi : b;
	}
	return 1;
}

/* whether this call, made from ret, fails */
static int fail(void *ret)
{
	if (busy)
		return 0;
	busy = 1;
	if (!lo) {
		const char *e = getenv("CKT_DWFAIL_AFTER");
		after = e ? atol(e) : -1;
		dl_iterate_phdr(find, NULL);
	}
	busy = 0;
	if (after < 0 || (uintptr_t)ret < lo || (uintptr_t)ret >= hi)
		return 0;
	if (seen++ < after)
		return 0;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}
