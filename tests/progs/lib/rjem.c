/* rjem.c: a test double of jemalloc as Rust's tikv-jemallocator links it: nothing named
 * malloc, only prefixed entry points (_rjem_malloc, _rjem_free) and internal functions
 * (_rjem_je_*) that map memory through libc's mmap. Not jemalloc: a bump allocator over 4 MiB
 * chunks that _rjem_je_pages_map maps (noinline: its frame is on the mapping's stack), whose
 * free keeps the memory, as jemalloc keeps its freed pages mapped; _rjem_je_pages_unmap gives
 * back every chunk. Blocks are 16-byte aligned; one thread at a time (a spin lock). Built into
 * librjem.a for tests/progs/ownjem.c and a Rust program's #[global_allocator]
 * (tests/integration/t_allocators.sh). */
#include <stddef.h>
#include <sys/mman.h>

#define RJEM_CHUNK ((size_t)4 << 20)
#define RJEM_MAX_CHUNKS 64

static char *chunks[RJEM_MAX_CHUNKS];
static size_t nchunks, used = RJEM_CHUNK;
static int lock;

void *_rjem_je_pages_map(size_t size);
void _rjem_je_pages_unmap(void);
void *_rjem_malloc(size_t n);
void _rjem_free(void *p);

__attribute__((noinline)) void *_rjem_je_pages_map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__asm__ volatile("" ::: "memory"); /* keeps the call out of the tail position */
	return p == MAP_FAILED ? NULL : p;
}

__attribute__((noinline)) void _rjem_je_pages_unmap(void)
{
	for (size_t i = 0; i < nchunks; i++)
		munmap(chunks[i], RJEM_CHUNK);
	nchunks = 0;
	used = RJEM_CHUNK;
}

__attribute__((noinline)) void *_rjem_malloc(size_t n)
{
	void *p = NULL;
	n = (n + 15) & ~(size_t)15;
	if (n > RJEM_CHUNK)
		return NULL;
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
	if (used + n > RJEM_CHUNK) {
		char *c = nchunks < RJEM_MAX_CHUNKS ? _rjem_je_pages_map(RJEM_CHUNK) : NULL;
		if (!c)
			goto out;
		chunks[nchunks++] = c;
		used = 0;
	}
	p = chunks[nchunks - 1] + used;
	used += n;
out:
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	return p;
}

__attribute__((noinline)) void _rjem_free(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}
