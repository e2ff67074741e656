/* jmpunmap.c: a fast timer (100 us, ITIMER_REAL) whose handler leaves by siglongjmp the
 * munmap of a 32 MiB mapping that a loop makes and unmaps again, until 200 jumps (or 2,000,000
 * pairs). After each jump the program asks the kernel (msync) whether the mapping it was
 * unmapping is still there, and keeps it if so; then "jmpunmap: N jumps, B bytes still
 * mapped", which the trace should count live at the end. A munmap this large is recorded
 * before its call; a signal held during the hook's work before the call was delivered as the
 * call began, and the jump skipped the call: the range counted unmapped, still mapped (and the
 * call counted lost). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/time.h>

#define LEN ((size_t)32 << 20)

static sigjmp_buf jb;
static volatile int jumps, armed;
static void *volatile cur;

static void on_alarm(int sig)
{
	(void)sig;
	if (!armed)
		return;
	armed = 0;
	jumps++;
	siglongjmp(jb, 1);
}

int main(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	size_t kept = 0;
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; jumps < 200 && i < 2000000; i++) {
		if (sigsetjmp(jb, 1)) {
			if (cur && msync(cur, 4096, MS_ASYNC) == 0)
				kept += LEN; /* the munmap did not run */
			cur = NULL;
			continue;
		}
		void *m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			continue;
		cur = m;
		armed = 1;
		munmap(m, LEN);
		armed = 0;
		cur = NULL;
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("jmpunmap: %d jumps, %zu bytes still mapped\n", jumps, kept);
	return 0;
}
