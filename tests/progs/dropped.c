/* dropped.c: the program changes what the trace's path means to it, then keeps allocating:
 * dropped setuid closes every descriptor above 2 after setgid/setuid(65534) (the trace can be
 * opened again only as root: the tracer must say why it cannot, not that the path no longer
 * names the trace); dropped setuidkeep keeps them (the trace is whole, and its path, in a
 * directory only root may search, is no "moved" file); dropped chroot DIR goes into DIR (the trace's path names nothing there:
 * no warning that the file was moved, the trace is whole). Both keep 100 blocks of 1,000
 * bytes before, 100 of 3,000 after and one of 1,000,000, and wait 200 ms for a flush. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[201];

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 100; i++)
		keep[i] = malloc(1000);
	usleep(150000);
	if (strncmp(argv[1], "setuid", 6) == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0) {
			perror("dropped: setuid");
			return 1;
		}
		if (strcmp(argv[1], "setuid") == 0)
			close_range(3, ~0U, 0);
	} else if (argc < 3 || chroot(argv[2]) != 0 || chdir("/") != 0) {
		perror("dropped: chroot");
		return 1;
	}
	for (int i = 100; i < 200; i++)
		keep[i] = malloc(3000);
	usleep(200000);
	keep[200] = malloc(1000000);
	return 0;
}
