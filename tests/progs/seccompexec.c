/* seccompexec.c: a seccomp filter makes faccessat and faccessat2 fail with EPERM (as container
 * profiles that refuse system calls they do not know do), then the program allocates 1,000
 * bytes and execs PROG. The exec works: the trace must end by exec, complete, whatever the
 * permission check before it answered. Usage: seccompexec PROG */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif

static void *volatile keep;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_faccessat2, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_faccessat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {sizeof(f) / sizeof(f[0]), f};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccompexec: seccomp");
		return 3;
	}
	keep = malloc(1000);
	memset(keep, 1, 1000);
	char *av[] = {argv[1], NULL};
	execv(argv[1], av);
	perror("seccompexec: execv");
	return 1;
}
