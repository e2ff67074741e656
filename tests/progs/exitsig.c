/* exitsig.c: a SIGTERM handler that calls _exit, run while the main thread is inside
 * pthread_join, where glibc holds its thread-stack lock. Made certain, not left to timing: the
 * program exports its own free (built with -rdynamic, as a program with a built-in allocator
 * is), which raises the signal when pthread_join frees the joined thread's memory (its TLS
 * vector, freed through the global free when the thread ran on a stack of the program's). The
 * tracer's _exit hook finishes the trace there: it must not join a thread of its own (the
 * same lock: it hung for good), only wait for its writer. Exits 0 from the handler. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static volatile int in_join;
static pthread_t main_thread;

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
	if (in_join && pthread_equal(pthread_self(), main_thread)) {
		in_join = 0;
		raise(SIGTERM);
	}
	__libc_free(p);
}

static void on_term(int sig)
{
	(void)sig;
	_exit(0);
}

static void *noop(void *arg)
{
	return arg;
}

int main(void)
{
	signal(SIGTERM, on_term);
	main_thread = pthread_self();
	pthread_attr_t attr;
	size_t size = 1 << 20;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || pthread_attr_init(&attr) || pthread_attr_setstack(&attr, stack, size))
		return 2;
	pthread_t t;
	if (pthread_create(&t, &attr, noop, NULL))
		return 2;
	in_join = 1;
	pthread_join(t, NULL);
	return 1; /* not reached when pthread_join frees anything: the handler exits */
}
