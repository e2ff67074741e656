/* aslimit.c: sets its own address-space limit (RLIMIT_AS) after start to an absolute number of
 * MiB, as a script's `ulimit -v` or Python's resource.setrlimit does, then allocates under it:
 * 200 heap blocks of 1 MiB (each touched), a 256 MiB mapping (untouched), all given back.
 * Untraced the process is a few MiB, far under any such limit; the tracer's 4 GiB reservation
 * for call stacks counted against a limit below it and refused the first block.
 * Usage: aslimit set|set64|prlimit|prlimit64|prlimitpid|prlimitsame|prlimittid MIB (prlimitsame:
 * the new and old limits in one struct; prlimittid: a second thread sets it by its own id).
 * Prints "aslimit: ok" and exits 0, or says which call failed and exits 1 (2: the limit could
 * not be set). `aslimit vfork MIB`: a vfork child sets the limit and ends; the parent, with no
 * limit, says whether its address space (VmSize) shrank meanwhile by a GiB or more (the
 * child's memory is the parent's: nothing of the tracer's may be given back there).
 * `aslimit null 0`: setrlimit with no struct (a no-op for the kernel: 0), as untraced; `aslimit
 * bad 0`: setrlimit and prlimit with a struct that is no memory: EFAULT, as untraced. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "asutil.h"

static void *volatile blocks[200];
static struct rlimit tid_rl;
static const struct rlimit *volatile no_limit; /* NULL, out of the compiler's sight */

static void *by_tid(void *arg)
{
	(void)arg;
	return (void *)(long)prlimit((pid_t)syscall(SYS_gettid), RLIMIT_AS, &tid_rl, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	rlim_t lim = (rlim_t)strtoull(argv[2], NULL, 10) << 20;
	struct rlimit rl = { lim, lim };
	struct rlimit64 rl64 = { lim, lim };
	int rc;
	if (!strcmp(argv[1], "set"))
		rc = setrlimit(RLIMIT_AS, &rl);
	else if (!strcmp(argv[1], "set64"))
		rc = setrlimit64(RLIMIT_AS, &rl64);
	else if (!strcmp(argv[1], "prlimit"))
		rc = prlimit(0, RLIMIT_AS, &rl, NULL);
	else if (!strcmp(argv[1], "prlimit64"))
		rc = prlimit64(0, RLIMIT_AS, &rl64, NULL);
	else if (!strcmp(argv[1], "prlimitpid"))
		rc = prlimit(getpid(), RLIMIT_AS, &rl, NULL);
	else if (!strcmp(argv[1], "prlimitsame"))
		rc = prlimit(0, RLIMIT_AS, &rl, &rl);
	else if (!strcmp(argv[1], "prlimittid")) {
		pthread_t t;
		void *r = NULL;
		tid_rl = rl;
		rc = pthread_create(&t, NULL, by_tid, NULL) || pthread_join(t, &r) ? -1 : (int)(long)r;
	} else if (!strcmp(argv[1], "vfork")) {
		unsigned long before = vm_bytes();
		pid_t c = vfork();
		if (c == 0) {
			setrlimit(RLIMIT_AS, &rl);
			_exit(0);
		}
		unsigned long after = vm_bytes();
		if (c < 0 || !before || !after)
			return 2;
		if (after + (1ul << 30) <= before) {
			printf("aslimit: the parent's address space shrank by %lu MiB\n", (before - after) >> 20);
			return 1;
		}
		printf("aslimit: ok\n");
		return 0;
	} else if (!strcmp(argv[1], "bad")) {
		const struct rlimit *bad = (const struct rlimit *)16; /* no memory */
		__asm__("" : "+r"(bad));
		errno = 0;
		rc = setrlimit(RLIMIT_AS, bad);
		printf("aslimit: %d %s", rc, strerror(errno));
		errno = 0;
		rc = prlimit(0, RLIMIT_AS, bad, (struct rlimit *)(void *)bad);
		printf(", %d %s\n", rc, strerror(errno));
		return 0;
	} else if (!strcmp(argv[1], "null")) {
		errno = 0;
		rc = setrlimit(RLIMIT_AS, no_limit);
		printf("aslimit: %d %s\n", rc, strerror(errno));
		return 0;
	} else
		return 2;
	if (rc != 0) {
		printf("aslimit: cannot set the limit: %s\n", strerror(errno));
		return 2;
	}
	for (int i = 0; i < 200; i++) {
		char *p = malloc(1 << 20);
		if (!p) {
			printf("aslimit: block %d of 1 MiB refused\n", i);
			return 1;
		}
		p[0] = (char)i;
		blocks[i] = p;
	}
	void *m = mmap(NULL, 256u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		printf("aslimit: the 256 MiB mapping refused\n");
		return 1;
	}
	munmap(m, 256u << 20);
	for (int i = 0; i < 200; i++)
		free(blocks[i]);
	printf("aslimit: ok\n");
	return 0;
}
