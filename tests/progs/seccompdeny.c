/* seccompdeny ERRNO NAME PROG [ARGS...]: runs PROG under a seccomp filter that makes the system
 * call NAME (gettid, flock or kcmp) fail with ERRNO, everything else allowed, as a service's
 * SystemCallFilter= or a container's profile can; LD_PRELOAD then loads the tracer into PROG
 * under the filter. Status 125 where no filter can be installed. */
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

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long nr = !strcmp(argv[2], "gettid")  ? SYS_gettid
		  : !strcmp(argv[2], "flock") ? SYS_flock
		  : !strcmp(argv[2], "kcmp")  ? SYS_kcmp
					      : -1;
	if (nr < 0)
		return 2;
	unsigned err = (unsigned)atoi(argv[1]) & SECCOMP_RET_DATA;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccompdeny");
		return 125;
	}
	execvp(argv[3], argv + 3);
	perror("seccompdeny: exec");
	return 127;
}
