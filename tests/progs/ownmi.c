/* ownmi.c: a program's own functions whose names begin as an allocator's do ("mi_" for a
 * machine interface, not mimalloc), which map memory themselves: mi_table_create maps 32 MiB,
 * mi_setup 16 MiB through map_pages; all touched and held to the end. The report must not
 * take them for mimalloc's (tests/integration/t_allocators.sh). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static __attribute__((noinline)) char *map_pages(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 1, n);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) char *mi_table_create(size_t n)
{
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 2, n);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) char *mi_setup(void)
{
	char *p = map_pages(16 << 20);
	__asm__ volatile("" ::: "memory");
	return p;
}

int main(void)
{
	char *a = mi_table_create(32 << 20), *b = mi_setup();
	if (!a || !b)
		return 1;
	printf("ownmi: %d %d\n", a[100], b[7]);
	return 0;
}
