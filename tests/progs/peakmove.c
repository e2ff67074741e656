/* peakmove.c LOAD COMPUTE: load_params keeps LOAD MiB, frees them, then compute keeps COMPUTE
 * MiB and frees them: with "20 10" the peak heap is load_params', with "10 20" compute's. Two
 * runs of one program whose peak moved share no function there: --diff must not take them for
 * two programs under different names. Prints "done". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep[64];

__attribute__((noinline)) static void load_params(size_t mb)
{
	for (size_t i = 0; i < mb && i < 64; i++)
		keep[i] = memset(malloc(1 << 20), 1, 1 << 20);
	for (size_t i = 0; i < mb && i < 64; i++)
		free(keep[i]);
}

__attribute__((noinline)) static void compute(size_t mb)
{
	for (size_t i = 0; i < mb && i < 64; i++)
		keep[i] = memset(malloc(1 << 20), 2, 1 << 20);
	for (size_t i = 0; i < mb && i < 64; i++)
		free(keep[i]);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	load_params(strtoul(argv[1], NULL, 10));
	compute(strtoul(argv[2], NULL, 10));
	puts("done");
	return 0;
}
