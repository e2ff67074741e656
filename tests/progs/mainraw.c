/* mainraw.c: a single-threaded program whose main thread ends without exit or pthread_exit,
 * keeping 1,000 blocks of 100 bytes: mainraw raw ends it with the raw exit system call
 * (status 3); mainraw seccomp with a seccomp filter that kills the thread calling getppid
 * (SECCOMP_RET_KILL_THREAD: the process ends killed by SIGSYS, status 159 in a shell). The
 * tracer's helper threads kept such a process alive for good before 0.2.10, every signal
 * blocked, SIGTERM too. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *volatile keep[1000];

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(100);
	if (strcmp(argv[1], "raw") == 0)
		syscall(SYS_exit, 3);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p) != 0) {
		perror("mainraw: seccomp");
		return 1;
	}
	getppid();
	return 0;
}
