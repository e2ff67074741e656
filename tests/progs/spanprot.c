/* spanprot.c: N one-page anonymous mappings made side by side with MAP_FIXED in a reservation
 * of the program's own (the kernel merges them into one area), then R mprotects of the whole
 * span, alternately read-only and read-write, and one munmap of it. The kernel changes one area
 * per call; the trace holds N mappings. Usage: spanprot N R */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	size_t P = (size_t)sysconf(_SC_PAGESIZE);
	long n = atol(argv[1]), rounds = atol(argv[2]);
	char *base = mmap(NULL, (size_t)n * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return 3;
	for (long i = 0; i < n; i++)
		if (mmap(base + (size_t)i * P, P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			return 3;
	for (long r = 0; r < rounds; r++)
		if (mprotect(base, (size_t)n * P, r & 1 ? PROT_READ | PROT_WRITE : PROT_READ))
			return 4;
	munmap(base, (size_t)n * P);
	printf("%ld pages, %ld mprotects\n", n, rounds);
	return 0;
}
