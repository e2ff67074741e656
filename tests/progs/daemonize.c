/* daemonize.c: keeps 1,000 x 32 bytes, then daemon(1, 1) (the working directory and the
 * descriptors kept); the child writes "daemon: child <pid> sid=<1 if it leads a new
 * session>" to the file named by argv[1] and ends. daemonize close: daemon(0,
 * 0): the child's working directory is "/" and its stdout is /dev/null, which it writes to the
 * file too. The parent's trace must be complete, with one line naming the child (glibc's
 * daemon ends the parent with an _exit the hooks cannot see: the trace was cut short). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *volatile keep[1000];

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int close_all = argc > 2 && strcmp(argv[2], "close") == 0;
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(32);
	if (daemon(!close_all, !close_all) != 0)
		return 3;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 4;
	char cwd[256] = "";
	struct stat out, null;
	int to_null = fstat(1, &out) == 0 && stat("/dev/null", &null) == 0 && out.st_rdev == null.st_rdev &&
		      S_ISCHR(out.st_mode);
	fprintf(f, "daemon: child %d sid=%d", (int)getpid(), getsid(0) == getpid());
	if (close_all)
		fprintf(f, " cwd=%s stdout-null=%d", getcwd(cwd, sizeof(cwd)) ? cwd : "?", to_null);
	fprintf(f, "\n");
	return fclose(f) == 0 ? 0 : 5;
}
