/* vforkquick.c: a vfork child that ends with quick_exit(3) runs the at_quick_exit handlers in
 * the parent's memory (glibc marks them run there), the tracer's among them; then the parent
 * ends with quick_exit(0), which runs none. The child's handler must run (the tracer ended the
 * child with _exit, and "qhandler" was missing), and the parent's trace must be finished (the
 * tracer's handler had run in the child). Prints what untraced prints: "qhandler", then
 * "child status 3". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep;

static void handler(void)
{
	if (write(1, "qhandler\n", 9) != 9)
		_exit(4);
}

int main(void)
{
	at_quick_exit(handler);
	keep = malloc(1000);
	pid_t c = vfork();
	if (c == 0)
		quick_exit(3);
	int st = 0;
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 2;
	printf("child status %d\n", WEXITSTATUS(st));
	fflush(stdout);
	quick_exit(0);
}
