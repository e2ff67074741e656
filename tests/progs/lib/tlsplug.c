/* tlsplug.c: a plugin with thread-local data (global-dynamic TLS, as any shared library's
 * __thread variable): its constructor keeps 16 blocks of 1,000 bytes, its destructor frees
 * them. tests/progs/tlsmany.c opens copies of it. */
#include <stdlib.h>
#include <string.h>

static void *volatile keep[16];
__thread char tlsbuf[100000];

__attribute__((constructor)) static void plug_init(void)
{
	for (int i = 0; i < 16; i++)
		keep[i] = malloc(1000);
}

__attribute__((destructor)) static void plug_fini(void)
{
	for (int i = 0; i < 16; i++)
		free(keep[i]);
}

char *plug_tls(void)
{
	return tlsbuf;
}
