#!/usr/bin/env bash
# demo.sh: run the mini prover under the tracer and print its report, then run it with one
# more partition and compare the two (`make demo`).
set -eu
cd "$(dirname "$0")/.."
out=build/demo.zst
rm -f "$out"
echo "\$ CUZKTRACE_OUT=$out LD_PRELOAD=\$PWD/build/libcuzktrace.so build/examples/mini_prover 3"
CUZKTRACE_OUT=$out LD_PRELOAD=$PWD/build/libcuzktrace.so build/examples/mini_prover 3
echo
echo "\$ build/cuzktrace-report --csv build/demo.csv $out"
build/cuzktrace-report --csv build/demo.csv "$out"
echo
# did a change move the peak? the same program with 4 partitions, compared with the first run
out4=build/demo4.zst
rm -f "$out4"
echo "\$ CUZKTRACE_OUT=$out4 LD_PRELOAD=\$PWD/build/libcuzktrace.so build/examples/mini_prover 4"
CUZKTRACE_OUT=$out4 LD_PRELOAD=$PWD/build/libcuzktrace.so build/examples/mini_prover 4
echo
echo "\$ build/cuzktrace-report --diff $out $out4"
build/cuzktrace-report --diff "$out" "$out4"
echo
echo "(timeline written to build/demo.csv; try also: build/cuzktrace-report --json $out)"
