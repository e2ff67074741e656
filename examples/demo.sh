#!/usr/bin/env bash
# demo.sh: run the mini prover under the tracer and print its report, then run it with one
# more partition and compare the two (`make demo`).
set -eu
cd "$(dirname "$0")/.."
# the loader splits LD_PRELOAD at spaces and colons: the library cannot be named from here
case "$PWD" in *[[:space:]:]*)
	echo "demo.sh: '$PWD' holds a space or ':', which LD_PRELOAD cannot name a library under; clone into a path without them" >&2
	exit 2 ;;
esac
# traced OUT PARTITIONS: the mini prover under the tracer, the command shown first
traced() {
	rm -f "$1"
	echo "\$ CUZKTRACE_OUT=$1 LD_PRELOAD=\$PWD/build/libcuzktrace.so build/examples/mini_prover $2"
	CUZKTRACE_OUT=$1 LD_PRELOAD=$PWD/build/libcuzktrace.so build/examples/mini_prover "$2"
	echo
}
out=build/demo.zst
traced "$out" 3
echo "\$ build/cuzktrace-report --csv build/demo.csv $out"
build/cuzktrace-report --csv build/demo.csv "$out"
echo
# did a change move the peak? the same program with 4 partitions, compared with the first run
out4=build/demo4.zst
traced "$out4" 4
echo "\$ build/cuzktrace-report --diff $out $out4"
build/cuzktrace-report --diff "$out" "$out4"
echo
echo "(timeline written to build/demo.csv; try also: build/cuzktrace-report --json $out)"
