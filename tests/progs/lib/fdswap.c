/* libfdswap.c: preloaded ahead of the tracer, it stands for a program's close-all and open
 * landing between two of the tracer's calls on its trace descriptor: after the FDSWAP_N-th
 * fstat of the file CUZKTRACE_OUT names (whoever makes it), the descriptor's number is given
 * to the file FDSWAP_DECOY (a raw dup3, as a close-all then an open of the program would).
 * Every N lands somewhere else in the writer's checks: each must end with the trace reopened
 * and whole (the writer once took the decoy's offset for the trace's and lost a frame). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int count;

int fstat(int fd, struct stat *st)
{
	int rc = (int)syscall(SYS_fstat, fd, st);
	const char *out = getenv("CUZKTRACE_OUT"), *n = getenv("FDSWAP_N"), *decoy = getenv("FDSWAP_DECOY");
	struct stat t;
	if (rc || !out || !n || !decoy || syscall(SYS_newfstatat, AT_FDCWD, out, &t, 0) ||
	    t.st_ino != st->st_ino || t.st_dev != st->st_dev)
		return rc;
	if (__atomic_add_fetch(&count, 1, __ATOMIC_RELAXED) == atoi(n)) {
		int d = (int)syscall(SYS_openat, AT_FDCWD, decoy, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (d >= 0) {
			syscall(SYS_dup3, d, fd, 0);
			syscall(SYS_close, d);
		}
	}
	return rc;
}
