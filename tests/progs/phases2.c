/* phases2.c: the phase API and log-line rules at their edges. One mode per run:
 *   deep       40 nested pushes d01..d40: blocks of 1,000,040 in d40, 1,000,039 in d39,
 *              1,000,033 in d33, 1,000,032 in d32, 1,000,001 in d01, 1,000,000 in none
 *   deeper     300 nested pushes e001..e300, then a block of 3,000,000: charged to e256 (with
 *              one warning line), all 300 listed as active at the peak
 *   deeperpop  300 nested pushes f001..f300, 44 pops (depth 256), a block of 2,000,000: f256;
 *              6 pops, 1,000,000: f250; 249 pops, 500,000: f001 (the pops back from past 256)
 *   overlimit  4,100 names pushed and popped (the table holds 4,096), begin "p0001", push a
 *              name past the limit, a block of 1,000,000: charged to p0001
 *   exitpush   a thread pushes "worker", allocates 1,000,000 and exits without popping; then
 *              main allocates 5,000,000: the phase ended with its thread
 *   race       8 threads each write their single marker M1..M8 20,000 times to stderr; then
 *              a block of 50,000,000: exactly one single-marker phase is active at the peak
 *   bigwritev  a writev of 9,000 bytes, then "SYNTH_START\n"; a block of 1,000,000 after it
 *   overlap    "PROVE" 1,000,000 "PROVE_DONE" 2,000,000 "LOAD" 3,000,000 "SYNTH" 4,000,000
 *              "DONE" 5,000,000 "MARK" 6,000,000 "MARK" 7,000,000, each marker its own line
 *   utf8       1,000,000 in the phase "données" (UTF-8), 1,000,000 in "plain"
 *   manylines  one write of 20,000 lines "STEP n": 20,000 matches of a single-marker rule
 *   longline   one line of 3,006 bytes: 2,000 'x', " MARK ", 1,000 'y'; its note keeps the 1,024
 *              bytes from 512 before the marker
 * Blocks are kept to the end, so the peak heap is their sum. Uses write(2), not stdio. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static void *volatile keep[64];
static int nkeep;

static void hold(size_t n)
{
	keep[nkeep++] = malloc(n);
}

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(3);
}

static void *worker(void *arg)
{
	(void)arg;
	CUZKTRACE_PHASE_PUSH("worker");
	hold(1000000);
	return NULL; /* no pop */
}

static void *marker(void *arg)
{
	char m[8];
	int n = snprintf(m, sizeof(m), "M%d\n", (int)(long)arg);
	for (int i = 0; i < 20000; i++)
		if (write(2, m, (size_t)n) < 0)
			_exit(3);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char name[32];
	if (!strcmp(mode, "deep")) {
		for (int i = 1; i <= 40; i++) {
			snprintf(name, sizeof(name), "d%02d", i);
			CUZKTRACE_PHASE_PUSH(name);
		}
		hold(1000040);
		CUZKTRACE_PHASE_POP();
		hold(1000039);
		for (int i = 0; i < 6; i++)
			CUZKTRACE_PHASE_POP();
		hold(1000033);
		CUZKTRACE_PHASE_POP();
		hold(1000032);
		for (int i = 0; i < 31; i++)
			CUZKTRACE_PHASE_POP();
		hold(1000001);
		CUZKTRACE_PHASE_POP();
		CUZKTRACE_PHASE_POP(); /* one too many: nothing happens */
		hold(1000000);
	} else if (!strcmp(mode, "deeper")) {
		for (int i = 1; i <= 300; i++) {
			snprintf(name, sizeof(name), "e%03d", i);
			CUZKTRACE_PHASE_PUSH(name);
		}
		hold(3000000);
	} else if (!strcmp(mode, "deeperpop")) {
		for (int i = 1; i <= 300; i++) {
			snprintf(name, sizeof(name), "f%03d", i);
			CUZKTRACE_PHASE_PUSH(name);
		}
		for (int i = 0; i < 44; i++)
			CUZKTRACE_PHASE_POP();
		hold(2000000);
		for (int i = 0; i < 6; i++)
			CUZKTRACE_PHASE_POP();
		hold(1000000);
		for (int i = 0; i < 249; i++)
			CUZKTRACE_PHASE_POP();
		hold(500000);
	} else if (!strcmp(mode, "overlimit")) {
		for (int i = 1; i <= 4100; i++) {
			snprintf(name, sizeof(name), "p%04d", i);
			CUZKTRACE_PHASE_PUSH(name);
			CUZKTRACE_PHASE_POP();
		}
		CUZKTRACE_PHASE_BEGIN("p0001");
		CUZKTRACE_PHASE_PUSH("past-the-limit");
		hold(1000000);
	} else if (!strcmp(mode, "exitpush")) {
		pthread_t th;
		pthread_create(&th, NULL, worker, NULL);
		pthread_join(th, NULL);
		usleep(20000);
		hold(5000000);
	} else if (!strcmp(mode, "race")) {
		pthread_t th[8];
		for (long i = 0; i < 8; i++)
			pthread_create(&th[i], NULL, marker, (void *)(i + 1));
		for (int i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
		hold(50000000);
	} else if (!strcmp(mode, "bigwritev")) {
		static char pre[9000];
		memset(pre, 'a', sizeof(pre));
		struct iovec v[2] = {{pre, sizeof(pre)}, {"SYNTH_START\n", 12}};
		if (writev(2, v, 2) < 0)
			return 3;
		hold(1000000);
	} else if (!strcmp(mode, "overlap")) {
		static const char *const lines[] = {"PROVE\n", "PROVE_DONE\n", "LOAD\n", "SYNTH\n",
						    "DONE\n", "MARK\n", "MARK\n"};
		for (int i = 0; i < 7; i++) {
			say(2, lines[i]);
			hold((size_t)(i + 1) * 1000000);
		}
	} else if (!strcmp(mode, "utf8")) {
		CUZKTRACE_PHASE_PUSH("donn\xc3\xa9" "es");
		hold(1000000);
		CUZKTRACE_PHASE_POP();
		CUZKTRACE_PHASE_PUSH("plain");
		hold(1000000);
		CUZKTRACE_PHASE_POP();
	} else if (!strcmp(mode, "manylines")) {
		static char buf[20000 * 12];
		size_t n = 0;
		for (int i = 0; i < 20000; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "STEP %05d\n", i);
		if (write(2, buf, n) < 0)
			return 3;
		hold(1000000);
	} else if (!strcmp(mode, "longline")) {
		static char line[3007];
		memset(line, 'x', 2000);
		memcpy(line + 2000, " MARK ", 6);
		memset(line + 2006, 'y', 1000);
		line[3006] = '\n';
		if (write(2, line, sizeof(line)) < 0)
			return 3;
		hold(1000000);
	} else {
		say(2, "usage: phases2 deep|deeper|overlimit|exitpush|race|bigwritev|overlap|utf8|manylines|longline\n");
		return 2;
	}
	say(1, "phases2: done\n");
	return 0;
}
