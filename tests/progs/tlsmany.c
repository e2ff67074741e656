/* tlsmany.c: libraries with thread-local data opened at run time (tests/progs/lib/tlsplug.c).
 *   tlsmany many N DIR: opens DIR/1.so ... DIR/N.so (copies of libtlsbare.so: N objects)
 *     and touches each one's TLS. Past 14 or so glibc grows the thread's table of TLS blocks
 *     (the DTV) with realloc, from inside its TLS code: the tracer's stack capture there
 *     ran libunwind's own TLS access, which re-entered that code, and the process aborted
 *     ("double free", status 134) in exact mode from about 30 libraries.
 *   tlsmany loop N LIB: opens LIB, touches its TLS, closes it, N times. glibc frees a closed
 *     library's TLS block at the thread's next TLS access, which was libunwind's, inside a
 *     hook: that free was lost, with a line about signal handlers, and the blocks stayed live.
 * Prints "ok". Nothing of the program's own stays allocated but stdio's buffer. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *touch(void *h)
{
	char *(*f)(void) = (char *(*)(void))dlsym(h, "plug_tls");
	if (!f)
		return NULL;
	char *p = f();
	p[0] = 1;
	return p;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	int n = atoi(argv[2]);
	if (strcmp(argv[1], "many") == 0) {
		for (int i = 1; i <= n; i++) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%d.so", argv[3], i);
			void *h = dlopen(path, RTLD_NOW);
			if (!h || !touch(h)) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
		}
	} else {
		for (int i = 0; i < n; i++) {
			void *h = dlopen(argv[3], RTLD_NOW);
			if (!h || !touch(h) || dlclose(h)) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
		}
	}
	printf("ok\n");
	return 0;
}
