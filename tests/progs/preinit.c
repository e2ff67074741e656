/* preinit.c: a function in the program's .preinit_array allocates (as ASan's runtime does):
 * the tracer starts there, before libc has set environ, and must still read its settings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile early;

static void pre(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	early = malloc(100);
}
__attribute__((section(".preinit_array"), used)) static void (*pre_ptr)(int, char **, char **) = pre;

int main(void)
{
	char *volatile p = malloc(1 << 20);
	memset(p, 1, 1 << 20);
	printf("preinit: %d\n", p[5]);
	free(p);
	free(early);
	return 0;
}
