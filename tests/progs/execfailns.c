/* execfailns.c FILE: execs FILE, which the kernel refuses (a file of no known format: ENOEXEC),
 * then at once makes a user namespace, which needs a single-threaded process, and prints both
 * results and how many threads the process has then. Traced, the failed exec has finished the
 * trace, and the tracer's threads must be gone by the time it returns (they end without a
 * join: the unshare failed with EINVAL, 1 run in 8 or so). */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char *av[] = { argv[1], NULL };
	free(malloc(100));
	execve(argv[1], av, environ);
	int exec_err = errno;
	int rc = unshare(CLONE_NEWUSER), err = errno, n = 0;
	DIR *d = opendir("/proc/self/task");
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	printf("execfailns: exec %s; unshare %s; %d thread%s\n", strerror(exec_err), rc ? strerror(err) : "ok", n,
	       n == 1 ? "" : "s");
	return 0;
}
