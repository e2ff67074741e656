/* lastrealloc.c: 32 threads in turn, each of which ends right after a realloc that moves its
 * block (mode "realloc") or an mremap that moves its mapping (mode "mremap"): events with an
 * after-stamp, the thread's last. The tracer's THREAD_EXIT record must not be stamped before
 * that after-stamp. Usage: lastrealloc realloc|mremap */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile keep[32];
static int use_mremap;

static void *thread_main(void *arg)
{
	long i = (long)arg;
	if (use_mremap) {
		void *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		keep[i] = m == MAP_FAILED ? NULL : mremap(m, 1 << 20, 4 << 20, MREMAP_MAYMOVE);
	} else {
		void *p = malloc(100);
		keep[i] = realloc(p, 300000); /* past the mmap threshold: a new block */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	use_mremap = strcmp(argv[1], "mremap") == 0;
	for (long i = 0; i < 32; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, (void *)i))
			return 3;
		pthread_join(t, NULL);
	}
	usleep(300000); /* the writer recycles the ended threads' rings: their THREAD_EXITs */
	return 0;
}
