// cxxouter.cc: the shape of PyTorch's libtorch_cpu for cxxlocal.c's "nested" mode: its
// constructor registers a block of 200,002 bytes in libcxxinner.so's registry (which holds its
// mutex across the call of operator new). cxx_outer_count tells how many entries it holds.
#include <cstddef>

void cxx_reg(std::size_t size);
std::size_t cxx_count();

static struct init {
	init() { cxx_reg(200002); }
} init_;

extern "C" std::size_t cxx_outer_count()
{
	return cxx_count();
}
