/* envexec.c: adds N variables with setenv (glibc then keeps environ in an array of its own,
 * which a later setenv reallocates), allocates, tries to exec a program that does not exist,
 * says whether CUZKTRACE_EXEC_FROM or _EXEC_PID is now in its environment, and replaces
 * itself with PROG through execve(PROG, ..., environ), or execv with a third argument "v". The new image must
 * get every variable, and the process's environment must not change: a tracer that set a
 * variable before the exec would hand execve a freed array.
 * Usage: envexec N PROG [v] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;
static void *volatile keep[64];

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int n = atoi(argv[1]);
	char name[32];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "ENVEXEC_VAR%d", i);
		setenv(name, "x", 1);
	}
	for (int i = 0; i < 64; i++)
		keep[i] = malloc(16 * (size_t)(i % 8 + 1));
	char *const av[] = {argv[2], NULL};
	execv("/nonexistent/envexec-prog", av);
	printf("envexec: CUZKTRACE_EXEC_FROM %s, CUZKTRACE_EXEC_PID %s\n",
	       getenv("CUZKTRACE_EXEC_FROM") ? "set" : "unset", getenv("CUZKTRACE_EXEC_PID") ? "set" : "unset");
	fflush(stdout);
	if (argc > 3 && argv[3][0] == 'v')
		execv(argv[2], av);
	else
		execve(argv[2], av, environ);
	perror("envexec: exec");
	return 1;
}
