/* funcsplit.c: one function keeps small blocks beside one big block, for --diff of two
 * default-mode runs.
 *   funcsplit MIB [mid]
 * synth() keeps 2,000 blocks of 4 KiB (under the default mode's sampling rate: its bytes by
 * function are an estimate) and one block of MIB MiB (over the rate: recorded on its own,
 * exact); other() keeps 1,000 blocks of 2 KiB (an estimate alone); params() keeps one block
 * of 16 MiB (exact alone). Everything is kept to the end: the peak heap and the heap live at
 * exit. Between runs of MIB 8 and 4, synth holds 4 MiB less, exactly, whatever its small
 * blocks' estimate says: --diff read "within sampling noise" for it. With "mid", mid() also
 * keeps 40 blocks of 200 KiB: sampled by the default rate, recorded on their own by a rate of
 * 64 KiB, so two runs at those rates differ by sampling alone there. Prints "funcsplit:
 * done". Run it only with the tracer preloaded. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[3042];

__attribute__((noinline)) static void synth(size_t big)
{
	for (int i = 0; i < 2000; i++)
		keep[i] = memset(malloc(4096), 1, 4096);
	keep[2000] = memset(malloc(big), 2, big);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void other(void)
{
	for (int i = 0; i < 1000; i++)
		keep[2001 + i] = memset(malloc(2048), 3, 2048);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void params(void)
{
	keep[3001] = memset(malloc(16 << 20), 4, 16 << 20);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void mid(void)
{
	for (int i = 0; i < 40; i++)
		keep[3002 + i] = memset(malloc(200 << 10), 5, 200 << 10);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 8;
	if (mib < 1 || mib > 1024)
		return 2;
	params();
	synth(mib << 20);
	other();
	if (argc > 2 && !strcmp(argv[2], "mid"))
		mid();
	return write(1, "funcsplit: done\n", 16) == 16 ? 0 : 1;
}
