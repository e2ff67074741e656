/* mapoverflow.c: a thread of 256 KiB of stack recurses, each level mapping and unmapping a
 * page, until its stack overflows; a SIGSEGV handler on an alternate stack says
 * "mapoverflow: stack overflow caught" and _exits 3. Frames of the recursion are small and the
 * mmap family's hooks take a few KiB (stack capture), so the overflow comes in a hook: where
 * the hook held every signal, the fault ended the process by the kernel's default (status
 * 139, no line, the trace unfinished). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void on_segv(int sig)
{
	(void)sig;
	static const char m[] = "mapoverflow: stack overflow caught\n";
	(void)!write(1, m, sizeof m - 1);
	_exit(3);
}

static volatile int limit = 1 << 30; /* never reached: the stack ends first */

static int rec(int n)
{
	if (n == limit)
		return 0;
	volatile char pad[48];
	pad[0] = (char)n;
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	return rec(n + 1) + pad[0]; /* not a tail call: the frames stay */
}

static void *thread(void *arg)
{
	stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536};
	sigaltstack(&ss, NULL);
	return (void *)(long)rec(0) + (long)arg;
}

int main(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 * 1024);
	pthread_t t;
	pthread_create(&t, &at, thread, NULL);
	pthread_join(t, NULL);
	return 0;
}
