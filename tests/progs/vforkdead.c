/* vforkdead.c: thread T's first event is in its vfork child (its ring carries the child's
 * tid, so the kernel cannot be asked about T), and T then ends without the tracer's exit
 * destructor: by the exit system call on a stack of the program's, unmapped afterwards and
 * covered by a PROT_NONE guard ("raw"), or by taking its ring in the last key-destructor round
 * ("key"; a thread V then reuses T's cached stack, its TLS at T's address, and is alive at
 * exit). T keeps 20 x 1,000 bytes, V 30 x 1,000, the child 100. The default mode's last flush
 * must not read T's running totals through the ring (it read unmapped memory: the program
 * died of SIGSEGV at exit; or V's totals twice); T's unsent totals, under one step (64 KiB),
 * are lost. With "pexit", T instead sleeps 500 ms and keeps 50 x 1,000 while main has ended
 * with pthread_exit: without /proc the writer tells the program's threads by their rings, and
 * took T (its ring's tid the child's, gone) for ended, finishing the trace without T's blocks.
 * Prints "done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static void *volatile sink;
static int raw, pexit;
static pthread_key_t key;
static int round_;
static void vf(void)
{
	pid_t c = vfork();
	if (c == 0) { sink = malloc(100); _exit(0); }
	waitpid(c, NULL, 0);
}
static void dtor(void *a)
{
	if (++round_ < 4) { pthread_setspecific(key, a); return; }
	vf(); /* round 4: the tracer's key set now, no round after */
	for (int i = 0; i < 20; i++) sink = malloc(1000); /* pending totals in T's TLS */
}
static void *t_main(void *a)
{
	if (pexit) {
		vf();
		struct timespec ms500 = {0, 500000000};
		nanosleep(&ms500, NULL);
		for (int i = 0; i < 50; i++) sink = malloc(1000);
		printf("done\n");
		return a;
	}
	if (raw) {
		vf();
		for (int i = 0; i < 20; i++) sink = malloc(1000);
		syscall(SYS_exit, 0);
	}
	pthread_setspecific(key, (void *)1);
	return a;
}
static void *v_main(void *a)
{
	for (int i = 0; i < 30; i++) sink = malloc(1000); /* its TLS where T's was (stack cache) */
	sleep(1);
	return a;
}
int main(int argc, char **argv)
{
	raw = argc > 1 && !strcmp(argv[1], "raw");
	pexit = argc > 1 && !strcmp(argv[1], "pexit");
	pthread_key_create(&key, dtor);
	if (pexit) {
		pthread_t t;
		pthread_create(&t, NULL, t_main, NULL);
		usleep(100000);
		pthread_exit(NULL);
	}
	pthread_attr_t at;
	pthread_attr_init(&at);
	size_t sz = 1 << 20;
	void *stk = NULL;
	if (raw) {
		stk = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pthread_attr_setstack(&at, stk, sz);
	}
	pthread_t t, v;
	pthread_create(&t, &at, t_main, NULL);
	pthread_join(t, NULL);
	if (raw) {
		munmap(stk, sz);
		void *g = mmap(stk, sz, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		fprintf(stderr, "guard %s\n", g == stk ? "placed" : "not placed");
		printf("done\n");
		return 0;
	}
	pthread_create(&v, NULL, v_main, NULL); /* reuses T's cached stack: same TLS address */
	usleep(300000);
	printf("done\n"); /* exit while V sleeps: V's pending totals read by the writer */
	fflush(stdout);
	exit(0);
}
