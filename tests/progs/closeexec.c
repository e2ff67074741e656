/* closeexec.c fork|vfork: starts /bin/true with an environment that does not preload the
 * tracer, as Python's subprocess does with close_fds and captured stderr: the child points 2
 * at /dev/null and closes every descriptor from 3 up (the tracer's copy of stderr among them)
 * before its execve, then the parent waits for it, prints its status and exits at once. The
 * tracer's line about the untraced program must still reach the traced process's stderr (by
 * the last flush at the latest). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(void)
{
	char *argv[] = { "true", NULL }, *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int null = open("/dev/null", O_WRONLY);
	if (null < 0 || dup2(null, 2) < 0)
		_exit(126);
	syscall(SYS_close_range, 3u, ~0u, 0u);
	execve("/bin/true", argv, envp);
	_exit(127);
}

int main(int argc, char **argv)
{
	int use_vfork = argc > 1 && !strcmp(argv[1], "vfork");
	pid_t pid = use_vfork ? vfork() : fork();
	if (pid == 0)
		child();
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 3;
	printf("closeexec: %s child status %d\n", use_vfork ? "vfork" : "fork", WEXITSTATUS(status));
	return 0;
}
