/* longnames.c: names and log lines longer than the trace keeps (1,024 bytes), cut inside a
 * multi-byte character. Pushes a phase named "a" x 1023 + "é" + "tail" (the cut falls inside
 * the é) and allocates 1,000,000 bytes in it; then writes one line to stderr of "€" x 400,
 * the marker "MARKX" and "€" x 400, matched by CUZKTRACE_PHASES='m=MARKX' (the stored note is
 * cut from 512 bytes before the marker and to 1,024 bytes, both inside a "€"). The trace
 * keeps whole characters: a phase name of 1,023 bytes, a note of 1,022 (170 "€", "MARKX",
 * 169 "€"). Then two lines whose start is in an earlier write (see below): notes "café
 * MARKX" and 42 "€" before "MARKX"; then two that start inside a character no join
 * completes: notes " MARKX" and 300 "x" before " MARKX". Prints "x", then "longnames:
 * done". Run it only with the tracer preloaded. */
#define CUZKTRACE_WEAK /* resolved by the preloaded library */
#include "cuzktrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep;

int main(void)
{
	static char name[1100], line[2500];
	memset(name, 'a', 1023);
	strcpy(name + 1023, "\xc3\xa9tail");
	CUZKTRACE_PHASE_PUSH(name);
	keep = malloc(1000000);
	memset(keep, 1, 1000000);
	CUZKTRACE_PHASE_POP();
	size_t n = 0;
	for (int i = 0; i < 400; i++, n += 3)
		memcpy(line + n, "\xe2\x82\xac", 3);
	memcpy(line + n, "MARKX", 5);
	n += 5;
	for (int i = 0; i < 400; i++, n += 3)
		memcpy(line + n, "\xe2\x82\xac", 3);
	line[n++] = '\n';
	if (write(2, line, n) != (ssize_t)n)
		return 3;
	/* a line whose "é" is split between two writes: the note joins them whole */
	if (write(2, "caf\xc3", 4) != 4 || write(2, "\xa9 MARKX\n", 8) != 8)
		return 3;
	/* a line of 67 "€" in one write, then the marker in the next: the note takes the first
	 * write's last 127 bytes (what a thread keeps of its open line), which start inside a
	 * "€": 42 whole ones, then the marker */
	for (n = 0; n < 67 * 3; n += 3)
		memcpy(line + n, "\xe2\x82\xac", 3);
	if (write(2, line, n) != (ssize_t)n || write(2, "MARKX\n", 6) != 6)
		return 3;
	/* lines that start inside a character no join completes: its first byte went to stdout
	 * (which ends the open line on stderr), or the marker is 256 bytes or more into the write
	 * (the join keeps 256 around it): the note starts after the stray byte */
	if (write(2, "caf\xc3", 4) != 4 || write(1, "x", 1) != 1 || write(2, "\xa9 MARKX\n", 8) != 8)
		return 3;
	if (write(2, "caf\xc3", 4) != 4)
		return 3;
	line[0] = (char)0xa9;
	memset(line + 1, 'x', 300);
	memcpy(line + 301, " MARKX\n", 7);
	if (write(2, line, 308) != 308)
		return 3;
	if (write(1, "\n", 1) != 1)
		return 3;
	printf("longnames: done\n");
	return 0;
}
