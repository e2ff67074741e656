/* sites_sig.c: allocations made by a signal handler, whose stacks run through the signal
 * trampoline into the frame the signal interrupted. That frame's address is the instruction
 * that faulted, not a return address: looked up one byte before it (as a return address is),
 * it took the line before the store (deref) or the function before the one that faulted on
 * its first instruction (crash_first). The handler keeps 1,000,000 bytes for deref's fault and
 * 2,000,000 for crash_first's. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sigjmp_buf jb;
static void *volatile keep[2];
static volatile int nk;
static volatile size_t want;

static void handler(int sig)
{
	(void)sig;
	void *p = malloc(want); /* SITE:sig_handler */
	memset(p, 1, want);
	keep[nk] = p;
	nk = nk + 1;
	siglongjmp(jb, 1);
}

__attribute__((noinline)) int before_fn(int x)
{
	return x * 7 + 3;
}

/* its first instruction faults: the interrupted address is the function's own */
__asm__(".text\n.globl crash_first\n.type crash_first,@function\n.p2align 4\n"
	"crash_first:\n movl $0, 0\n ret\n.size crash_first, .-crash_first\n");
void crash_first(void);

__attribute__((noinline)) void deref(volatile int *p, int v)
{
	int a = v * 3;
	*p = a; /* SITE:sig_fault */
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGSEGV, &sa, NULL);
	want = 1000000;
	if (!sigsetjmp(jb, 1))
		deref(NULL, 5);
	want = 2000000;
	if (!sigsetjmp(jb, 1))
		crash_first();
	printf("sites_sig: %d %d\n", before_fn(1), nk);
	return 0;
}
