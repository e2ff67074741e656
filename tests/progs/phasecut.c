/* phasecut.c: six process-wide phases begun one after another, each named by 999 bytes that
 * hold quotes and a '+' (so each is quoted in the timeline CSV's active_phases list), each
 * holding a block of 1,000,000 bytes and more for 12 ms: the list outgrows the cell (4 KiB),
 * which must be cut between names, so that it still splits at the '+' outside quotes. */
#define CUZKTRACE_WEAK
#include "cuzktrace.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[6];

int main(void)
{
	static char names[6][1000];
	for (int i = 0; i < 6; i++) {
		memset(names[i], 'a' + i, 999);
		names[i][0] = '"';
		names[i][500] = '+';
		names[i][990] = '"';
		CUZKTRACE_PHASE_BEGIN(names[i]);
		keep[i] = malloc(1000000 + (size_t)i);
		memset(keep[i], 1, 64);
		usleep(12000);
	}
	return 0;
}
