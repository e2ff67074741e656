/* zerofree.c: main keeps 100 bytes; then zero_churn allocates 0 bytes and frees them. The sites
 * CSV's row of zero_churn shows its own call stack, though its only stack allocated 0 bytes. */
#include <stdlib.h>

static void *volatile sink[2];

__attribute__((noinline)) static void zero_churn(void)
{
	void *p = malloc(0);
	sink[1] = p;
	free(p);
}

int main(void)
{
	sink[0] = malloc(100);
	zero_churn();
	return 0;
}
