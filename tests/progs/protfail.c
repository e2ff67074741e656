/* protfail.c: mprotect calls that fail partway. The kernel changes one mapping after the other
 * from the start of the range and keeps what it changed when it stops at a hole (ENOMEM) or at
 * a mapping that cannot take the protection (EACCES); the tracer must record that part.
 *   1. 8 MiB read-write, a 1 MiB hole unmapped at +5 MiB, then PROT_NONE over all 8 MiB:
 *      ENOMEM, the first 5 MiB are reserved now, the last 2 MiB stay mapped.
 *   2. 8 MiB reserved (PROT_NONE), a hole at +2 MiB, then read-write over all 8: ENOMEM, the
 *      first 2 MiB are open (mapped), 5 MiB stay reserved.
 *   3. 3 MiB reserved, its last 1 MiB replaced by a read-only shared mapping of a file, then
 *      read-write over all 3: EACCES at the file, the first 2 MiB are open.
 *   4. 3 MiB reserved, a hole at +1 MiB, its last 1 MiB opened (one mprotect that works),
 *      then read-write over all 3: ENOMEM, the first 1 MiB is open. The last 1 MiB had the
 *      protection already and is past the hole: the failed call is recorded once, for 1 MiB.
 * At exit: anonymous mmap 8 MiB, file-backed 1 MiB, reserved 10 MiB; peak reserved 13 MiB
 * (with none of the failed calls recorded: 8, 1, 10 and 11 MiB); 5 mprotect records.
 * Prints "protfail: ok" when each call failed as the kernel should (else what happened). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB (1024ul * 1024ul)

static char *map(size_t len, int prot)
{
	char *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(3);
	return p;
}

static int expect_fail(const char *what, int rc, int err, int want)
{
	if (rc == -1 && err == want)
		return 0;
	printf("protfail: %s: rc %d errno %d, expected -1 errno %d\n", what, rc, err, want);
	return 1;
}

int main(void)
{
	int bad = 0;
	char *a = map(8 * MiB, PROT_READ | PROT_WRITE);
	memset(a, 1, 8 * MiB);
	munmap(a + 5 * MiB, MiB);
	int rc = mprotect(a, 8 * MiB, PROT_NONE);
	bad |= expect_fail("close over a hole", rc, errno, ENOMEM);

	char *r = map(8 * MiB, PROT_NONE);
	munmap(r + 2 * MiB, MiB);
	rc = mprotect(r, 8 * MiB, PROT_READ | PROT_WRITE);
	bad |= expect_fail("open over a hole", rc, errno, ENOMEM);
	memset(r, 2, 2 * MiB);

	/* a 1 MiB file, opened read-only and mapped shared at the end of a 3 MiB reservation:
	 * the kernel cannot give that mapping write access */
	char path[] = "/tmp/protfail.XXXXXX";
	int wfd = mkstemp(path);
	if (wfd < 0 || ftruncate(wfd, MiB) != 0)
		_exit(4);
	int fd = open(path, O_RDONLY);
	unlink(path);
	close(wfd);
	if (fd < 0)
		_exit(4);
	char *q = map(3 * MiB, PROT_NONE);
	if (mmap(q + 2 * MiB, MiB, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
		_exit(5);
	close(fd);
	rc = mprotect(q, 3 * MiB, PROT_READ | PROT_WRITE);
	bad |= expect_fail("open up to a read-only file", rc, errno, EACCES);
	memset(q, 3, 2 * MiB);

	char *c = map(3 * MiB, PROT_NONE);
	munmap(c + MiB, MiB);
	if (mprotect(c + 2 * MiB, MiB, PROT_READ | PROT_WRITE) != 0)
		_exit(6);
	rc = mprotect(c, 3 * MiB, PROT_READ | PROT_WRITE);
	bad |= expect_fail("open over a hole before an open part", rc, errno, ENOMEM);
	memset(c, 4, MiB);
	memset(c + 2 * MiB, 4, MiB);

	usleep(30000); /* RSS samples */
	if (!bad)
		printf("protfail: ok\n");
	return 0;
}
