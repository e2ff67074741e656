/* oneevent.c: one malloc of 1,000 bytes, then _exit: with CUZKTRACE_RSS_MS=0 the trace holds
 * that one event, and the exit line says "1 event" (not "1 events"). */
#include <stdlib.h>
#include <unistd.h>

static void *volatile keep;

int main(void)
{
	keep = malloc(1000);
	_exit(0);
}
