/* protnone.c: address space reserved with PROT_NONE, as the CUDA driver and some allocators do,
 * then opened and closed in parts with mprotect. Only accessible pages are mapped memory:
 *   reserve(): 64 MiB PROT_NONE (reserved, no mapped bytes)
 *   plain():    8 MiB read-write, touched; 2 MiB of it made read-only (still mapped)  -> 8
 *   4 MiB of the reservation opened read-write, touched                              -> 12
 *   1 MiB of those closed again (PROT_NONE)                                          -> 11
 *   2 MiB more opened with pkey_mprotect (key -1: the default), if the kernel has it  -> 13
 * Nothing is unmapped: at exit 61 MiB (59 MiB with pkey_mprotect) are still reserved.
 * Prints "protnone: pkey 1" (or 0) so the test knows which figures to expect. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1024ul * 1024ul)

static char *reserve(size_t len)
{
	char *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

static char *plain(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	memset(p, 1, len);
	return p;
}

int main(void)
{
	char *r = reserve(64 * MiB);
	char *w = plain(8 * MiB);
	if (mprotect(w, 2 * MiB, PROT_READ))
		_exit(4);
	if (mprotect(r + 16 * MiB, 4 * MiB, PROT_READ | PROT_WRITE))
		_exit(5);
	memset(r + 16 * MiB, 2, 4 * MiB);
	if (mprotect(r + 16 * MiB, 1 * MiB, PROT_NONE))
		_exit(6);
	int pkey = pkey_mprotect(r + 32 * MiB, 2 * MiB, PROT_READ | PROT_WRITE, -1) == 0;
	if (pkey)
		memset(r + 32 * MiB, 3, 2 * MiB);
	usleep(30000); /* RSS samples */
	printf("protnone: pkey %d\n", pkey);
	return 0;
}
