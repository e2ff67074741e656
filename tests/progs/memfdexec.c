/* memfdexec.c: copies the program argv[1] into a memfd named "b" and runs it by fexecve, as
 * a program that unpacks itself does: /proc/self/exe then reads "/memfd:b (deleted)". */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int in = open(argv[1], O_RDONLY), m = memfd_create("b", 0);
	char buf[65536];
	ssize_t n;
	if (in < 0 || m < 0)
		return 1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(m, buf, (size_t)n) != n)
			return 1;
	char *av[] = {"b", NULL};
	fexecve(m, av, environ);
	perror("fexecve");
	return 1;
}
