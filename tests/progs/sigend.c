/* sigend.c: ends by a signal's default action with 12 MiB live (a Ctrl-C, timeout's SIGTERM, a
 * crash): the tracer holds the action and finishes the trace first. sigend MODE [SIGNAL]:
 *   raise N   raise(N) (a number)
 *   segv      a write through a null pointer: SIGSEGV at the instruction
 *   altsegv   the same with a 4 KiB alternate signal stack set (a guard page under it): the
 *             tracer's handler runs there, and finishes the trace on a stack of its own
 *   wait      says "ready" on stdout, then waits for a signal from outside
 *   pipe      writes into a pipe whose reading end is closed: SIGPIPE
 *   threads   four threads allocate and free without end; main raises SIGTERM
 *   fork      a forked child raises SIGTERM; the parent prints the child's status, exits 0
 *   handler   a SIGTERM handler of the program's that says so and calls _exit(5)
 *   view      prints the actions the program reads back after setting them (the same traced
 *             and untraced), ignores SIGHUP and raises it, and exits 0
 *   sigsetback  sigset's save and restore of SIGSEGV (its old action back), then raise: the
 *             tracer's handler was put back without SA_SIGINFO, and the program ran on
 *   refix     a write to a read-only page, which another thread makes writable once the main
 *             thread is in a SIGSEGV handler: the process ends by SIGSEGV (the tracer's handler
 *             returned to the instruction, which then ran: the program went on)
 *   smallalt  a 2 KiB alternate signal stack (MINSIGSTKSZ) set, then raise(SIGTERM): the
 *             tracer's handler ran there, too small for a signal frame (SIGSEGV)
 *   during X  another thread calls X (_exit, abort) once the main thread, which raised
 *             SIGTERM, is in its handler (the tracer's): untraced SIGTERM ends the process at
 *             once; the other thread's call must not end it with its own status or END
 *   race      20,000 times: a thread sets a handler of SIGUSR1 while main sets the default
 *             and reads the old action; prints the outcomes no order of the two calls gives
 *   oneshot S [nodefer] [look]  a crash handler of LLVM's and backward-cpp's kind on S (term,
 *             segv, abrt, assert): one-shot (SA_RESETHAND), SA_SIGINFO, SA_ONSTACK on a 64 KiB
 *             alternate stack, SA_NODEFER with "nodefer"; with "look" it prints the action it
 *             reads (the default, its flags kept; a read that took the signal back for the
 *             tracer); it raises the signal again and says whether that returned (term, abrt,
 *             assert), or returns to the fault (segv). The program raises S (term), faults
 *             (segv), calls abort (abrt) or fails an assert
 *   oneshotrace  3,000 times: a one-shot SIGUSR1 handler set, then raised while another thread
 *             sets a plain handler: one of the two runs, the process lives (the tracer's reset
 *             came after the other thread's call, and it ended the process instead), exits 0
 *   oncepending [child]  a one-shot SIGUSR1 handler H3 with SA_RESTART, siginterrupt(SIGUSR1,
 *             1), raised: the action left is the default, SA_RESTART clear (printed). Then a
 *             one-shot handler H0, and SIGUSR1 and SIGUSR2 made pending together: SIGUSR2's
 *             handler, which runs first, sets one-shot handlers H1, then H2, then a plain one
 *             P, for SIGUSR1, and H0 runs then (the kernel chose it as it delivered the
 *             signal). Then SIGUSR1 again: P runs. Prints the handlers that ran. "child": H0
 *             set, then the rest in a forked child
 *   onceflags parent|child  a one-shot SIGUSR1 handler with SA_RESTART, SIGUSR2 in its mask;
 *             siginterrupt(SIGUSR1, 1) by the parent before it forks, or by the child; the
 *             child prints the action it reads, raises SIGUSR1, prints it again (the default,
 *             SA_RESTART clear); then the parent raises it and prints its own
 *   vforkshot a one-shot SIGINT handler that says so and calls _exit(3); a vfork child sets
 *             the default and exits; then raise(SIGINT): the handler must run (the child's
 *             call shares the tracer's memory, not the parent's actions) */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* sigset and siginterrupt are deprecated; programs call them all the same */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void on_term(int sig)
{
	(void)sig;
	static const char msg[] = "sigend: handled\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(5);
}

static void on_int(int sig)
{
	(void)sig;
}

static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		void *volatile p = malloc(64);
		free(p);
	}
	return NULL;
}

static void on_h0(int sig)
{
	(void)sig;
}

static char *page;

static pid_t main_tid;

/* whether the main thread blocks sig: it does inside a handler of it (the tracer's); with
 * asleep, also whether it sleeps there (state S: finishing the trace, it waits for the
 * writer; it runs from the handler's start until it has claimed the process's end) */
static int main_blocks_state(int sig, int asleep)
{
	char path[64], line[256];
	int blocked = 0, sleeping = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)main_tid);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "SigBlk:", 7))
			blocked = (strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1;
		char st;
		if (sscanf(line, "State: %c", &st) == 1)
			sleeping = st == 'S';
	}
	if (f)
		fclose(f);
	return blocked && (!asleep || sleeping);
}

static int main_blocks(int sig)
{
	return main_blocks_state(sig, 0);
}

/* makes the page writable once the main thread is in a SIGSEGV handler (5 s at most) */
static atomic_int writing; /* set right before the write (pthread_create blocks every signal
			    * in its caller for a moment: that is no handler) */

static void *make_writable(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50000 && !(atomic_load(&writing) && main_blocks(SIGSEGV)); i++)
		usleep(100);
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
	return NULL;
}

static const char *during;

static void *end_during(void *arg)
{
	(void)arg;
	/* main is in the tracer's handler, which claims the process's end a few calls in: on a
	 * loaded machine main could be held off the CPU between the two, and this _exit claimed
	 * the end first (status 0, END exit: once in a test run). So this waits until main sleeps
	 * there, which it does only once it has claimed the end and waits for the writer's last
	 * flush (about 2 ms: a fixed 20 ms wait, as before, came after the process had ended,
	 * and the call was never made); a finish that never sleeps ends the process first */
	for (int i = 0; i < 50000 && !(atomic_load(&writing) && main_blocks_state(SIGTERM, 1)); i++)
		;
	if (!strcmp(during, "abort"))
		abort();
	_exit(0);
}

static atomic_int go;

static void *set_handler(void *arg)
{
	(void)arg;
	for (;;) {
		while (atomic_load(&go) == 0)
			;
		if (atomic_load(&go) < 0)
			return NULL;
		signal(SIGUSR1, on_int);
		atomic_store(&go, 0);
	}
}

/* a thread's signal(SIGUSR1, on_int) against main's sigaction(SIGUSR1, SIG_DFL, &old): the
 * end is on_int with old on_h0 or on_int (main first or last) or the default with old on_int
 * (main last); the default with old on_h0 lost the thread's call */
static int race(void)
{
	pthread_t t;
	int impossible = 0;
	pthread_create(&t, NULL, set_handler, NULL);
	for (int i = 0; i < 20000; i++) {
		struct sigaction dfl, old, end;
		signal(SIGUSR1, on_h0);
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		atomic_store(&go, 1);
		sigaction(SIGUSR1, &dfl, &old);
		while (atomic_load(&go) != 0)
			;
		sigaction(SIGUSR1, NULL, &end);
		if (end.sa_handler == SIG_DFL && old.sa_handler == on_h0)
			impossible++;
	}
	atomic_store(&go, -1);
	pthread_join(t, NULL);
	printf("impossible outcomes: %d\n", impossible);
	return 0;
}

static const char *name_of(void (*h)(int))
{
	return h == SIG_DFL ? "SIG_DFL" : h == SIG_IGN ? "SIG_IGN" : h == on_int ? "on_int" : h == SIG_ERR ? "SIG_ERR" : "other";
}

/* the action as the program reads it back: handler, flags, and whether SIGUSR2 is masked */
static void show(const char *what, int sig)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa) != 0) {
		printf("%s: error\n", what);
		return;
	}
	printf("%s: %s flags %#x usr2 %d\n", what, name_of(sa.sa_handler), (unsigned)sa.sa_flags,
	       sigismember(&sa.sa_mask, SIGUSR2));
}

static void view(void)
{
	show("TERM at start", SIGTERM);
	printf("signal(INT, on_int) returned %s\n", name_of(signal(SIGINT, on_int)));
	show("INT", SIGINT);
	printf("signal(INT, SIG_DFL) returned %s\n", name_of(signal(SIGINT, SIG_DFL)));
	show("INT", SIGINT);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGQUIT, &sa, &old);
	printf("QUIT before: %s flags %#x\n", name_of(old.sa_handler), (unsigned)old.sa_flags);
	show("QUIT", SIGQUIT);
	siginterrupt(SIGINT, 1);
	printf("signal(INT, on_int) returned %s\n", name_of(signal(SIGINT, on_int)));
	show("INT after siginterrupt", SIGINT);
	printf("sysv_signal(ALRM, on_int) returned %s\n", name_of(sysv_signal(SIGALRM, on_int)));
	show("ALRM", SIGALRM);
	printf("signal(HUP, SIG_IGN) returned %s\n", name_of(signal(SIGHUP, SIG_IGN)));
	raise(SIGHUP);
	printf("SIGHUP ignored\n");
	printf("signal(KILL, SIG_DFL) returned %s\n", name_of(signal(SIGKILL, SIG_DFL)));
	printf("sigset(USR2, on_int) returned %s\n", name_of(sigset(SIGUSR2, on_int)));
	printf("sigset(USR2, SIG_DFL) returned %s\n", name_of(sigset(SIGUSR2, SIG_DFL)));
	printf("sigset(USR2, SIG_HOLD) returned %s\n", name_of(sigset(SIGUSR2, SIG_HOLD)));
	printf("sigset(USR2, SIG_HOLD) again returned %s\n", sigset(SIGUSR2, SIG_HOLD) == SIG_HOLD ? "SIG_HOLD" : "other");
	printf("sigset(USR2, SIG_DFL) returned %s\n", sigset(SIGUSR2, SIG_DFL) == SIG_HOLD ? "SIG_HOLD" : "other");
	printf("ssignal(PIPE, on_int) returned %s\n", name_of(ssignal(SIGPIPE, on_int)));
	extern int __sigaction(int, const struct sigaction *, struct sigaction *);
	__sigaction(SIGTERM, NULL, &old);
	printf("__sigaction TERM: %s flags %#x\n", name_of(old.sa_handler), (unsigned)old.sa_flags);
	siginterrupt(SIGUSR1, 0);
	show("USR1 after siginterrupt 0", SIGUSR1);
	siginterrupt(SIGUSR1, 1);
	show("USR1 after siginterrupt 1", SIGUSR1);
	/* a flag the kernel does not know (SA_UNSUPPORTED): cleared, which a program tests */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0x400;
	sigaction(SIGXCPU, &sa, NULL);
	show("XCPU after SA_UNSUPPORTED", SIGXCPU);
	/* a vfork child's own action does not change what the parent reads */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_RESTART;
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGTERM, &sa, NULL);
	if (vfork() == 0) {
		struct sigaction plain;
		memset(&plain, 0, sizeof(plain));
		plain.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &plain, NULL);
		_exit(0);
	}
	wait(NULL);
	show("TERM after a vfork child's", SIGTERM);
	printf("signal(0, SIG_DFL) returned %s\n", name_of(signal(0, SIG_DFL)));
}

static int look;

static void on_oneshot(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (look)
		show("in the handler", sig);
	else
		printf("in the handler\n");
	fflush(stdout);
	if (sig == SIGSEGV)
		return;
	raise(si->si_signo);
	printf("the raise in the handler returned\n");
	fflush(stdout);
}

static void on_int_once(int sig)
{
	(void)sig;
	static const char msg[] = "one-shot handler ran\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(3);
}

static atomic_int race_go, race_done;

static void *set_plain(void *arg)
{
	(void)arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	for (;;) {
		while (!atomic_load(&race_go))
			;
		atomic_store(&race_go, 0);
		sigaction(SIGUSR1, &sa, NULL);
		atomic_store(&race_done, 1);
	}
	return NULL;
}

static int oneshotrace(void)
{
	pthread_t t;
	pthread_create(&t, NULL, set_plain, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_h0;
	sa.sa_flags = SA_RESETHAND;
	for (int i = 0; i < 3000; i++) {
		sigaction(SIGUSR1, &sa, NULL);
		atomic_store(&race_done, 0);
		atomic_store(&race_go, 1);
		raise(SIGUSR1);
		while (!atomic_load(&race_done))
			;
	}
	printf("lived\n");
	return 0;
}

static void on_h(int sig, siginfo_t *si, void *uc, const char *name)
{
	(void)sig, (void)si, (void)uc;
	printf("%s ran\n", name);
}
#define CKT_NAMED_HANDLER(n)                                                                       \
	static void on_##n(int sig, siginfo_t *si, void *uc)                                       \
	{                                                                                          \
		on_h(sig, si, uc, #n);                                                             \
	}
CKT_NAMED_HANDLER(H0)
CKT_NAMED_HANDLER(H1)
CKT_NAMED_HANDLER(H2)
CKT_NAMED_HANDLER(H3)
CKT_NAMED_HANDLER(P)

static void set_usr1(void (*h)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO | flags;
	sigaction(SIGUSR1, &sa, NULL);
}

static void on_usr2_sets(int sig)
{
	(void)sig;
	set_usr1(on_H1, SA_RESETHAND);
	set_usr1(on_H2, SA_RESETHAND);
	set_usr1(on_P, 0);
}

/* SIGUSR1's action now: the default or a handler, and its SA_RESTART */
static void show_usr1(const char *when)
{
	struct sigaction now;
	sigaction(SIGUSR1, NULL, &now);
	printf("%s: %s, SA_RESTART %d\n", when, now.sa_handler == SIG_DFL ? "SIG_DFL" : "a handler",
	       !!(now.sa_flags & SA_RESTART));
	fflush(stdout);
}

static int oncepending(int child)
{
	set_usr1(on_H3, SA_RESETHAND | SA_RESTART);
	siginterrupt(SIGUSR1, 1);
	raise(SIGUSR1);
	show_usr1("after a one-shot, siginterrupt 1");
	set_usr1(on_H0, SA_RESETHAND);
	if (child) {
		pid_t c = fork();
		if (c > 0) {
			int st = 0;
			waitpid(c, &st, 0);
			printf("child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			return 0;
		}
	}
	signal(SIGUSR2, on_usr2_sets);
	sigset_t two, old;
	sigemptyset(&two);
	sigaddset(&two, SIGUSR1);
	sigaddset(&two, SIGUSR2);
	sigprocmask(SIG_BLOCK, &two, &old);
	raise(SIGUSR1);
	raise(SIGUSR2);
	sigprocmask(SIG_SETMASK, &old, NULL);
	raise(SIGUSR1);
	show_usr1("then");
	if (child)
		_exit(0);
	return 0;
}

static int onceflags(int by_child)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_h0;
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaction(SIGUSR1, &sa, NULL);
	if (!by_child)
		siginterrupt(SIGUSR1, 1);
	pid_t c = fork();
	if (c == 0) {
		if (by_child)
			siginterrupt(SIGUSR1, 1);
		show("child before", SIGUSR1);
		raise(SIGUSR1);
		show("child after", SIGUSR1);
		fflush(stdout);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	raise(SIGUSR1);
	show("parent after", SIGUSR1);
	return 0;
}

static int vforkshot(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int_once;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigaction(SIGINT, &sa, NULL);
	if (vfork() == 0) {
		signal(SIGINT, SIG_DFL);
		_exit(0);
	}
	wait(NULL);
	raise(SIGINT);
	return 9;
}

static int oneshot(const char *what, int nodefer)
{
	int sig = !strcmp(what, "term") ? SIGTERM : !strcmp(what, "segv") ? SIGSEGV : SIGABRT;
	stack_t ss = {.ss_sp = malloc(65536), .ss_size = 65536, .ss_flags = 0};
	if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
		return 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_oneshot;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | (nodefer ? SA_NODEFER : 0);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	if (sigaction(sig, &sa, NULL) != 0)
		return 1;
	show("set", sig);
	fflush(stdout);
	if (!strcmp(what, "term"))
		raise(SIGTERM);
	else if (!strcmp(what, "segv"))
		*(volatile int *)(nodefer > 99 ? ss.ss_sp : NULL) = 1;
	else if (!strcmp(what, "abrt"))
		abort();
	else
		assert(!"oneshot");
	printf("still alive\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char *p = malloc((size_t)12 << 20);
	if (!p)
		return 1;
	memset(p, 1, (size_t)12 << 20);
	if (!strcmp(mode, "raise") && argc > 2)
		raise(atoi(argv[2]));
	if (!strcmp(mode, "altsegv")) {
		char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0)
			return 1;
		stack_t ss = {.ss_sp = m + 4096, .ss_size = 4096, .ss_flags = 0};
		if (sigaltstack(&ss, NULL) != 0)
			return 1;
		mode = "segv";
	}
	if (!strcmp(mode, "segv"))
		*(volatile int *)(argc > 99 ? p : NULL) = 1;
	if (!strcmp(mode, "wait")) {
		if (write(1, "ready\n", 6) != 6)
			return 1;
		for (;;)
			pause();
	}
	if (!strcmp(mode, "pipe")) {
		int fd[2];
		if (pipe(fd) != 0)
			return 1;
		close(fd[0]);
		if (write(fd[1], "x", 1) < 0)
			return 2;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t;
		for (int i = 0; i < 4; i++)
			pthread_create(&t, NULL, churn, NULL);
		usleep(50000);
		raise(SIGTERM);
	}
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();
		if (c == 0) {
			free(malloc(1000));
			raise(SIGTERM);
			_exit(9);
		}
		int st = 0;
		waitpid(c, &st, 0);
		printf("child: %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 0;
	}
	if (!strcmp(mode, "handler")) {
		signal(SIGTERM, on_term);
		raise(SIGTERM);
	}
	if (!strcmp(mode, "sigsetback")) {
		sighandler_t was = sigset(SIGSEGV, on_int);
		sigset(SIGSEGV, was);
		char junk[512];
		memset(junk, 0x55, sizeof(junk)); /* what a stale siginfo would read */
		__asm__ volatile("" : : "r"(junk) : "memory");
		raise(SIGSEGV);
		printf("still alive\n");
		return 0;
	}
	if (!strcmp(mode, "refix")) {
		page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		main_tid = gettid();
		pthread_t t;
		pthread_create(&t, NULL, make_writable, NULL);
		atomic_store(&writing, 1);
		*(volatile char *)page = 1;
		printf("survived the fault\n");
		return 0;
	}
	if (!strcmp(mode, "race"))
		return race();
	if (!strcmp(mode, "smallalt")) {
		stack_t ss = {.ss_sp = malloc(2048), .ss_size = 2048, .ss_flags = 0};
		if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
			return 1;
		raise(SIGTERM);
	}
	if (!strcmp(mode, "during") && argc > 2) {
		pthread_t t;
		during = argv[2];
		main_tid = gettid();
		pthread_create(&t, NULL, end_during, NULL);
		atomic_store(&writing, 1);
		raise(SIGTERM);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "view")) {
		view();
		return 0;
	}
	if (!strcmp(mode, "oneshotrace"))
		return oneshotrace();
	if (!strcmp(mode, "onceflags") && argc > 2)
		return onceflags(!strcmp(argv[2], "child"));
	if (!strcmp(mode, "oncepending"))
		return oncepending(argc > 2 && !strcmp(argv[2], "child"));
	if (!strcmp(mode, "vforkshot"))
		return vforkshot();
	if (!strcmp(mode, "oneshot") && argc > 2)
	{
		for (int i = 3; i < argc; i++)
			look |= !strcmp(argv[i], "look");
		return oneshot(argv[2], argc > 3 && !strcmp(argv[3], "nodefer"));
	}
	return 3;
}
