/* bigenv.c PROG: execs PROG with an environment as large as the kernel takes, no larger.
 * Forked children find that size first (a bisection over the bytes of padding variables,
 * each child exec'ing PROG with LD_PRELOAD renamed to a name of the same length, so that it
 * runs untraced and counts the same bytes); then this process execs PROG with that
 * environment through execve, LD_PRELOAD as it is. The tracer's exec hook adds two variables
 * (CUZKTRACE_EXEC_FROM, CUZKTRACE_EXEC_PID), which push such an exec past the limit: it must
 * then exec as the program asked. Prints "bigenv: exec failed: <error>" and exits 9 if not. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PIECE (100 * 1024) /* under the kernel's 128 KiB per string */

/* environ (LD_PRELOAD renamed when hide), then padding variables of pad bytes in all */
static char **env_with(size_t pad, int hide)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **e = calloc(n + pad / PIECE + 2, sizeof(*e));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		e[k] = strdup(environ[i]);
		if (hide && !strncmp(e[k], "LD_PRELOAD=", 11))
			memcpy(e[k], "LD_PRELOAX", 10);
		k++;
	}
	for (size_t left = pad; left > 8;) {
		size_t m = left > PIECE ? PIECE : left;
		char *v = malloc(m);
		memset(v, 'x', m - 1);
		memcpy(v, "PAD", 3);
		v[3 + (k % 10)] = '='; /* PADxxx=..., each variable of its own name */
		v[m - 1] = 0;
		e[k++] = v;
		left -= m;
	}
	return e;
}

static int runs(const char *prog, size_t pad)
{
	pid_t c = fork();
	if (c == 0) {
		char *av[] = {(char *)prog, NULL};
		freopen("/dev/null", "w", stdout);
		execve(prog, av, env_with(pad, 1));
		_exit(127);
	}
	int st;
	waitpid(c, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) != 127;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	size_t lo = 0, hi = 64 << 20; /* runs(lo), not runs(hi) */
	if (!runs(argv[1], lo) || runs(argv[1], hi))
		return 3;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (runs(argv[1], mid))
			lo = mid;
		else
			hi = mid;
	}
	char *av[] = {argv[1], NULL};
	fflush(stdout);
	execve(argv[1], av, env_with(lo, 0));
	printf("bigenv: exec failed: %s\n", strerror(errno));
	return 9;
}
