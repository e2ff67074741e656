/* callsdiff.c [fixed | N]: a change that takes allocator churn out without moving a peak. grow
 * fills a 1 MiB buffer grown by realloc from 1 byte, doubling: 1 malloc and 20 reallocs
 * (fixed: one malloc of the whole size); scratch makes 1000 blocks of 64 bytes, each freed at
 * once (fixed: 10; N: N of them). The peak heap is the 1 MiB buffer either way; "allocation calls by
 * function" in --diff shows the change, with scratch's temporaries. */
#include <stdlib.h>
#include <string.h>

void *volatile sink;

__attribute__((noinline)) static char *grow(size_t n, int fixed)
{
	size_t cap = fixed ? n : 1;
	char *p = malloc(cap);
	for (size_t i = 0; p && i < n; i++) {
		if (i >= cap) {
			cap *= 2;
			p = realloc(p, cap);
			if (!p)
				break;
		}
		p[i] = 1;
	}
	return p;
}

__attribute__((noinline)) static void scratch(int k)
{
	for (int i = 0; i < k; i++) {
		char *q = malloc(64);
		sink = q;
		free(q);
	}
}

int main(int argc, char **argv)
{
	int fixed = argc > 1 && strcmp(argv[1], "fixed") == 0;
	int n = argc > 1 && !fixed ? atoi(argv[1]) : 0; /* a count of scratch blocks of its own */
	sink = grow((size_t)1 << 20, fixed);
	scratch(n > 0 ? n : fixed ? 10 : 1000);
	return 0;
}
