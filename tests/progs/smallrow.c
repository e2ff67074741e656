/* smallrow.c: keeps N blocks of 100 bytes (default 2,000) from one function, table_row, and
 * exits: a row of small blocks that a trace of the default mode may hold no sample of
 * (tests/integration/t_reader.sh, --diff's noise). */
#include <stdlib.h>

static void *volatile keep;

static __attribute__((noinline)) void *table_row(void)
{
	void *p = malloc(100);
	keep = p;
	return p;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	for (long i = 0; i < n; i++)
		(void)table_row();
	return 0;
}
