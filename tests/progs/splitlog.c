/* splitlog.c: phase markers split across writes, as Rust's eprintln!("{} start", stage)
 * writes "synthesis" then " start\n" (its stderr is unbuffered). Run with
 *   CUZKTRACE_PHASES='synthesis=synthesis start..synthesis done;gpu=gpu start..gpu end;prove=prove start..prove end'
 *   (none)     before any marker                                       1,000,000
 *   synthesis  "synth" + "esis start\n"; ended by "synthesis d" + "one\n",
 *              with a whole line of another thread written in between  2,000,000
 *              (and the 304 bytes of glibc's TLS vector for that thread)
 *   gpu        "gp" + "u st" + "art\n"; ended by a writev of 1,500 bytes whose
 *              marker is split between its pieces ("...gpu e", "nd\n") 4,000,000
 *   (none)     after gpu, and after "prove st" (stderr), "x\n" (stdout), "art\n" (stderr):
 *              a write to the other descriptor ends the line, prove does not begin  3,000,000
 * Nothing is freed: the peak heap is 10,000,304 at the end.
 * "splitlog prefix", with CUZKTRACE_PHASES='prove=PROVE..PROVE_DONE;synthesis=SYNTH..DONE':
 * eprintln!("{}_DONE", stage) writes "PROVE" then "_DONE\n", and PROVE, at the end of a write,
 * began prove again where the whole line ends it (as one write does):
 *   SYNTH; "PROVE" + "\n"               prove        1,000,000
 *   "PROVE" + "_DONE\n" ends prove       synthesis    2,000,000
 *   DONE ends synthesis                  (none)       3,000,000
 * and a last "PROVE" without its line's end: it acts at the exit (it was lost).
 * "splitlog context", with
 * CUZKTRACE_PHASES='s=SYNTH_START..SYNTH_END;m=MARK..MARK;p=PROVE..PROVE_DONE': a line's text
 * before a marker an earlier write of it used up, or before one deferred at a write's end,
 * stays in the lines stored for the markers (since 0.2.60: " rows=5 MARK", " and SYNTH_END",
 * "PROVE x", "PROVE_DONE"):
 *   "job=7 SYNTH_START rows=5 " + "MARK\n"   s: "job=7 SYNTH_START rows=5 ",
 *                                             m: "job=7 SYNTH_START rows=5 MARK"
 *   "job=9 MA" + "RK and SYNTH_END\n"         m and s: "job=9 MARK and SYNTH_END"
 *   "job=8 PROVE" + " x\n"                    p: "job=8 PROVE x"
 *   "job=9 PRO" + "VE" + "_DONE\n"            p: "job=9 PROVE_DONE"
 * "splitlog quiet", with the same rules: a thread that never allocates writes "PROVE" and ends;
 * the marker acts at its exit (it was lost: such a thread had no exit hook):
 *   before, and glibc's TLS vector for that thread     (none)   2,000,304
 *   after the thread is joined                          prove    1,000,000 */
#include <pthread.h>
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

static void *other(void *a)
{
	say(2, "a whole line from another thread\n");
	return a;
}

static void *quiet(void *a)
{
	say(2, "PROVE");
	return a;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "prefix") == 0) {
		say(2, "SYNTH\n");
		say(2, "PROVE");
		say(2, "\n");
		keep[0] = malloc(1000000);
		say(2, "PROVE");
		say(2, "_DONE\n");
		keep[1] = malloc(2000000);
		say(2, "DONE\n");
		keep[2] = malloc(3000000);
		say(2, "PROVE"); /* the last write: the marker waits for the line's end, the exit */
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "context") == 0) {
		say(2, "job=7 SYNTH_START rows=5 ");
		say(2, "MARK\n");
		say(2, "job=9 MA");
		say(2, "RK and SYNTH_END\n");
		say(2, "job=8 PROVE"); /* deferred: PROVE_DONE may follow */
		say(2, " x\n");
		say(2, "job=9 PRO");
		say(2, "VE"); /* deferred, the line before it kept */
		say(2, "_DONE\n");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "quiet") == 0) {
		keep[0] = malloc(2000000);
		pthread_t t;
		if (pthread_create(&t, NULL, quiet, NULL) || pthread_join(t, NULL))
			return 2;
		keep[1] = malloc(1000000);
		return 0;
	}
	keep[0] = malloc(1000000);
	say(2, "synth");
	say(2, "esis start\n");
	keep[1] = malloc(2000000);
	say(2, "synthesis d");
	pthread_t t;
	if (pthread_create(&t, NULL, other, NULL) || pthread_join(t, NULL))
		return 2;
	say(2, "one\n");
	say(2, "gp");
	say(2, "u st");
	say(2, "art\n");
	keep[2] = malloc(4000000);
	static char pad[1500];
	memset(pad, '.', sizeof(pad));
	memcpy(pad + sizeof(pad) - 5, "gpu e", 5);
	struct iovec iov[2] = {{pad, sizeof(pad)}, {"nd\n", 3}};
	if (writev(2, iov, 2) != (ssize_t)sizeof(pad) + 3)
		return 3;
	say(2, "prove st");
	say(1, "x\n");
	say(2, "art\n");
	keep[3] = malloc(3000000);
	return 0;
}
