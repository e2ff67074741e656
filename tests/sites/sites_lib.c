/* sites_lib.c: a library the site test program dlopens, so that a frame lives in a module
 * that was not loaded at start. Built -O2 -fomit-frame-pointer -g like shipped code. */
#include <stdlib.h>
#include <string.h>

void *volatile sites_lib_keep;
void *sites_lib_alloc(size_t n);

void *sites_lib_alloc(size_t n)
{
	char *p = malloc(n); /* SITE:lib */
	memset(p, 0x22, n);
	sites_lib_keep = p;
	return p;
}
