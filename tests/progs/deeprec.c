/* deeprec.c: one block of 1,000,000 bytes allocated 100 calls deep (a recursion), for the
 * stack depth limit: traced with CUZKTRACE_DEPTH=16 its stack is cut, with 256 it is whole. */
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void rec(int n)
{
	if (n)
		rec(n - 1);
	else
		keep = malloc(1000000);
	__asm__ volatile(""); /* not a tail call */
}

int main(void)
{
	rec(100);
	return 0;
}
