/* sites_dla.c: a library dlopened, used and dlclosed by sites_dl.c before sites_dlb.c is loaded,
 * usually at the same addresses. */
#include <stdlib.h>
#include <string.h>

void *a_alloc(size_t n)
{
	void *p = malloc(n); /* SITE:dla */
	memset(p, 1, n);
	return p;
}
