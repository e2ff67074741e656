/* smallstack.c: writes with writev where little stack is left, as fatal-signal reporters do
 * (async-signal-safe writev from a handler on a small alternate stack).
 *   smallstack alt SIZE: a SIGUSR1 handler on an alternate stack of SIZE bytes, a guard page
 *     under it, writes "caught SIGUSR1" with writev and write
 *   smallstack thread DEPTH: a thread on a PTHREAD_STACK_MIN stack recurses DEPTH frames of
 *     1 KiB, then writes a line with writev and allocates 100 bytes
 *   a third argument "name": the handler, or the deep thread, also names its thread (prctl
 *     PR_SET_NAME, pthread_setname_np); the name's record took 1 KiB of the caller's stack
 *   smallstack altmalloc SIZE BURN: a SIGUSR1 handler on an alternate stack of SIZE bytes uses
 *     BURN bytes of it, then allocates 1,000,000 bytes (big_in_handler), which the tracer
 *     records with its stack in either mode, as a fatal-signal reporter's backtrace_symbols
 *     allocates
 *     (SMALLSTACK_ALT=inplace or autodisarm: how the alternate stack is set, see main;
 *     SMALLSTACK_CAP=1: the address space capped while the handler runs, which allocates 100
 *     bytes then)
 *   smallstack altbad 0: sigaltstack with a pointer to no memory fails with EFAULT
 *   smallstack altnest ROUNDS: SIGUSR1 and a 100 us SIGALRM timer, both SA_ONSTACK on one
 *     64 KiB alternate stack; SIGUSR1's handler (raised ROUNDS times) allocates 1,000,000 bytes
 *     (big_in_handler) and 100 small blocks, and frees them, and checks a value in its frame;
 *     SIGALRM's, which the kernel nests below it on the alternate stack, uses 2 KiB of it
 *     (SMALLSTACK_NEST_SIG=N: signal N sent by another thread every 20 us instead)
 * Prints "ok" at the end. The writev hook took 8 KiB of stack on every call (a buffer for the
 * phase rules' scan, used or not): status 139 where untraced it runs. Capturing a stack took
 * libunwind's 2 KiB and more of the program's stack, until a capture on the alternate stack
 * unwound on a stack of its own (the altmalloc case); with signals open meanwhile, a SIGALRM
 * then was placed over the running handler's frames (the altnest case). */
#include <alloca.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "asutil.h"

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* Linux 4.7 on */
#endif

static int naming;

static void handler(int s)
{
	(void)s;
	struct iovec v[2] = {{"caught ", 7}, {"SIGUSR1\n", 8}};
	if (writev(2, v, 2) != 15 || write(2, "handler done\n", 13) != 13)
		_exit(3);
	if (naming && prctl(PR_SET_NAME, "fatal-reporter"))
		_exit(3);
}

static int depth;
static void *volatile keep;

static void use(int d)
{
	volatile char pad[1024];
	pad[0] = (char)d;
	if (d > 0) {
		use(d - 1);
	} else {
		struct iovec v[2] = {{"[log] ", 6}, {"deep line\n", 10}};
		if (writev(2, v, 2) != 16)
			_exit(3);
		keep = malloc(100);
		if (naming && pthread_setname_np(pthread_self(), "deep-worker"))
			_exit(3);
	}
	pad[1] = 1;
}

static void *thread_main(void *a)
{
	use(depth);
	return a;
}

static size_t burn;

/* (under SMALLSTACK_CAP, 100 bytes from the heap glibc has: no mapping can be made) */
static size_t big_size = 1000000;

static __attribute__((noinline)) void big_in_handler(void)
{
	keep = malloc(big_size);
}

static volatile long alarms, nested;

static void alarm_handler(int s)
{
	(void)s;
	volatile char pad[2048];
	memset((char *)pad, 0x5a, sizeof(pad));
	alarms++;
}

static int nest_sig;
static pthread_t nest_target;
static volatile int nest_stop;

static void *nest_sender(void *a)
{
	while (!nest_stop) {
		pthread_kill(nest_target, nest_sig);
		usleep(20);
	}
	return a;
}

static void nest_handler(int s)
{
	(void)s;
	volatile uint64_t check = 0x1122334455667788ull;
	big_in_handler();
	free(keep);
	for (int i = 0; i < 100; i++)
		free(malloc(64 + (size_t)i));
	if (check != 0x1122334455667788ull) {
		if (write(2, "handler frame overwritten\n", 26) != 26)
			_exit(6);
		_exit(5);
	}
	nested++;
}

/* BURN bytes of the stack in use (touched, so a guard page below faults now), then the call */
static void after_burn(void (*call)(void))
{
	volatile char *p = alloca(burn + 1);
	p[0] = 1;
	p[burn] = 1;
	call();
	p[1] = p[0];
}

static void disarm_handler(int s)
{
	(void)s;
	stack_t off = {.ss_flags = SS_DISABLE};
	if (sigaltstack(&off, NULL))
		_exit(7);
}

static void big_handler(int s)
{
	(void)s;
	after_burn(big_in_handler);
}


int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	size_t n = strtoul(argv[2], NULL, 0);
	naming = argc > 3 && strcmp(argv[3], "name") == 0;
	/* malloc bound now: the dynamic linker's lazy binding at the first call takes 3 KiB (its
	 * xsave area), more than the hooks, traced or not */
	free(malloc(1));
	if (strcmp(argv[1], "alt") == 0 || strcmp(argv[1], "altmalloc") == 0) {
		bool big = strcmp(argv[1], "altmalloc") == 0;
		if (big)
			burn = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
		char *m = mmap(NULL, n + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE))
			return 2;
		stack_t ss = {.ss_sp = m + 4096, .ss_size = n};
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = big ? big_handler : handler;
		sa.sa_flags = SA_ONSTACK;
		/* SMALLSTACK_ALT=inplace: the stack set with one struct for the new and the old
		 * stack; =autodisarm: set with SS_AUTODISARM, and a first handler on it disables it,
		 * which the kernel undoes as that handler returns */
		const char *how = getenv("SMALLSTACK_ALT");
		how = how ? how : "";
		if (strcmp(how, "autodisarm") == 0)
			ss.ss_flags = SS_AUTODISARM;
		stack_t *same = &ss;
		__asm__("" : "+r"(same)); /* one struct as both (restrict-qualified: a warning) */
		if (strcmp(how, "inplace") == 0 ? sigaltstack(&ss, same) : sigaltstack(&ss, NULL))
			return 2;
		if (strcmp(how, "autodisarm") == 0) {
			struct sigaction sd = sa;
			stack_t cur;
			sd.sa_handler = disarm_handler;
			if (sigaction(SIGUSR2, &sd, NULL) || raise(SIGUSR2) || sigaltstack(NULL, &cur))
				return 2;
			if (cur.ss_flags & SS_DISABLE)
				return 8; /* the kernel did not enable it again */
		}
		/* SMALLSTACK_CAP=1: the address space capped at what the process has mapped while
		 * the handler runs (no mapping can be made then), and let go after it */
		struct rlimit was;
		bool cap = getenv("SMALLSTACK_CAP") != NULL;
		if (cap) {
			big_size = 100;
			unsigned long pages = 0;
			FILE *f = fopen("/proc/self/statm", "r");
			if (!f || fscanf(f, "%lu", &pages) != 1 || getrlimit(RLIMIT_AS, &was))
				return 2;
			fclose(f);
			struct rlimit now = {pages * (unsigned long)sysconf(_SC_PAGESIZE), was.rlim_max};
			if (raw_setrlimit(RLIMIT_AS, &now))
				return 2;
		}
		if (sigaction(SIGUSR1, &sa, NULL) || raise(SIGUSR1))
			return 2;
		if (cap && raw_setrlimit(RLIMIT_AS, &was))
			return 2;
	} else if (strcmp(argv[1], "altbad") == 0) {
		/* a stack_t that is no memory: the call's EFAULT, as untraced */
		errno = 0;
		const stack_t *bad = (const stack_t *)16;
		__asm__("" : "+r"(bad));
		if (sigaltstack(bad, NULL) != -1 || errno != EFAULT)
			return 9;
	} else if (strcmp(argv[1], "altnest") == 0) {
		size_t size = 64 << 10;
		char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		stack_t ss = {.ss_sp = m, .ss_size = size};
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_flags = SA_ONSTACK | SA_RESTART;
		sa.sa_handler = nest_handler;
		if (m == MAP_FAILED || sigaltstack(&ss, NULL) || sigaction(SIGUSR1, &sa, NULL))
			return 2;
		sa.sa_handler = alarm_handler;
		/* SMALLSTACK_NEST_SIG=N: instead of the timer, another thread sends signal N (a
		 * fault's, SIGSEGV, as sent, not raised by a fault) every 20 us */
		const char *sig = getenv("SMALLSTACK_NEST_SIG");
		pthread_t sender;
		struct itimerval it = {{0, 100}, {0, 100}};
		if (sig) {
			nest_sig = atoi(sig);
			nest_target = pthread_self();
			if (sigaction(nest_sig, &sa, NULL) || pthread_create(&sender, NULL, nest_sender, NULL))
				return 2;
		} else if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL)) {
			return 2;
		}
		for (size_t i = 0; i < n; i++)
			raise(SIGUSR1);
		it = (struct itimerval){{0, 0}, {0, 0}};
		if (sig) {
			nest_stop = 1;
			if (pthread_join(sender, NULL))
				return 2;
		} else if (setitimer(ITIMER_REAL, &it, NULL)) {
			return 4;
		}
		if (nested != (long)n)
			return 4;
		return write(1, "ok\n", 3) == 3 ? 0 : 1;
	} else {
		depth = (int)n;
		pthread_attr_t at;
		pthread_t t;
		if (pthread_attr_init(&at) || pthread_attr_setstacksize(&at, PTHREAD_STACK_MIN) ||
		    pthread_create(&t, &at, thread_main, NULL) || pthread_join(t, NULL))
			return 2;
	}
	if (strcmp(argv[1], "altmalloc") == 0)
		free(keep); /* the big block */
	return write(1, "ok\n", 3) == 3 ? 0 : 1;
}
