/* abortend.c: ends by abort() with 12 MiB live (a Rust program built with panic = "abort" ends
 * so at any panic, a C++ program at std::terminate); abort skips exit's handlers, so the
 * trace is finished by the tracer's abort first, within a flush interval of the start, where
 * a flush would come too late. abortend [MODE]:
 *   (none)  abort: status 134, the trace complete, END's reason abort
 *   exit    a SIGABRT handler calls _exit(3): the handler's _exit finishes the trace
 *   jump    a SIGABRT handler leaves by siglongjmp, and the program goes on: 20 MiB more, then
 *           return 0 (the trace must not end at the abort)
 *   return  a crash handler that says so and returns: abort then ends the process with the
 *           default action (the handler runs once)
 *   oneshot a crash handler of the common kind (SA_SIGINFO | SA_RESETHAND) that calls abort
 *           again: the second finds SIGABRT's action the default (its SA_SIGINFO flag kept)
 *   onstack a crash handler on a 4 KiB alternate signal stack (SA_ONSTACK, a guard page under
 *           it) that calls _exit(3): the trace is finished from that stack
 *   disarm  the same with SS_AUTODISARM (inside the handler the stack reads as none)
 *   onstack2 two threads, each on its own 4 KiB alternate stack, _exit(3) at once
 * and the same ends by a failed assert (glibc's __assert_fail calls its internal abort):
 *   assert, assertexit, assertjump (then 20 MiB more and a second assert, with the default
 *   action), assertreturn, assertoneshot, assertonstack (a handler on the small alternate stack
 *   that returns), assertroom (one there that needs 1.5 KiB of stack, then _exit(5)), assertperror (a failed assert_perror, with no handler), assert2 (two
 *   threads fail an assert at once: one finishes the trace, the other waits), and assertflood
 *   (assertonstack with a timer's signal every 200 us, its handler on that stack too) */
#undef NDEBUG
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

static sigjmp_buf jb;

static void on_abort_exit(int sig)
{
	(void)sig;
	_exit(3);
}

static void on_abort_jump(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static void on_abort_return(int sig)
{
	(void)sig;
	static const char msg[] = "abortend: crash handler\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
}

static void on_abort_once(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	abort();
}

static char *small_lo; /* the last small alternate stack set (small_stack) */

/* assertonstack's handler: returns; says so when it is not on its alternate stack, where the
 * kernel runs it untraced */
static void on_abort_quiet(int sig)
{
	(void)sig;
	char here;
	char *volatile at = &here;
	static const char msg[] = "abortend: the handler is not on its alternate stack\n";
	if (at < small_lo || at >= small_lo + 4096)
		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(1);
}

/* _exit called through a pointer, which the loader set at start: a first call through the PLT
 * would resolve it on the 4 KiB stack, whose loader's save of the vector registers overflows
 * it (SIGSEGV, untraced too) */
static void (*volatile exit_fn)(int);

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31) /* Linux 4.7 (glibc declares it with _GNU_SOURCE only) */
#endif

static void on_abort_exit_small(int sig)
{
	(void)sig;
	exit_fn(3);
}

/* this thread's 4 KiB alternate stack, a guard page under it (flags: SS_AUTODISARM or 0) */
static void small_stack(int flags)
{
	char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0)
		_exit(1);
	stack_t ss = { .ss_sp = m + 4096, .ss_size = 4096, .ss_flags = flags };
	if (sigaltstack(&ss, NULL) != 0)
		_exit(1);
	small_lo = m + 4096;
}

/* assertroom's handler: 1.5 KiB of stack of its own, then _exit(5); on a 4 KiB alternate stack
 * under the kernel's frame for the signal (3.3 KiB with AVX-512) it does not fit, and the
 * process ends with SIGSEGV, untraced and traced alike (status 5 where the frame is smaller) */
static void on_abort_room(int sig)
{
	volatile char room[1536];
	for (size_t i = 0; i < sizeof(room); i++)
		room[i] = (char)(i + (size_t)sig);
	exit_fn(5 + room[0] - (char)sig);
}

static pthread_barrier_t both;
static volatile unsigned long ticks;

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

/* each thread: its own small stack, then SIGUSR1 to itself, whose handler _exits there */
static void *exit_on_stack(void *arg)
{
	small_stack(0);
	pthread_barrier_wait(arg);
	raise(SIGUSR1);
	return NULL;
}

/* sig's handler fn with flags (SA_ONSTACK, SA_RESTART) */
static void handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

/* fn on two threads that start together (both: their barrier), joined (they end the process) */
static void two_threads(void *(*fn)(void *))
{
	pthread_t t[2];
	pthread_barrier_init(&both, NULL, 2);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, fn, &both);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
}

/* SIGABRT's handler (returns, or _exit(3) with exit3) on a 4 KiB alternate stack */
static void on_small_stack(int exit3, int flags)
{
	small_stack(flags);
	exit_fn = _exit;
	handle(SIGABRT, exit3 ? on_abort_exit_small : on_abort_quiet, SA_ONSTACK);
}

static char *make(size_t n, int c)
{
	char *p = malloc(n);
	if (!p)
		_exit(1);
	memset(p, c, n);
	__asm__ volatile("" : : "r"(p) : "memory"); /* kept, touched */
	return p;
}

static int by_assert;

/* ends the process by abort(), or by a failed assert in the assert modes */
static void fail(int argc)
{
	if (by_assert)
		assert(argc == 0);
	abort();
}

static void *assert_at_once(void *arg)
{
	pthread_barrier_wait(&both);
	assert(arg == NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	make((size_t)12 << 20, 1);
	if (strncmp(mode, "assert", 6) == 0) {
		by_assert = 1;
		mode += 6;
		if (strcmp(mode, "perror") == 0)
			assert_perror(EINVAL);
		if (strcmp(mode, "2") == 0) {
			two_threads(assert_at_once);
			return 1;
		}
	}
	if (strcmp(mode, "exit") == 0)
		signal(SIGABRT, on_abort_exit);
	if (strcmp(mode, "return") == 0)
		signal(SIGABRT, on_abort_return);
	if (strcmp(mode, "onstack") == 0 || strcmp(mode, "flood") == 0)
		on_small_stack(!by_assert, 0);
	if (strcmp(mode, "room") == 0) {
		small_stack(0);
		exit_fn = _exit;
		handle(SIGABRT, on_abort_room, SA_ONSTACK);
	}
	if (strcmp(mode, "disarm") == 0)
		on_small_stack(1, SS_AUTODISARM);
	if (strcmp(mode, "flood") == 0) {
		handle(SIGALRM, on_tick, SA_ONSTACK | SA_RESTART);
		struct itimerval it = { { 0, 200 }, { 0, 200 } };
		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (strcmp(mode, "onstack2") == 0) {
		exit_fn = _exit;
		handle(SIGUSR1, on_abort_exit_small, SA_ONSTACK);
		two_threads(exit_on_stack);
		return 1;
	}
	if (strcmp(mode, "oneshot") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_abort_once;
		sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
		sigaction(SIGABRT, &sa, NULL);
	}
	if (strcmp(mode, "jump") == 0) {
		signal(SIGABRT, on_abort_jump);
		if (sigsetjmp(jb, 1) == 0)
			fail(argc);
		make((size_t)20 << 20, 2);
		if (by_assert) { /* a second assert, with the default action: it must lend it again */
			signal(SIGABRT, SIG_DFL);
			fail(argc);
		}
		return 0;
	}
	fail(argc);
}
