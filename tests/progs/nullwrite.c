/* nullwrite.c: phase markers written to standard output on /dev/null (a program whose output
 * the user silences while tracing it). Run with stdout on /dev/null and
 *   CUZKTRACE_PHASES='synth=SYNTH_START..SYNTH_END'
 * The rule still sees the markers: 1,000,000 bytes live in synth, begun by a write, ended by a
 * writev. Prints the calls' results to stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

static void *volatile keep;

int main(void)
{
	ssize_t a = write(1, "SYNTH_START\n", 12);
	keep = malloc(1000000);
	struct iovec iov[2] = {{"SYNTH_", 6}, {"END\n", 4}};
	ssize_t b = writev(1, iov, 2);
	fprintf(stderr, "write %zd, writev %zd\n", a, b);
	return 0;
}
