/* devzero.c: maps /dev/zero shared (8 MiB) and private (4 MiB), touches every page, and ends
 * with both mapped. The kernel makes both anonymous memory (a shared one is shared anonymous
 * memory, as MAP_SHARED | MAP_ANONYMOUS: its pages count in RssShmem), so the trace counts 12
 * MiB of anonymous mappings and no file-backed ones. "devzero validate" maps the shared one with
 * MAP_SHARED_VALIDATE (MAP_SHARED with its flags checked): shared too. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif

int main(int argc, char **argv)
{
	int shared = argc > 1 && !strcmp(argv[1], "validate") ? MAP_SHARED_VALIDATE : MAP_SHARED;
	int fd = open("/dev/zero", O_RDWR);
	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	char *s = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, shared, fd, 0);
	char *p = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (s == MAP_FAILED || p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);
	memset(s, 1, 8 << 20);
	memset(p, 2, 4 << 20);
	usleep(50000);
	printf("devzero: %d %d\n", s[12345], p[12345]);
	return 0;
}
