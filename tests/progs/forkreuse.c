/* forkreuse.c: a daemon closes every descriptor above 2 (the trace's included), opens a pipe
 * that takes the trace's old number, and forks at once, before the writer has noticed. The
 * child must find its pipe open: the tracer's fork handler may only close its own file.
 * Prints "child: read0=0" (a zero-length read on an open pipe) and exits 0. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int p[2];
	if (pipe(p) < 0)
		return 2;
	pid_t c = fork();
	if (c == 0) {
		char b[1];
		int rr = (int)read(p[0], b, 0);
		const char *m = rr == 0 ? "child: read0=0\n" : "child: read0=-1\n";
		if (write(1, m, strlen(m)) < 0)
			_exit(2);
		_exit(rr == 0 ? 0 : 1);
	}
	int st = 0;
	waitpid(c, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}
