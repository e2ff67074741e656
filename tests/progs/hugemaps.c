/* hugemaps.c: maps and unmaps 64 TiB of address space (MAP_NORESERVE, no page touched) N times
 * (argv[1]; default 65,537): 2^62 bytes and more allocated over a run of a fraction of a second,
 * which no sum of the reader holds (tests/integration/t_reader.sh). Exits 0, or 1 with a line
 * when the kernel refuses the mapping (an address space below 64 TiB). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	const size_t len = (size_t)1 << 46;
	long n = argc > 1 ? atol(argv[1]) : 65537;
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			perror("hugemaps: mmap of 64 TiB");
			return 1;
		}
		munmap(p, len);
	}
	return 0;
}
