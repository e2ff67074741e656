/* nullwrite.c: phase markers written to standard output on /dev/null (a program whose output
 * the user silences while tracing it), then a write from a pointer the device never reads:
 * /dev/null takes it (status 5, untraced too). Run with stdout on /dev/null and
 *   CUZKTRACE_PHASES='synth=SYNTH_START..SYNTH_END'
 * The rule still sees the markers (1,000,000 bytes live in synth, by write; its end by
 * writev), and the scan of the write must not read the bad pointer (it crashed the program:
 * SIGSEGV). Prints the calls' results to stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

static void *volatile keep;
static const char *volatile bad = (const char *)1;

int main(void)
{
	ssize_t a = write(1, "SYNTH_START\n", 12);
	keep = malloc(1000000);
	struct iovec iov[2] = {{"SYNTH_", 6}, {"END\n", 4}};
	ssize_t b = writev(1, iov, 2);
	errno = 0;
	ssize_t c = write(1, bad, 5);
	fprintf(stderr, "write %zd, writev %zd, bad pointer %zd (errno %d)\n", a, b, c, errno);
	return 0;
}
