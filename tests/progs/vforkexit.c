/* vforkexit.c: keeps 1,000 x 32 bytes, then a vfork child whose exec fails ends with exit(127)
 * (it should use _exit): glibc's exit runs the parent's exit handlers in the parent's memory,
 * the tracer's destructor among them, so the parent's trace ends cut short. The tracer says so
 * once, from the child. Exits 0 when the child's status was 127. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep[1000];

int main(void)
{
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	pid_t c = vfork();
	if (c == 0) {
		execl("/nonexistent/program", "program", (char *)NULL);
		exit(127);
	}
	int st;
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 2;
	return WIFEXITED(st) && WEXITSTATUS(st) == 127 ? 0 : 1;
}
