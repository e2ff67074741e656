/* rawmap.c: memory the tracer cannot see: 192 MiB mapped with a raw mmap system call (as a
 * statically linked allocator would) and touched, held for 300 ms so RSS samples see it. The
 * reader must warn that most of the peak RSS is unexplained. `rawmap malloc` takes the same
 * memory from malloc instead: traced, so no warning. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

int main(int argc, char **argv)
{
	size_t n = 192u << 20;
	char *p;
	if (argc > 1 && !strcmp(argv[1], "malloc"))
		keep = p = malloc(n);
	else
		p = (char *)syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!p || p == MAP_FAILED)
		return 2;
	memset(p, 1, n);
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	return write(1, "rawmap: done\n", 13) == 13 ? 0 : 1;
}
