#!/usr/bin/env bash
# demo.sh: run the mini prover under the tracer and print its report (`make demo`).
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
echo "(timeline written to build/demo.csv; try also: build/cuzktrace-report --json $out)"
