/* phdrcb.c: allocates 20,000 times per module inside a dl_iterate_phdr callback, i.e. while
 * glibc holds the loader's lock (Rust's backtrace code does this). In exact mode the rings fill
 * and the thread waits for the writer: the writer must never need that lock. Prints "done". */
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile sink;

static int cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		char *s = strdup(info->dlpi_name[0] ? info->dlpi_name : "exe");
		sink = s;
		free(s);
	}
	return 0;
}

int main(void)
{
	dl_iterate_phdr(cb, NULL);
	return write(1, "done\n", 5) == 5 ? 0 : 1;
}
