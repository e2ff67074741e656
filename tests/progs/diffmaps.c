/* diffmaps.c: N anonymous mappings of 64 KiB from map_small, live together and touched, beside
 * one 8 MiB heap block, for a while (the peak RSS sample falls then); then all is released.
 *   diffmaps N
 * Mappings are recorded one by one in both modes: a --diff of an exact trace against a
 * default-mode one is a real change of map_small, not sampling noise (t_reader.sh). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static __attribute__((noinline)) void *map_small(void)
{
	void *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	memset(p, 1, 65536);
	return p;
}

static __attribute__((noinline)) void *big(void)
{
	void *p = malloc(8 << 20);
	if (!p)
		_exit(1);
	memset(p, 1, 8 << 20);
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;
	if (n < 1 || n > 1024)
		return 2;
	void *m[1024];
	void *volatile b = big();
	for (int i = 0; i < n; i++)
		m[i] = map_small();
	usleep(60000);
	/* the 8 MiB block first: every RSS sample after it is 8 MiB lower, so the peak RSS is a
	 * sample with all N mappings live. Unmapped first, a sample read just before an munmap
	 * and stamped after its record could be the peak with N - 1 live (1 run in about 30) */
	free(b);
	for (int i = 0; i < n; i++)
		munmap(m[i], 65536);
	return 0;
}
