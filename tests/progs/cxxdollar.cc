// cxxdollar.cc: a C++ function with '$' in its name (GCC takes it in identifiers), which looks
// like a Rust legacy escape ("$u41$"): its name must stay as it is (tests/integration/t_sites.sh)
#include <cstdlib>

static void *volatile keep;
static volatile int calls;

namespace ns {
__attribute__((noinline)) void *get$u41$it(std::size_t n)
{
	void *p = std::malloc(n);
	calls = calls + 1; /* after the call: not a tail call, whose frame the stack would lack */
	return p;
}
} // namespace ns

int main()
{
	keep = ns::get$u41$it(123456);
	return 0;
}
