/* logphases.c: phase markers in the program's own output, no API calls. Run with
 *   CUZKTRACE_PHASES='synthesis=SYNTH_START..SYNTH_END;gpu=GPU_START..GPU_END;loading=LOAD_BEGIN;proving=PROVE_BEGIN'
 *   synthesis (via write(2) to stderr, like Rust's eprintln!)   1,000,000
 *   (none)    between SYNTH_END (sent with writev) and GPU_START   2,000,000
 *   gpu       (marker via write to stdout)                           3,000,000
 *   loading   single marker, ended by PROVE_BEGIN                      400,000
 *   proving   single marker, still active at exit                      500,000
 *   "SYNTH_START" fprintf'd through stdio: not seen (documented), so the 600,000 after it
 *             stays with proving (1,100,000 in all) instead of beginning synthesis
 * Peak heap 7,500,000 (nothing is freed before exit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static void *volatile keep[8];

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(3);
}

int main(void)
{
	say(2, "TIMELINE,1,SYNTH_START,partition=0\n");
	keep[0] = malloc(1000000);
	struct iovec iov[3] = {{"TIMELINE,2,", 11}, {"SYNTH_END", 9}, {",partition=0\n", 13}};
	if (writev(2, iov, 3) < 0)
		return 3;
	keep[1] = malloc(2000000);
	say(1, "TIMELINE,3,GPU_START\n");
	keep[2] = malloc(3000000);
	say(1, "TIMELINE,4,GPU_END\n");
	say(2, "LOAD_BEGIN\n");
	keep[3] = malloc(400000);
	say(2, "PROVE_BEGIN\n");
	keep[4] = malloc(500000);
	say(2, "x\n");
	fprintf(stderr, "stdio: SYNTH_START is not seen\n");
	keep[5] = malloc(600000);
	return 0;
}
