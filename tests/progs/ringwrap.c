/* ringwrap.c: a thread whose events go round its ring's small starting window many times at a
 * moderate rate (no growth: 300 events, then a 5 ms pause), with reallocs (two slots each)
 * falling on every position of the window, then a burst that makes the window grow, then a
 * known peak. Every figure is exact:
 *   phase 1: 3001 x (malloc(100), realloc to 200 + i % 7, free), a 5 ms pause every 100
 *   phase 2: 100000 x (malloc(64), free)
 *   phase 3: 1000 blocks of 1000 bytes live at once (the peak: 1,000,000 bytes), then freed
 * Totals: 104001 mallocs, 3001 reallocs, 104001 frees. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
	for (int i = 0; i < 3001; i++) {
		char *p = malloc(100);
		char *q = realloc(p, 200 + (size_t)(i % 7));
		if (!q)
			return 1;
		q[0] = (char)i;
		free(q);
		if (i % 100 == 99) {
			struct timespec ts = {0, 5000000};
			nanosleep(&ts, NULL);
		}
	}
	for (int i = 0; i < 100000; i++) {
		volatile char *p = malloc(64);
		p[0] = (char)i;
		free((void *)p);
	}
	static char *keep[1000];
	for (int i = 0; i < 1000; i++)
		keep[i] = malloc(1000);
	for (int i = 0; i < 1000; i++)
		free(keep[i]);
	puts("ringwrap: done");
	return 0;
}
