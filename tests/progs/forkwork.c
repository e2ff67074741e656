/* forkwork.c: forks children that do not exec. "big": three children, one after the other,
 * each allocate 20 MiB (in blocks of 1 MiB, touched) and _exit(0); "small": the same with 100
 * KiB; "pool": with 6 MiB (18 MiB in all, each under 16 MiB); "vfork": as big, each child
 * first starting a vfork child whose exec fails and that ends with _exit(127) (a command not
 * found); "orphan": as pool, the three children ending only once the parent has (the parent
 * does not wait for them: workers that outlive the program); "orphanbig": as big, the three
 * children allocating only once the parent has ended; "remap": as big, each child mapping 1 MiB
 * and growing it to 20 MiB with mremap; "reserve": as big, each child reserving 20 MiB
 * (PROT_NONE) and opening it with mprotect; "jit": each child mapping 1 MiB read-write and
 * switching it to read-execute and back 20 times (40 MiB of mprotect calls that allocate
 * nothing: 3 MiB in all); then, in every mode, a child that allocates a 2 MiB block (as a shell builds a long
 * argument vector) and execs /bin/true. The parent waits for each and prints "forkwork: <mode>
 * done". Usage: forkwork big|small|pool|vfork|orphan|orphanbig|remap|reserve|jit */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile sink[20];

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "big") && strcmp(argv[1], "small") && strcmp(argv[1], "pool") &&
			 strcmp(argv[1], "vfork") && strcmp(argv[1], "orphan") && strcmp(argv[1], "orphanbig") &&
			 strcmp(argv[1], "remap") && strcmp(argv[1], "reserve") && strcmp(argv[1], "jit")))
		return 2;
	int remap = !strcmp(argv[1], "remap"), reserve = !strcmp(argv[1], "reserve"), jit = !strcmp(argv[1], "jit");
	int vf = !strcmp(argv[1], "vfork"), late = !strcmp(argv[1], "orphanbig");
	int orphan = late || !strcmp(argv[1], "orphan");
	size_t n = !strcmp(argv[1], "big") || vf || late ? 20 << 20 : orphan || !strcmp(argv[1], "pool") ? 6 << 20 : 100 << 10;
	pid_t me = getpid();
	for (int i = 0; i < 4; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 3;
		if (pid == 0) {
			if (i == 3) {
				sink[0] = malloc(2 << 20);
				memset(sink[0], 1, 2 << 20);
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			if (vf) {
				pid_t v = vfork();
				if (v == 0) {
					execl("/nonexistent/command", "command", (char *)NULL);
					_exit(127);
				}
				int vs;
				if (v < 0 || waitpid(v, &vs, 0) != v || !WIFEXITED(vs) || WEXITSTATUS(vs) != 127)
					_exit(5);
			}
			for (int w = 0; late && getppid() == me && w < 10000; w++)
				usleep(1000);
			if (remap || reserve) {
				size_t big = 20 << 20;
				char *m = mmap(NULL, remap ? 1 << 20 : big, remap ? PROT_READ | PROT_WRITE : PROT_NONE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (m == MAP_FAILED)
					_exit(6);
				if (remap)
					m = mremap(m, 1 << 20, big, MREMAP_MAYMOVE);
				else if (mprotect(m, big, PROT_READ | PROT_WRITE))
					m = MAP_FAILED;
				if (m == MAP_FAILED)
					_exit(7);
				memset(m, 1, big);
				_exit(0);
			}
			if (jit) {
				char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (m == MAP_FAILED)
					_exit(6);
				for (int k = 0; k < 20; k++)
					if (mprotect(m, 1 << 20, PROT_READ | PROT_EXEC) || mprotect(m, 1 << 20, PROT_READ | PROT_WRITE))
						_exit(7);
				_exit(0);
			}
			for (size_t k = 0; k < 20 && k << 20 < n; k++) {
				size_t b = n < 1 << 20 ? n : 1 << 20;
				sink[k] = malloc(b);
				memset(sink[k], 1, b);
			}
			for (int w = 0; orphan && getppid() == me && w < 10000; w++)
				usleep(1000);
			_exit(0);
		}
		if (orphan && i < 3)
			continue;
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 4;
	}
	printf("forkwork: %s done\n", argv[1]);
	return 0;
}
