/* execraw.c: keeps 123,456 bytes, waits 200 ms (past the writer's flush interval: the bytes are
 * in the trace), then replaces itself with PROG through an exec the tracer's hooks do not see:
 *   execraw execl PROG      glibc's execl (an internal execve)
 *   execraw execveat PROG   execveat with AT_EMPTY_PATH on a descriptor of PROG
 *   execraw raw PROG        a raw execve system call
 * The new image, given the same trace name (CUZKTRACE_OUT with %p, or the default name when
 * PROG is this program), must not truncate the old image's trace. Exits 9 if the exec fails. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;
static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	keep = malloc(123456);
	memset(keep, 1, 123456);
	usleep(200000);
	char *av[] = {argv[2], NULL};
	if (!strcmp(argv[1], "execl")) {
		execl(argv[2], argv[2], (char *)NULL);
	} else if (!strcmp(argv[1], "execveat")) {
		int f = open(argv[2], O_RDONLY | O_CLOEXEC);
		syscall(SYS_execveat, f, "", av, environ, AT_EMPTY_PATH);
	} else if (!strcmp(argv[1], "raw")) {
		syscall(SYS_execve, argv[2], av, environ);
	}
	return 9;
}
