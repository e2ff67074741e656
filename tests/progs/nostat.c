/* nostat.c: a sandbox that denies the stat family (stat, fstat, lstat, newfstatat, statx:
 * EPERM) with a seccomp filter on every thread, installed after the program started, as
 * container runtimes and browsers' sandboxes do. Before the filter it keeps 100 blocks of
 * 10,000 bytes; after it, 100 of 20,000, and frees 1,000 of 3,000 one by one; then it opens
 * /dev/null and prints the number it got ("fd 3" untraced) and "done".
 * The tracer checked its descriptors with fstat: each check failed, so it reopened the trace
 * at every flush (a descriptor leaked each time, low in the program's range: "fd 20"), and
 * then stopped without a word; the trace had no event at all.
 * "nostat FILE": after the filter, stderr is closed and FILE opened on its number, as a daemon
 * does, and "DATA" written there; the tracer's exit line must not go into it (taking any open
 * descriptor 2 for stderr, it did). */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep[200];

int main(int argc, char **argv)
{
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(10000);
	static const int nr[] = { SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat, 332 /* statx */ };
	struct sock_filter f[2 + 2 * 5];
	int n = 0;
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1 /* EPERM */);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)n, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog)) {
		perror("seccomp");
		return 2;
	}
	if (argc > 1) {
		close(2);
		if (open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644) != 2 || write(2, "DATA\n", 5) != 5)
			return 3;
	}
	for (int i = 0; i < 100; i++)
		keep[100 + i] = malloc(20000);
	for (int r = 0; r < 10; r++) {
		for (int i = 0; i < 100; i++) {
			void *volatile p = malloc(3000);
			free(p);
		}
		usleep(30000); /* several flushes */
	}
	int fd = open("/dev/null", O_RDONLY);
	printf("fd %d\ndone\n", fd);
	return 0;
}
