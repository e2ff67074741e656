/* altstack.c: a signal handler on a small alternate stack (the kernel's minimum signal frame,
 * AT_MINSIGSTKSZ, plus 6 KiB, at least the 8 KiB of the old SIGSTKSZ; argv[1] bytes if given)
 * allocates: a small block and a 300,000-byte one (recorded with its stack in every mode),
 * 2,000 times. Untraced the handler needs about 2 KiB past the frame. The tracer's stack
 * capture runs on that stack: with its buffers there (4 KiB) it overflowed it and corrupted
 * the heap; libunwind alone takes about 2 KiB. Prints "altstack: N" (2000). */
#include <signal.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void handler(int sig)
{
	(void)sig;
	char *volatile p = malloc(64 + (size_t)(hits % 7) * 100);
	if (p)
		p[0] = 1;
	free(p);
	char *volatile q = calloc(1, 300000);
	free(q);
	hits++;
}

int main(int argc, char **argv)
{
	size_t size = getauxval(AT_MINSIGSTKSZ) + 6144;
	if (size < 8192)
		size = 8192;
	if (argc > 1)
		size = strtoul(argv[1], NULL, 0);
	stack_t ss = {.ss_sp = malloc(size), .ss_size = size, .ss_flags = 0};
	if (!ss.ss_sp || sigaltstack(&ss, NULL))
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 2000; i++) {
		char *volatile p = malloc(100 + (size_t)i);
		p[0] = 0;
		raise(SIGUSR1);
		free(p);
	}
	char line[32];
	int n = snprintf(line, sizeof(line), "altstack: %d\n", (int)hits);
	return write(1, line, (size_t)n) == n ? 0 : 1;
}
