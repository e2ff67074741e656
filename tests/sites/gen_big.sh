#!/bin/bash
# gen_big.sh N: a C program whose main calls N functions, each keeping a block of 1000 + i
# bytes (f<i>), one call a line marked CALL:<i>: main has N call-site entries in its debug
# information, past which the symbolizer indexes a function (512) instead of walking it for
# each of its N return addresses (tests/integration/t_sites.sh checks every frame's line).
n=${1:-1000}
echo '#include <stdlib.h>'
echo "void *volatile keep[$n];"
for ((i = 0; i < n; i++)); do
	echo "__attribute__((noinline)) void f$i(void) { keep[$i] = malloc($((1000 + i))); }"
done
echo 'int main(void)'
echo '{'
for ((i = 0; i < n; i++)); do
	echo "	f$i(); /* CALL:$i */"
done
echo '	return 0;'
echo '}'
