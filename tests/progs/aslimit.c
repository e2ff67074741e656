/* aslimit.c: sets its own address-space limit (RLIMIT_AS) after start to an absolute number of
 * MiB, as a script's `ulimit -v` or Python's resource.setrlimit does, then allocates under it:
 * 200 heap blocks of 1 MiB (each touched), a 256 MiB mapping (untouched), all given back.
 * Untraced the process is a few MiB, far under any such limit; the tracer's 4 GiB reservation
 * for call stacks counted against a limit below it and refused the first block.
 * Usage: aslimit set|set64|prlimit|prlimit64|prlimitpid MIB. Prints "aslimit: ok" and exits 0,
 * or says which call failed and exits 1 (2: the limit could not be set). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static void *volatile blocks[200];

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
	else
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
