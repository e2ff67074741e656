#!/bin/sh
# build_reader.sh: developer helper for the reader alone (the Makefile is the real build).
# Builds build-dev/cuzktrace-report and the reader unit tests with the project's warning flags;
# SAN=1 adds -fsanitize=address,undefined. Run from the repository root; RUN=1 runs the tests.
set -eu
OUT=${OUT:-build-dev}
CFLAGS="-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Iinclude -Ireader"
[ "${SAN:-0}" = 1 ] && CFLAGS="$CFLAGS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
[ "${WERROR:-1}" = 1 ] && CFLAGS="$CFLAGS -Werror"
mkdir -p "$OUT/obj"
objs=""
for src in reader/*.c; do
	o="$OUT/obj/$(basename "$src" .c).o"
	${CC:-gcc} $CFLAGS -c "$src" -o "$o"
	[ "$(basename "$src")" = main.c ] || objs="$objs $o"
done
${CC:-gcc} $CFLAGS -o "$OUT/cuzktrace-report" $objs "$OUT/obj/main.o" -lzstd -lm
for t in tests/unit/test_*.c; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .c)
	${CC:-gcc} $CFLAGS -Itests/unit -o "$OUT/$name" "$t" $objs -lcmocka -lzstd -lm
done
if [ "${RUN:-0}" = 1 ]; then
	for t in tests/unit/test_*.c; do
		[ -e "$t" ] || continue
		"$OUT/$(basename "$t" .c)"
	done
fi
