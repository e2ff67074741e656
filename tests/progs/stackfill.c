/* stackfill.c: many distinct deep call stacks, to fill the tracer's memory for stacks. A
 * recursion PAD calls deep, then a binary one of LEVELS calls through two different functions
 * (left: a bit 0, right: a bit 1): each of the 2^LEVELS paths ends in a malloc of 16 bytes,
 * freed at once, from a call stack of its own. Traced with CUZKTRACE_DEPTH=256 under
 * `ulimit -v` of 512 MiB (the tracer then reserves 16 MiB for stack frames: 2 KiB a stack of
 * 256 frames) the frames of 16,384 stacks do not fit; it prints "stackfill: <allocations>".
 * Usage: stackfill [LEVELS (default 14)] */
#include <stdio.h>
#include <stdlib.h>

#define PAD 240

static unsigned long calls;

static void step(unsigned path, int level);

__attribute__((noinline)) static void left(unsigned path, int level)
{
	step(path, level);
	__asm__ volatile(""); /* not a tail call */
}

__attribute__((noinline)) static void right(unsigned path, int level)
{
	step(path, level);
	__asm__ volatile("");
}

__attribute__((noinline)) static void step(unsigned path, int level)
{
	if (!level) {
		void *volatile p = malloc(16);
		free(p);
		calls++;
	} else if (path & 1) {
		right(path >> 1, level - 1);
	} else {
		left(path >> 1, level - 1);
	}
	__asm__ volatile("");
}

__attribute__((noinline)) static void pad(int n, unsigned path, int levels)
{
	if (n)
		pad(n - 1, path, levels);
	else
		step(path, levels);
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	int levels = argc > 1 ? atoi(argv[1]) : 14;
	if (levels < 0 || levels > 20)
		return 2;
	for (unsigned path = 0; path < 1u << levels; path++)
		pad(PAD, path, levels);
	printf("stackfill: %lu\n", calls);
	return 0;
}
