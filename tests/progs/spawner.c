/* spawner.c: starts its first argument the way Rust's Command and many C++ libraries do: by
 * posix_spawn when it holds a '/', else by posix_spawnp (a search of PATH), with the rest as its
 * arguments and this environment; waits for it and exits with its status (128 + the signal
 * that ended it; 127 when it could not be started, glibc's error on stderr). */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	pid_t pid;
	int rc = strchr(argv[1], '/') ? posix_spawn(&pid, argv[1], NULL, NULL, argv + 1, environ)
				      : posix_spawnp(&pid, argv[1], NULL, NULL, argv + 1, environ);
	if (rc) {
		fprintf(stderr, "spawner: %s: %s\n", argv[1], strerror(rc));
		return 127;
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
