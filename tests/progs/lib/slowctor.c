/* slowctor.c: a library whose constructor sleeps 2 s: dlopen holds the loader's lock for that
 * long (tests/progs/forkexecl.c) */
#include <unistd.h>

__attribute__((constructor)) static void slow(void)
{
	sleep(2);
}
