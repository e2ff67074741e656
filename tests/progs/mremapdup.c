/* mremapdup.c: mremap calls that leave the old range mapped.
 *   dup        a 4-page MAP_SHARED file mapping grown to 8 pages, then duplicated with
 *              mremap(old, 0, 2 pages, MREMAP_MAYMOVE): file-backed 8 + 2 pages, anonymous 0
 *   dontunmap  4 anonymous pages moved with MREMAP_MAYMOVE | MREMAP_DONTUNMAP: the old range
 *              stays, so 8 anonymous pages (prints "unsupported" when the kernel refuses)
 * Everything stays mapped until exit. The file is argv[2] (created, 16 pages). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

int main(int argc, char **argv)
{
	long P = sysconf(_SC_PAGESIZE);
	if (argc > 2 && !strcmp(argv[1], "dup")) {
		int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || ftruncate(fd, 16 * P) < 0)
			return 2;
		char *a = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		char *b = a == MAP_FAILED ? MAP_FAILED : mremap(a, 4 * P, 8 * P, MREMAP_MAYMOVE);
		char *c = b == MAP_FAILED ? MAP_FAILED : mremap(b, 0, 2 * P, MREMAP_MAYMOVE);
		if (c == MAP_FAILED)
			return 3;
		puts("mremapdup: done");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "dontunmap")) {
		char *a = mmap(NULL, 4 * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a == MAP_FAILED)
			return 3;
		memset(a, 1, 4 * P);
		char *b = mremap(a, 4 * P, 4 * P, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
		puts(b == MAP_FAILED ? "mremapdup: unsupported" : "mremapdup: done");
		return 0;
	}
	fputs("usage: mremapdup dup FILE | dontunmap\n", stderr);
	return 2;
}
