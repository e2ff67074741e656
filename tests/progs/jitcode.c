/* jitcode: a heap block allocated from code generated at run time, as a JIT's is. A page
 * is mapped, a few instructions that call malloc(3 MiB) are written into it, and it is made
 * executable and called: the block's stack has a frame in no file the program mapped, which
 * no symbol names (the report shows it as a bare address and says what that is).
 * x86_64 only; elsewhere it prints "skip" and allocates nothing. Prints the address of the
 * generated code's return into it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

volatile void *keep;

int main(void)
{
#if defined(__x86_64__)
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	uint8_t *p = code;
	/* push rbp; mov rbp, rsp (a frame pointer chain through the generated frame) */
	*p++ = 0x55;
	*p++ = 0x48; *p++ = 0x89; *p++ = 0xe5;
	/* mov edi, 3 MiB */
	*p++ = 0xbf;
	uint32_t size = 3u << 20;
	memcpy(p, &size, 4); p += 4;
	/* movabs rax, malloc */
	*p++ = 0x48; *p++ = 0xb8;
	void *(*m)(size_t) = malloc;
	memcpy(p, &m, 8); p += 8;
	/* call rax */
	*p++ = 0xff; *p++ = 0xd0;
	uint8_t *ret = p;
	/* pop rbp; ret */
	*p++ = 0x5d;
	*p++ = 0xc3;
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	void *(*gen)(void) = (void *(*)(void))code;
	keep = gen();
	if (!keep)
		return 1;
	memset((void *)keep, 1, 3u << 20);
	printf("%p\n", (void *)ret);
	free((void *)keep);
	return 0;
#else
	puts("skip");
	return 0;
#endif
}
