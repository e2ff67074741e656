/* latefree.c: 3,000 blocks of 1,000 bytes made by make_rows, then each grown to 1,010 bytes by
 * realloc in grow_rows (every one moves: its neighbour is the next block), held 20 ms, then
 * freed. The heap rises 16 bytes a step while it grows, so its peak is the end of the growth,
 * when none of make_rows's blocks is live: exact mode gives grow_rows all of it, make_rows
 * nothing. In the default mode a peak reached as make_rows ended can keep its moment while the
 * growth's running totals, made within a tick of it while the heap held still, count there
 * with the growth's samples; the frees of make_rows's samples among them must leave the
 * peak's estimates too (before 0.2.58 they stayed: make_rows about 1.6 MB at the peak). */
#include <stdlib.h>
#include <unistd.h>

#define N 3000
static void *rows[N];

__attribute__((noinline)) static void make_rows(void)
{
	for (int i = 0; i < N; i++)
		rows[i] = malloc(1000);
}

__attribute__((noinline)) static void grow_rows(void)
{
	for (int i = 0; i < N; i++)
		rows[i] = realloc(rows[i], 1010);
}

int main(void)
{
	make_rows();
	grow_rows();
	usleep(20000);
	for (int i = 0; i < N; i++)
		free(rows[i]);
	return 0;
}
