/* notsc.c: forbids itself the time-stamp counter (prctl PR_SET_TSC, PR_TSC_SIGSEGV, as
 * record/replay tools and timing-hardened sandboxes do), then makes 100,000 malloc/free pairs
 * of 64 bytes and keeps one block of 1 MiB; it reads no clock itself. The tracer's clock went
 * through the vDSO's TSC read and the program died of SIGSEGV (before 0.2.10). Prints
 * "notsc: ok" with write (no stdio buffer). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

static void *volatile sink;

int main(void)
{
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0) {
		perror("notsc: prctl");
		return 1;
	}
	for (int i = 0; i < 100000; i++) {
		sink = malloc(64);
		free(sink);
	}
	sink = malloc(1 << 20);
	return write(1, "notsc: ok\n", 10) == 10 ? 0 : 1;
}
