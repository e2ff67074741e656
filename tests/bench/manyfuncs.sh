#!/bin/sh
# manyfuncs.sh N DIR: writes DIR/manyfuncs_lib.c (N functions mf_0..mf_N-1 in one compile unit,
# each allocating a block it keeps) and DIR/manyfuncs.c (calls each once), for the reader's
# symbolization benchmark: an exact trace with N distinct call sites in one library, the shape
# of a big C++ or Rust codegen unit.
set -eu
n=$1 dir=$2
awk -v n="$n" 'BEGIN {
	print "#include <stdlib.h>"
	print "void mf_sink(void *p);"
	for (i = 0; i < n; i++)
		printf "__attribute__((noinline)) void *mf_%d(void) { void *p = malloc(%d); mf_sink(p); return p; }\n", i, 16 + i % 64
	print "typedef void *(*mf_fn)(void);"
	print "const mf_fn mf_table[] = {"
	for (i = 0; i < n; i++)
		printf "\tmf_%d,\n", i
	print "};"
	printf "const int mf_count = %d;\n", n
}' >"$dir/manyfuncs_lib.c"
cat >"$dir/manyfuncs.c" <<'CEOF'
typedef void *(*mf_fn)(void);
extern const mf_fn mf_table[];
extern const int mf_count;
void *volatile mf_last;
void mf_sink(void *p) { mf_last = p; }
int main(void)
{
	for (int i = 0; i < mf_count; i++)
		mf_table[i]();
	return 0;
}
CEOF
