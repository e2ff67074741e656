// sites_names.cc: functions whose debug info holds only their last name (no linkage name):
// two methods named fill in an anonymous namespace, and a static function. The report names
// them as the symbol table does, so they stay apart in --diff and --phase-rule patterns.
// Live at the peak: Witness::fill 1,000,000 bytes, Proof::fill 2,000,000 and scratch 3,000;
// built with -DV2, Witness::fill 2,000,000 and Proof::fill 1,000,000 (scratch the same).
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#ifdef V2
enum { W = 2000000, P = 1000000 };
#else
enum { W = 1000000, P = 2000000 };
#endif

void *volatile keep[3];

namespace {
struct Witness {
	__attribute__((noinline)) void *fill(std::size_t n)
	{
		void *p = std::malloc(n); // SITE:names_witness
		std::memset(p, 1, n);
		return p;
	}
};
struct Proof {
	__attribute__((noinline)) void *fill(std::size_t n)
	{
		void *p = std::malloc(n); // SITE:names_proof
		std::memset(p, 2, n);
		return p;
	}
};
} // namespace

static __attribute__((noinline)) void *scratch(std::size_t n)
{
	void *p = std::malloc(n); // SITE:names_static
	std::memset(p, 3, n);
	return p;
}

int main()
{
	Witness w;
	Proof p;
	keep[0] = w.fill(W);
	keep[1] = p.fill(P);
	keep[2] = scratch(3000);
	usleep(20 * 1000);
	for (void *k : keep)
		std::free(k);
	return 0;
}
