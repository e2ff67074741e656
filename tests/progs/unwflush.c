/* unwflush.c: a program that sizes libunwind's rule cache (unw_set_cache_size 16384, which
 * makes its links table 256 KiB, the size of the trace cache) while a flush of that cache
 * lands in the tracer's first unw_backtrace of a thread (libunwflush.so, preloaded after the
 * tracer, stands in for another thread's unw_flush_cache there): the refill maps the links
 * table during unw_cache_trim, after the trace cache. The tracer must drop the trace cache's
 * pages, not the links table's, whose zeroed collision chains made libunwind's rule lookups
 * loop for ever (0.2.19 before the check of the mapping's contents: killed by the test's
 * timeout). A worker steps 64 stacks (the switch to unw_backtrace) and then allocates from
 * 128 functions, each a return address of its own. Prints "unwflush: done". */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

#define F(i) \
	__attribute__((noinline)) static void f##i(void) \
	{ \
		sink = malloc(24); \
		free(sink); \
	}
#define F8(i) F(i##0) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7)
#define F64(i) F8(i##0) F8(i##1) F8(i##2) F8(i##3) F8(i##4) F8(i##5) F8(i##6) F8(i##7)
F64(1)
F64(3)
F64(4)
F64(5)
F64(2)
#define T8(i) f##i##0, f##i##1, f##i##2, f##i##3, f##i##4, f##i##5, f##i##6, f##i##7,
#define T64(i) T8(i##0) T8(i##1) T8(i##2) T8(i##3) T8(i##4) T8(i##5) T8(i##6) T8(i##7)
static void (*const tab[])(void) = {T64(1) T64(2) T64(3) T64(4) T64(5)};

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 64; i++)
		tab[i % 7]();
	for (int r = 0; r < 4; r++)
		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			tab[i]();
	return NULL;
}

int main(void)
{
	if (unw_set_cache_size(unw_local_addr_space, 16384, 0) != 0) {
		printf("unwflush: unw_set_cache_size failed\n");
		return 2;
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	printf("unwflush: done\n");
	return 0;
}
