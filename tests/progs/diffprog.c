/* diffprog.c: two runs to compare with cuzktrace-report --diff (tests/integration/t_reader.sh).
 *   diffprog LOAD SYNTH EXTRA [moved|same [MS]]
 * In phase "load", load_params keeps LOAD bytes; in phase "synthesis", grow keeps SYNTH bytes
 * and, when EXTRA > 0, extra_cache keeps EXTRA bytes; then all is freed but 1,000 bytes kept
 * by main. One thread, so the peak heap is exactly LOAD + SYNTH + EXTRA (+ what the C library
 * allocates for itself, the same in both runs). With "moved", grow allocates on another line
 * of its own: the same function, another site. With MS, the blocks stay MS ms before they
 * are freed: every block is written, so the peak RSS sample falls then.
 * Built again with -DDIFFPROG_V2 (build/progs/diffprog_v2): a rebuild, with other code and
 * another build-id, that allocates the same.
 * Calls the phase API through weak symbols: untraced, the marks are skipped. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[4];

static __attribute__((noinline)) void *touched(void *p, size_t n)
{
	if (p)
		memset(p, 1, n);
	return p;
}

static __attribute__((noinline)) void *load_params(size_t n)
{
	return touched(malloc(n), n);
}

static __attribute__((noinline)) void *grow(size_t n, int moved)
{
	if (moved) { /* another line, and code of its own (the compiler would merge the two) */
		char *p = malloc(n);
		if (p)
			p[n - 1] = 2;
		return touched(p, n);
	}
	return touched(malloc(n), n);
}

static __attribute__((noinline)) void *extra_cache(size_t n)
{
	return touched(malloc(n), n - 1); /* not load_params' body: gcc would fold the two */
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	size_t load = strtoul(argv[1], NULL, 10), synth = strtoul(argv[2], NULL, 10);
	size_t extra = strtoul(argv[3], NULL, 10);
	int moved = argc > 4 && strcmp(argv[4], "moved") == 0;
#ifdef DIFFPROG_V2
	keep[3] = calloc(1, 1000);
#else
	keep[3] = malloc(1000);
#endif
	CUZKTRACE_PHASE_BEGIN("load");
	keep[0] = load_params(load);
	CUZKTRACE_PHASE_END("load");
	CUZKTRACE_PHASE_BEGIN("synthesis");
	keep[1] = grow(synth, moved);
	if (extra)
		keep[2] = extra_cache(extra);
	CUZKTRACE_PHASE_END("synthesis");
	if (argc > 5)
		usleep((useconds_t)strtoul(argv[5], NULL, 10) * 1000);
	for (int i = 0; i < 3; i++)
		free(keep[i]);
	return 0;
}
