/* filemap.c: maps the file argv[1] (argv[2] MiB, made so by ftruncate) read-only, reads every
 * page of it, keeps 1 MiB of heap, and stays 100 ms for RSS samples: its pages are resident
 * file pages, which the report's unexplained RSS counts and its anonymous remainder does not. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	size_t len = (size_t)atol(argv[2]) << 20;
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		perror(argv[1]);
		return 1;
	}
	const volatile char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	unsigned sum = 0;
	for (size_t i = 0; i < len; i += 4096)
		sum += (unsigned char)m[i];
	char *keep = malloc(1 << 20);
	memset(keep, 1, 1 << 20);
	struct timespec ts = { 0, 100000000L };
	nanosleep(&ts, NULL);
	printf("filemap: %zu MiB read, sum %u\n", len >> 20, sum + (unsigned char)keep[7] - 1);
	return 0;
}
