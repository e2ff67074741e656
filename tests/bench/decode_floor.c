/* decode_floor.c: how fast the reader could possibly go on one core, for `make bench`.
 * Usage: decode_floor TRACE
 * Prints two lines, each the best of 3 passes over the whole file:
 *   zstd  <seconds> <bytes>    decompressing every frame and discarding the output
 *   decode <seconds> <events>  the reader's decoder (reader/decode.c) producing every record,
 *                              with no replay, merge or report; events as the report counts them
 * The report's own time minus the decode time is what ordering the threads, the live-block
 * table and the per-site and per-phase counters cost. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zstd.h>

#include "decode.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int zstd_pass(const char *path, unsigned long long *bytes)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t in_cap = ZSTD_DStreamInSize(), out_cap = ZSTD_DStreamOutSize();
	void *in = malloc(in_cap), *out = malloc(out_cap);
	ZSTD_DCtx *z = ZSTD_createDCtx();
	int rc = in && out && z ? 0 : -1;
	size_t n;
	*bytes = 0;
	while (rc == 0 && (n = fread(in, 1, in_cap, f)) > 0) {
		ZSTD_inBuffer ib = { in, n, 0 };
		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, out_cap, 0 };
			if (ZSTD_isError(ZSTD_decompressStream(z, &ob, &ib))) {
				rc = -1;
				break;
			}
			*bytes += ob.pos;
		}
	}
	ZSTD_freeDCtx(z);
	free(in);
	free(out);
	fclose(f);
	return rc;
}

static int decode_pass(const char *path, unsigned long long *events)
{
	struct ckt_decoder *d;
	struct ckt_error err;
	struct ckt_record rec;
	int rc;
	if (ckt_decode_open(path, &d, &err) < 0) {
		fprintf(stderr, "decode_floor: %s\n", err.msg);
		return -1;
	}
	*events = 0;
	while ((rc = ckt_decode_next(d, &rec, &err)) > 0)
		if (rec.tag >= CKT_TAG_ALLOC && rec.tag <= CKT_TAG_RSS_DETAIL)
			++*events;
	if (rc < 0)
		fprintf(stderr, "decode_floor: %s\n", err.msg);
	ckt_decode_close(d);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: decode_floor TRACE\n");
		return 2;
	}
	double best_z = 1e30, best_d = 1e30;
	unsigned long long bytes = 0, events = 0;
	for (int i = 0; i < 3; i++) {
		double t = now();
		if (zstd_pass(argv[1], &bytes) < 0) {
			fprintf(stderr, "decode_floor: cannot decompress %s\n", argv[1]);
			return 1;
		}
		if (now() - t < best_z)
			best_z = now() - t;
		t = now();
		if (decode_pass(argv[1], &events) < 0)
			return 1;
		if (now() - t < best_d)
			best_d = now() - t;
	}
	printf("zstd %.4f %llu\ndecode %.4f %llu\n", best_z, bytes, best_d, events);
	return 0;
}
