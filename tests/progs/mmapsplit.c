/* mmapsplit.c: one mmap site (grab) called 5 times for 4 pages each; 3 of those mappings get a
 * hole unmapped in the middle, then both remaining halves unmapped; 2 stay. Then 20 MiB from
 * another site is mapped and touched, so that the last RSS sample is the peak: at it, grab
 * holds 2 mappings (8 pages). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* grab and big are two call sites of mmap on purpose: the report charges a mapping to the
 * function that called mmap (inlined helpers count as frames of their own) */
static char *grab(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	memset(p, 1, len);
	return p;
}

static char *big(size_t len)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	memset(p, 2, len);
	return p;
}

int main(void)
{
	size_t P = (size_t)sysconf(_SC_PAGESIZE);
	char *m[5];
	for (int i = 0; i < 5; i++)
		m[i] = grab(4 * P);
	for (int i = 2; i < 5; i++) {
		munmap(m[i] + P, P);         /* a hole: two ranges left */
		munmap(m[i], P);             /* the first half */
		munmap(m[i] + 2 * P, 2 * P); /* the second */
	}
	big(20 << 20);
	usleep(50000);
	puts("mmapsplit: done");
	return 0;
}
