/* execraw.c: keeps 123,456 bytes, waits 200 ms (past the writer's flush interval: the bytes are
 * in the trace), then replaces itself with PROG:
 *   execraw execl PROG      glibc's execl (which calls an internal execve), execle, execlp
 *   execraw execle PROG     (the hooks finish the trace: since tracer 0.2.29)
 *   execraw execlp PROG
 *   execraw execlbig PROG   execl with 70 arguments after PROG (past the hook's array on the
 *                           stack: into the tracer's memory)
 *   execraw atfn PROG       glibc's execveat, with AT_EMPTY_PATH on a descriptor of PROG
 *   execraw atpath PROG     glibc's execveat, PROG relative to a descriptor of its directory
 *   execraw fexecnoenv PROG fexecve with envp NULL, and fexecnoargv with argv NULL: glibc
 *   execraw fexecnoargv PROG refuses both (EINVAL); then says whether errno is EINVAL
 *                           (on stdout), keeps 1 MiB more and exits 9 (untraced and traced alike)
 * and through an exec the tracer's hooks do not see:
 *   execraw execveat PROG   the execveat system call, AT_EMPTY_PATH on a descriptor of PROG
 *   execraw raw PROG        a raw execve system call
 * The new image, given the same trace name (CUZKTRACE_OUT with %p, or the default name when
 * PROG is this program), must not truncate the old image's trace. Exits 9 if the exec fails. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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
	} else if (!strcmp(argv[1], "execlbig")) {
#define A10 "a", "a", "a", "a", "a", "a", "a", "a", "a", "a"
		execl(argv[2], argv[2], A10, A10, A10, A10, A10, A10, A10, (char *)NULL);
	} else if (!strcmp(argv[1], "execle")) {
		execle(argv[2], argv[2], (char *)NULL, environ);
	} else if (!strcmp(argv[1], "execlp")) {
		execlp(argv[2], argv[2], (char *)NULL);
	} else if (!strcmp(argv[1], "atfn")) {
		int f = open(argv[2], O_RDONLY | O_CLOEXEC);
		execveat(f, "", av, environ, AT_EMPTY_PATH);
	} else if (!strcmp(argv[1], "atpath")) {
		char dir[4096] = {0}, base[4096] = {0};
		strncpy(dir, argv[2], sizeof(dir) - 1);
		strncpy(base, argv[2], sizeof(base) - 1);
		int d = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		execveat(d, basename(base), av, environ, 0);
	} else if (!strcmp(argv[1], "fexecnoenv") || !strcmp(argv[1], "fexecnoargv")) {
		int f = open(argv[2], O_RDONLY | O_CLOEXEC);
		char *const *volatile none = NULL; /* NULL where the header says nonnull */
		if (!strcmp(argv[1], "fexecnoenv"))
			fexecve(f, av, none);
		else
			fexecve(f, none, environ);
		const char *e = errno == EINVAL ? "EINVAL\n" : "not EINVAL\n";
		if (write(1, e, strlen(e)) < 0) /* not stdio: its buffer would be a block live at exit */
			return 8;
		keep = malloc(1 << 20);
		memset(keep, 1, 1 << 20);
	} else if (!strcmp(argv[1], "execveat")) {
		int f = open(argv[2], O_RDONLY | O_CLOEXEC);
		syscall(SYS_execveat, f, "", av, environ, AT_EMPTY_PATH);
	} else if (!strcmp(argv[1], "raw")) {
		syscall(SYS_execve, argv[2], av, environ);
	}
	return 9;
}
