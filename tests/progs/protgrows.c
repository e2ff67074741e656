/* protgrows.c: mprotect with PROT_GROWSDOWN, which changes a downward-growing mapping (a stack,
 * MAP_GROWSDOWN) from its start up to the end of the range asked, not from the range's start.
 *   1. 2 MiB read-write, MAP_GROWSDOWN, at g; mprotect(g + 1 MiB, 4 KiB, PROT_NONE |
 *      PROT_GROWSDOWN): [g, g + 1 MiB + 4 KiB) is reserved now, 1020 KiB stay mapped.
 *   2. mprotect(g + 512 KiB, 4 KiB, read-write | PROT_GROWSDOWN): [g, g + 516 KiB) is open again.
 * At exit: anonymous mmap 1,572,864 bytes, reserved 524,288; peak mmap 2,097,152 (step 1's
 * mapping), peak reserved 1,052,672. Recording the ranges asked would give 2,093,056 mapped and
 * 4,096 reserved at exit.
 * Prints "protgrows: ok" when /proc/self/maps shows what the kernel should have done after each
 * step (else what it shows). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KiB 1024ul

/* the protection of the mapping of /proc/self/maps that starts at lo, where it ends at hi */
static int check(const char *what, char *lo, char *hi, const char *prot)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char p[5];
		if (sscanf(line, "%lx-%lx %4s", &s, &e, p) == 3 && s == (unsigned long)lo)
			found = e == (unsigned long)hi && strncmp(p, prot, 3) == 0;
	}
	if (f)
		fclose(f);
	if (!found)
		printf("protgrows: %s: no mapping %p-%p %s\n", what, (void *)lo, (void *)hi, prot);
	return !found;
}

int main(void)
{
	char *g = mmap(NULL, 2048 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN,
		       -1, 0);
	if (g == MAP_FAILED)
		return 3;
	int bad = 0;
	if (mprotect(g + 1024 * KiB, 4 * KiB, PROT_NONE | PROT_GROWSDOWN)) {
		perror("protgrows: mprotect 1");
		return 4;
	}
	bad |= check("step 1", g, g + 1028 * KiB, "---");
	bad |= check("step 1", g + 1028 * KiB, g + 2048 * KiB, "rw-");
	if (mprotect(g + 512 * KiB, 4 * KiB, PROT_READ | PROT_WRITE | PROT_GROWSDOWN)) {
		perror("protgrows: mprotect 2");
		return 5;
	}
	bad |= check("step 2", g, g + 516 * KiB, "rw-");
	bad |= check("step 2", g + 516 * KiB, g + 1028 * KiB, "---");
	if (!bad)
		printf("protgrows: ok\n");
	return 0;
}
