/* poolidle.c: a pool thread's running total sent late. A worker makes 600 blocks of 100
 * bytes (under the sampling rate, and 600 x 104 usable bytes = 62,400, under the 64 KiB step:
 * its first block goes out at once, the rest stay pending) and waits, idle, as a pool thread
 * does between jobs. main makes a 4 MiB block in phase "msm" and keeps it; msm lasts 50 ms.
 * 50 ms after the last of these the worker is let go and ends, sending its pending total.
 *   poolidle         the worker's blocks first, msm 50 ms later (several ticks of the tracer's
 *                    coarse clock, which orders them): the heap is at its peak from the 4 MiB
 *                    block on, first in msm. Before tracer 0.2.23 the default mode put the
 *                    peak at the worker's exit, in no phase: the total it sent there came a
 *                    few bytes above the old peak
 *   poolidle after   the worker makes its blocks 50 ms after msm ended: the peak is then, in
 *                    no phase (the late total must not be counted back into msm)
 *   poolidle freed   as the first, but a second worker frees the blocks before msm and idles
 *                    too: both late totals came before the peak, the frees' too, and the peak
 *                    is the 4 MiB block alone (counting the first and not the second put the
 *                    600 blocks at the peak, freed 50 ms before it)
 *   poolidle latefree  the worker sends its total (a phase call), main holds 4 MiB + 32 KiB
 *                    for 30 ms in phase "fft" and frees it, the worker frees its blocks and
 *                    idles (its frees pending), main holds 4 MiB + 48 KiB in "msm". The true
 *                    peak is fft's; the worker's late frees must not lower the msm moment the
 *                    reader holds below the heap its own timeline showed (they did: a peak
 *                    below the CSV's top). Which of the two moments, the bound cannot tell
 * Prints "poolidle: done". Run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int step; /* 1: make the blocks; 2: made; 3: freed (freed), free them (latefree); 4: freed (latefree); 5: end */
static void *volatile rows[600];

static void wait_for(int s)
{
	pthread_mutex_lock(&lock);
	while (step < s)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void set(int s)
{
	pthread_mutex_lock(&lock);
	step = s;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static int latefree;

static void *worker(void *arg)
{
	(void)arg;
	wait_for(1);
	for (int i = 0; i < 600; i++) {
		rows[i] = malloc(100);
		memset(rows[i], 1, 100);
	}
	if (latefree) { /* a phase call sends the total */
		CUZKTRACE_PHASE_PUSH("w");
		CUZKTRACE_PHASE_POP();
	}
	set(2);
	if (latefree) {
		wait_for(3);
		for (int i = 0; i < 600; i++)
			free(rows[i]);
		set(4);
	}
	wait_for(5); /* idle */
	return NULL;
}

static void held(const char *phase, size_t n)
{
	CUZKTRACE_PHASE_BEGIN(phase);
	char *volatile b = malloc(n);
	memset(b, 2, n);
	usleep(30000);
	free(b);
	CUZKTRACE_PHASE_END(phase);
}

static void *freer(void *arg)
{
	(void)arg;
	wait_for(2);
	for (int i = 0; i < 600; i++)
		free(rows[i]);
	set(3);
	wait_for(5); /* idle */
	return NULL;
}

static void msm(void)
{
	CUZKTRACE_PHASE_BEGIN("msm");
	char *volatile big = malloc(4 << 20);
	memset(big, 2, 4 << 20);
	usleep(50000);
	CUZKTRACE_PHASE_END("msm");
}

int main(int argc, char **argv)
{
	int after = argc > 1 && !strcmp(argv[1], "after"), freed = argc > 1 && !strcmp(argv[1], "freed");
	latefree = argc > 1 && !strcmp(argv[1], "latefree");
	pthread_t t, f;
	if (pthread_create(&t, NULL, worker, NULL) || (freed && pthread_create(&f, NULL, freer, NULL)))
		return 2;
	if (after) {
		msm();
		usleep(50000);
	}
	set(1);
	wait_for(freed ? 3 : 2);
	if (latefree) {
		usleep(20000);
		held("fft", (4 << 20) + (32 << 10));
		set(3);
		wait_for(4);
		usleep(50000);
		held("msm", (4 << 20) + (48 << 10));
	} else if (!after) {
		usleep(50000);
		msm();
	}
	usleep(50000);
	set(5);
	if (freed)
		pthread_join(f, NULL);
	pthread_join(t, NULL);
	/* not stdio: its buffer, allocated here, would be the peak */
	return write(1, "poolidle: done\n", 15) == 15 ? 0 : 1;
}
