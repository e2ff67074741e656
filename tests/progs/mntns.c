/* mntns.c DIR [closeall]: allocates, moves to a mount namespace of its own
 * (unshare(CLONE_NEWNS)) and mounts a tmpfs over DIR there, where the trace is; allocates
 * again and exits. The trace is whole under its name in the namespace it was opened in; in
 * the new one the name leads into the empty tmpfs. Prints "no namespace" and exits 0 where
 * unshare or mount is refused (not root, a container's seccomp). With "closeall" it closes
 * every descriptor from 3 up after the mount (the tracer reopens its trace). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

void *volatile sink;

static void churn(int n)
{
	for (int i = 0; i < n; i++) {
		free(sink);
		sink = malloc((size_t)(i % 3000) + 1);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	churn(100000);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", argv[1], "tmpfs", 0, "size=1m") != 0) {
		puts("no namespace");
		return 0;
	}
	if (argc > 2 && strcmp(argv[2], "closeall") == 0)
		syscall(SYS_close_range, 3, ~0u, 0);
	churn(100000);
	usleep(150000); /* a flush or more from the new namespace */
	puts("ok");
	return 3;
}
