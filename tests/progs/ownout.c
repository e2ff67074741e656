/* ownout MODE FILE: a program whose own output file has the trace's name (CUZKTRACE_OUT=FILE),
 * as a compressor writing out.zst or a tool writing run.log may. It writes 64 chunks of 4 KiB
 * of a known pattern into FILE, allocating 1 MB between chunks, 5 ms apart (several of the
 * writer's flushes at CUZKTRACE_FLUSH_MS=20), then reads FILE back and says whether its bytes
 * are the ones it wrote: "output intact" or "output damaged at byte N".
 *   hold    opens FILE (O_WRONLY | O_TRUNC, as cp and dd do) and keeps it open to the end
 *           (the read back is through a descriptor of its own)
 *   append  opens FILE with O_APPEND (a log) and keeps it open to the end: what was there
 *           stays before its bytes
 *   close   opens, writes every chunk and closes at once, then allocates on for 300 ms
 * Status 0 when the output is intact, 1 when damaged, 2 on an error of its own. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { CHUNK = 4096, CHUNKS = 64 };

static void nap_ms(int ms)
{
	struct timespec ts = {0, ms * 1000000L};
	nanosleep(&ts, NULL);
}

static void churn(void)
{
	for (int i = 0; i < 100; i++) {
		char *volatile p = malloc(10000);
		p[0] = 1;
		free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	const char *mode = argv[1], *path = argv[2];
	int append = !strcmp(mode, "append"), closing = !strcmp(mode, "close");
	struct stat st;
	off_t base = append && stat(path, &st) == 0 ? st.st_size : 0; /* where our bytes begin */
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	static char chunk[CHUNK];
	for (int c = 0; c < CHUNKS; c++) {
		for (int i = 0; i < CHUNK; i++)
			chunk[i] = (char)('a' + (c * 7 + i) % 26);
		if (write(fd, chunk, CHUNK) != CHUNK) {
			perror("write");
			return 2;
		}
		if (!closing) {
			churn();
			nap_ms(5);
		}
	}
	if (closing)
		close(fd); /* else held to the end, as a program's output often is */
	for (int i = 0; closing && i < 60; i++) {
		churn();
		nap_ms(5);
	}
	/* read back, as the program's user would */
	fd = open(path, O_RDONLY);
	if (fd < 0 || lseek(fd, base, SEEK_SET) != base) {
		perror(path);
		return 2;
	}
	for (int c = 0; c < CHUNKS; c++) {
		char got[CHUNK];
		if (read(fd, got, CHUNK) != CHUNK) {
			printf("output damaged: short at byte %ld\n", (long)(base + (off_t)c * CHUNK));
			return 1;
		}
		for (int i = 0; i < CHUNK; i++)
			if (got[i] != (char)('a' + (c * 7 + i) % 26)) {
				printf("output damaged at byte %ld\n", (long)(base + (off_t)c * CHUNK + i));
				return 1;
			}
	}
	char extra;
	if (read(fd, &extra, 1) != 0) {
		printf("output damaged: bytes after its end\n");
		return 1;
	}
	printf("output intact\n");
	return 0;
}
