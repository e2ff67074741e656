/* errno0.c: a program starts with errno 0 (C11 7.5); the tracer's set-up before main must not
 * change that (libunwind's memory checks and probes of existing files fail on purpose). Prints
 * "errno at main: N". */
#include <errno.h>
#include <stdio.h>

int main(void)
{
	int e = errno;
	printf("errno at main: %d\n", e);
	return 0;
}
