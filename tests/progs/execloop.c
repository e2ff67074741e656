/* execloop.c: N execs that cannot start (no such file), as a program that tries paths in turn
 * does, then prints how much its resident memory grew meanwhile, in KiB: "execloop: N KiB".
 * Usage: execloop N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = strtol(line + 6, NULL, 10);
	fclose(f);
	return kib;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = strtol(argv[1], NULL, 10);
	char *av[] = {"nope", NULL};
	execv("/nonexistent/warmup", av); /* the first call's one-time costs before measuring */
	long before = rss_kib();
	for (long i = 0; i < n; i++)
		execv("/nonexistent/nope", av);
	printf("execloop: %ld KiB\n", rss_kib() - before);
	return 0;
}
