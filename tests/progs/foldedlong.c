/* foldedlong.c: 2^DEPTH distinct call stacks, each a path of DEPTH calls through two functions
 * with names of 240 characters (as long as a C++ or Rust generic's name), each keeping one
 * 16-byte block live until all are made; then all are freed. Its folded stacks at the peak heap
 * are 2^DEPTH lines of some 3.5 KB each (28 MB at the default depth 13) against the few
 * hundred bytes each stack takes in the reader.
 * Usage: foldedlong [depth=13] */
#include <stdlib.h>

static void go(int d, unsigned bits);
static void **blocks;
static unsigned next;

__attribute__((noinline)) static void walk_left_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(int d, unsigned bits)
{
	go(d, bits);
	__asm__ volatile("" ::: "memory"); /* no tail call: each path is its own stack */
}

__attribute__((noinline)) static void walk_right_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy(int d, unsigned bits)
{
	go(d, bits);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void go(int d, unsigned bits)
{
	if (!d) {
		blocks[next++] = malloc(16);
		return;
	}
	if (bits & 1)
		walk_left_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx(d - 1, bits >> 1);
	else
		walk_right_yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy(d - 1, bits >> 1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 13;
	if (depth < 1 || depth > 20)
		return 2;
	blocks = malloc(sizeof(*blocks) << depth);
	if (!blocks)
		return 1;
	for (unsigned i = 0; i < 1u << depth; i++)
		go(depth, i);
	for (unsigned i = 0; i < next; i++)
		free(blocks[i]);
	free(blocks);
	return 0;
}
