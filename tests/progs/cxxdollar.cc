// cxxdollar.cc: a C++ function with '$' in its name (GCC takes it in identifiers), which looks
// like a Rust legacy escape ("$u41$"): its name must stay as it is (tests/integration/t_sites.sh).
// Also ns::make_row, which returns a std::string of 200,000 characters (a block of 200,001
// bytes, kept): GCC tags its name with the ABI ("ns::make_row[abi:cxx11](unsigned long)"), which
// a --phase-rule for "ns::make_row" matches.
#include <cstdlib>
#include <string>

static void *volatile keep;
static volatile int calls;

namespace ns {
__attribute__((noinline)) void *get$u41$it(std::size_t n)
{
	void *p = std::malloc(n);
	calls = calls + 1; /* after the call: not a tail call, whose frame the stack would lack */
	return p;
}

__attribute__((noinline)) std::string make_row(std::size_t n)
{
	std::string s(n, 'r');
	calls = calls + 1;
	return s;
}
} // namespace ns

static std::string row;

int main()
{
	keep = ns::get$u41$it(123456);
	row = ns::make_row(200000);
	return 0;
}
