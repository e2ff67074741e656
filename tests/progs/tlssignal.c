/* tlssignal.c: signal handlers that map memory while a traced mremap captures its stack and
 * brings the TLS table up to date (tests/progs/lib/tlsshim.c raises them at those moments).
 * The capture lowered the guard to 0 for that: the first handler ran a whole mmap hook, whose
 * frame mark replaced the mremap hook's, and the second then took the live mremap hook for one
 * left by a siglongjmp: a false line about a jump, the mremap's stamp dropped, events out of
 * order. Both handlers' calls are counted lost, as any handler's inside a hook. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
static void *volatile keep;
static void h1(int s) { (void)s; void *m = mmap(0, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); keep = m; }
static void h2(int s) { (void)s; keep = mmap(0, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); }
int main(void)
{
	signal(SIGUSR1, h1); signal(SIGUSR2, h2);
	volatile int *armed = dlsym(RTLD_DEFAULT, "shim_armed");
	void *m = mmap(0, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (armed) *armed = 1;
	m = mremap(m, 1 << 20, 2 << 20, MREMAP_MAYMOVE);
	printf("armed %d, %p\n", armed ? *armed : -1, m);
	for (int i = 0; i < 10; i++) free(malloc(100));
	return 0;
}
