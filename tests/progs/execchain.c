/* execchain.c: a chain of execs the tracer's hooks do not see (glibc's execl calls an internal
 * execve):
 *   execchain N
 * keeps 1,000 x (N + 1) bytes, waits 150 ms (past the writer's flush interval: the bytes are in
 * the trace), then, when N > 0, replaces itself by execchain N - 1 through execl. Each image,
 * given the same trace name, must write a trace of its own (tests/integration/t_lifecycle.sh).
 * Exits 9 if the exec fails. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	keep = malloc((size_t)(1000 * (n + 1)));
	usleep(150000);
	if (n <= 0)
		return 0;
	char next[24];
	snprintf(next, sizeof(next), "%ld", n - 1);
	execl("/proc/self/exe", "execchain", next, (char *)NULL);
	return 9;
}
