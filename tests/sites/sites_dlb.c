/* sites_dlb.c: loaded by sites_dl.c after sites_dla.c was unloaded, usually where it was. */
#include <stdlib.h>
#include <string.h>

static char pad[64];

void *b_alloc(size_t n)
{
	void *p = malloc(n); /* SITE:dlb */
	memset(p, 2 + pad[0], n);
	return p;
}
