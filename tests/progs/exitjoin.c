/* exitjoin.c: main returns (exit: the tracer's destructor finishes the trace) while thread
 * B's signal handler, which interrupted B's pthread_join (glibc's thread-stack lock held),
 * sleeps 300 ms and calls _exit(3). The destructor joined the tracer's helper threads, which
 * needs that lock, while B's _exit waited for the destructor: the program hung (later, after
 * 10 s, it ended with a truncated trace). The destructor joins nothing now: the trace is
 * complete whichever of the two ends the process (status 0 or 3). Exports its own allocator
 * (built with -rdynamic) so that B's free inside pthread_join raises the signal: certain, not
 * timing. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
static volatile int in_join;
static pthread_t bth;
static int pfd[2];
void *malloc(size_t n) { return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p)
{
	if (in_join && pthread_equal(pthread_self(), bth)) {
		in_join = 0;
		raise(SIGUSR1);
	}
	__libc_free(p);
}
static void on_usr1(int sig)
{
	(void)sig;
	(void)!write(pfd[1], "x", 1);
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	_exit(3);
}
static void *noop(void *a) { return a; }
static void *b_main(void *a)
{
	pthread_attr_t attr;
	size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstack(&attr, stack, size);
	pthread_t c;
	pthread_create(&c, &attr, noop, NULL);
	in_join = 1;
	pthread_join(c, NULL);
	return a;
}
int main(void)
{
	signal(SIGUSR1, on_usr1);
	if (pipe(pfd)) return 2;
	pthread_create(&bth, NULL, b_main, NULL);
	char ch;
	(void)!read(pfd[0], &ch, 1);
	return 0; /* exit() while B holds the stack lock and will _exit in 300 ms */
}
