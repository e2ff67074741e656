/* ascap.c: keeps 1 MiB, then caps its address space below what it uses (setrlimit RLIMIT_AS
 * at 3 MiB: every later mapping fails), waits 100 ms and asks for 8 MiB, which is refused.
 * Prints that, exits 0. The tracer's RSS sampler cannot map its event buffer for its first
 * sample after the cap: it must say so as the sampler's (the line named "a new thread" the
 * program never made), and the exit line must still count the events (it read "0 events,
 * peak heap 0 B" once the writer could not map its merge table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void *(*volatile alloc)(size_t) = malloc;

int main(void)
{
	char *keep = alloc(1 << 20);
	if (!keep)
		return 1;
	memset(keep, 1, 1 << 20);
	struct rlimit r = {3 << 20, 3 << 20};
	if (setrlimit(RLIMIT_AS, &r) != 0)
		return 2;
	usleep(100000);
	void *big = alloc(8 << 20);
	printf("8 MiB %s\n", big ? "given" : "refused");
	return 0;
}
