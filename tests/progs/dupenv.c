/* dupenv.c: runs PROG with exactly the environment given, which may hold a variable twice (a
 * program's own execve can pass that; a shell's environment cannot): the loader reads the
 * last LD_PRELOAD of it, getenv the first. Usage: dupenv VAR=VALUE... -- PROG [ARGS...] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char *env[256];
	int i = 1, k = 0;
	for (; i < argc && strcmp(argv[i], "--") != 0 && k < 255; i++)
		env[k++] = argv[i];
	if (i + 1 >= argc)
		return 2;
	execve(argv[i + 1], argv + i + 1, env);
	perror(argv[i + 1]);
	return 127;
}
