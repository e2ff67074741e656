/* exitsig.c: a SIGTERM handler that calls _exit, run while a thread is inside pthread_join,
 * where glibc holds its thread-stack lock. Made certain, not left to timing: the program
 * exports its own free (built with -rdynamic, as a program with a built-in allocator is),
 * which raises the signal when pthread_join frees the joined thread's memory (its TLS vector,
 * freed through the global free when the thread ran on a stack of the program's).
 *   no argument: the main thread joins; the handler calls _exit(0). The tracer's _exit hook
 *     finishes the trace there: it must not join a thread of its own (the same lock: it hung
 *     for good), only wait for its writer.
 *   "join": thread B joins; its handler wakes main, sleeps 300 ms and calls _exit(3), while
 *     main returns (exit: the tracer's destructor finishes the trace). The destructor joined
 *     the tracer's helper threads, which needs B's lock, while B's _exit waited for it: the
 *     program hung (later, after 10 s, it ended with a truncated trace). It joins nothing now:
 *     the trace is complete whichever of the two ends the process (status 0 or 3). */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static volatile int in_join;
static pthread_t joiner;
static int by_b, pfd[2];

void *malloc(size_t n)
{
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	return __libc_realloc(p, n);
}

void free(void *p)
{
	if (in_join && pthread_equal(pthread_self(), joiner)) {
		in_join = 0;
		raise(SIGTERM);
	}
	__libc_free(p);
}

static void on_term(int sig)
{
	(void)sig;
	if (!by_b)
		_exit(0);
	(void)!write(pfd[1], "x", 1);
	struct timespec ms300 = {0, 300000000};
	nanosleep(&ms300, NULL);
	_exit(3);
}

static void *noop(void *arg)
{
	return arg;
}

/* joins a thread that ran on a stack of ours: the handler runs inside this join */
static void *join_one(void *arg)
{
	joiner = pthread_self();
	pthread_attr_t attr;
	size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_t t;
	if (stack == MAP_FAILED || pthread_attr_init(&attr) || pthread_attr_setstack(&attr, stack, size) ||
	    pthread_create(&t, &attr, noop, NULL))
		_exit(2);
	in_join = 1;
	pthread_join(t, NULL);
	return arg;
}

int main(int argc, char **argv)
{
	signal(SIGTERM, on_term);
	by_b = argc > 1 && !strcmp(argv[1], "join");
	if (!by_b) {
		join_one(NULL);
		return 1; /* not reached when pthread_join frees anything: the handler exits */
	}
	pthread_t b;
	if (pipe(pfd) || pthread_create(&b, NULL, join_one, NULL))
		return 2;
	char ch;
	(void)!read(pfd[0], &ch, 1);
	return 0; /* exit() while B holds the stack lock and will _exit in 300 ms */
}
