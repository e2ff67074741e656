/* libmanykeys.so: its constructor creates 40 thread-specific keys, as a program's libraries
 * may before the tracer's constructor runs (a program's libraries start before preloaded
 * ones). The tracer's own key then lies past glibc's first 32, whose values a thread keeps in
 * a block that pthread_setspecific allocates (calloc) on the thread's first use. */
#include <pthread.h>

static pthread_key_t keys[40];

__attribute__((constructor)) static void make_keys(void)
{
	for (int i = 0; i < 40; i++)
		(void)pthread_key_create(&keys[i], 0);
}
