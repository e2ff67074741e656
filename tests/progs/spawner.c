/* spawner.c: starts its first argument the way Rust's Command and many C++ libraries do: by
 * posix_spawn when it holds a '/', else by posix_spawnp (a search of PATH), with the rest as its
 * arguments and this environment; waits for it and exits with its status (128 + the signal
 * that ended it; 127 when it could not be started, glibc's error on stderr). spawner -f PROG:
 * with a file action that fails (an open of /nonexistent/x), so that nothing starts. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t fa, *acts = NULL;
	if (argc > 2 && strcmp(argv[1], "-f") == 0) {
		if (posix_spawn_file_actions_init(&fa) ||
		    posix_spawn_file_actions_addopen(&fa, 9, "/nonexistent/x", O_RDONLY, 0))
			return 2;
		acts = &fa;
		argv++;
		argc--;
	}
	if (argc < 2)
		return 2;
	pid_t pid;
	int rc = strchr(argv[1], '/') ? posix_spawn(&pid, argv[1], acts, NULL, argv + 1, environ)
				      : posix_spawnp(&pid, argv[1], acts, NULL, argv + 1, environ);
	if (rc) {
		fprintf(stderr, "spawner: %s: %s\n", argv[1], strerror(rc));
		return 127;
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 126;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
