/* sites_paths.c: one site reached through several call stacks. helper() keeps a block for its
 * caller: f2 asks once for 2,000,000 bytes; f1 for 1,000,000 bytes, called from three lines
 * of main (three stacks of 1,000,000 each). The site holds 5,000,000 bytes at the peak; the
 * callers holding the most are f1 (3,000,000, not the largest single stack, f2's), then main's
 * three lines, each 1,000,000: the shown stack goes through f1 and the first of them.
 * twice() keeps 100,000 and 200,000 bytes from two calls on one line of main: two return
 * addresses, one stack once symbolized. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *volatile keep[4], *volatile keep2[2];

__attribute__((noinline)) void *helper(size_t n)
{
	void *p = malloc(n); /* SITE:paths_helper */
	memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void *f1(void)
{
	void *p = helper(1000000); /* SITE:paths_f1 */
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *f2(void)
{
	void *p = helper(2000000); /* SITE:paths_f2 */
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *twice(size_t n)
{
	void *p = malloc(n); /* SITE:paths_twice */
	__asm__ volatile("" ::: "memory");
	return p;
}

int main(void)
{
	keep2[0] = twice(100000); keep2[1] = twice(200000);
	keep[0] = f2();
	keep[1] = f1(); /* SITE:paths_main1 */
	keep[2] = f1();
	keep[3] = f1();
	usleep(20 * 1000);
	for (int i = 0; i < 4; i++)
		free(keep[i]);
	free(keep2[0]);
	free(keep2[1]);
	return 0;
}
