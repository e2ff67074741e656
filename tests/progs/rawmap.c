/* rawmap.c: memory the tracer cannot see: 192 MiB mapped with a raw mmap system call (as a
 * statically linked allocator would) and touched, held for 300 ms so RSS samples see it. The
 * reader must warn that most of the peak RSS is unexplained. `rawmap malloc` takes the same
 * memory from malloc instead: traced, so no warning. `rawmap threads N` keeps the raw mapping
 * and then runs N threads one after another, each making one allocation: the tracer's buffers
 * of one thread serve the next, so they must not hide the untraced memory. `rawmap file PATH`
 * maps a 192 MiB file made at PATH (sparse) by a raw system call and reads every page, as the
 * loader maps a big library's code: file pages, which are not memory allocated out of sight.
 * `rawmap brk` takes the memory by moving the heap's end itself (sbrk), as an allocator of its
 * own may. */
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

static void *one(void *arg)
{
	free(keep = malloc(64));
	return arg;
}

int main(int argc, char **argv)
{
	size_t n = 192u << 20;
	char *p;
	if (argc > 1 && !strcmp(argv[1], "malloc"))
		keep = p = malloc(n);
	else if (argc > 1 && !strcmp(argv[1], "brk"))
		p = sbrk((intptr_t)n);
	else if (argc > 2 && !strcmp(argv[1], "file")) {
		int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)n) != 0)
			return 2;
		p = (char *)syscall(SYS_mmap, NULL, n, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (p == MAP_FAILED)
			return 2;
		unsigned sum = 0;
		for (size_t i = 0; i < n; i += 4096)
			sum += (unsigned char)p[i];
		struct timespec fts = {0, 300000000};
		nanosleep(&fts, NULL);
		unlink(argv[2]);
		return sum == 0 && write(1, "rawmap: done\n", 13) == 13 ? 0 : 1;
	} else
		p = (char *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!p || p == MAP_FAILED)
		return 2;
	memset(p, 1, n);
	if (argc > 2 && !strcmp(argv[1], "threads")) {
		free(keep = malloc(64)); /* the main thread records too */
		for (int k = atoi(argv[2]); k > 0; k--) {
			pthread_t t;
			if (pthread_create(&t, NULL, one, NULL) || pthread_join(t, NULL))
				return 3;
		}
	}
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	return write(1, "rawmap: done\n", 13) == 13 ? 0 : 1;
}
