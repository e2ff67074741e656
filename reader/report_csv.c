/* report_csv.c: the timeline CSV, one row per RSS sample in replay (time) order. Columns come
 * from one table so later ones (per-phase, CUDA...) are appended in one place; rows are
 * written as samples arrive, never stored.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct ckt_report_csv {
	struct ckt_util_out out;
	FILE *f; /* out.f */
	int err; /* first errno seen while writing; 0 while all is well */
};

struct ckt_report_csv_column {
	const char *name;
	/* writes the cell for s into buf */
	void (*cell)(char *buf, size_t n, const struct ckt_sample *s);
};

static void ckt_report_csv_t_s(char *buf, size_t n, const struct ckt_sample *s)
{
	ckt_util_fmt_secs(buf, n, s->ts, 6);
}

static void ckt_report_csv_rss(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->rss);
}

static void ckt_report_csv_heap(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->heap);
}

static void ckt_report_csv_mmap(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->anon_mmap + s->file_mmap);
}

static void ckt_report_csv_gpu(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->gpu);
}

static void ckt_report_csv_pinned(char *buf, size_t n, const struct ckt_sample *s)
{
	snprintf(buf, n, "%" PRIu64, s->pinned);
}

/* Phase names joined by '+', quoted per RFC 4180 when a name holds a comma or quote; control
 * bytes (line breaks too) and invalid UTF-8 shown as '?' (ckt_util_clean_len); cut (ending in
 * "...") when longer than the cell. */
static void ckt_report_csv_phases(char *buf, size_t n, const struct ckt_sample *s)
{
	const char *p = s->active_phases ? s->active_phases : "";
	size_t k = 0, left = strlen(p);
	int quote = strpbrk(p, ",\"") != NULL;

	/* a cell cut ends after the last whole name that fits, as "+...", so that the list still
	 * splits at the '+' outside a name's quotes (since 0.2.51; cut inside a quoted name, it
	 * left that quote open). in_name: inside a name's own quotes; cut: the cell up to the
	 * last '+' outside them (0: none yet, the first name cut where it stops) */
	bool in_name = false;
	size_t cut = 0;
	if (quote)
		buf[k++] = '"';
	/* room kept: a character (4 bytes) and its quote's double, then a name's closing quote
	 * doubled, "...", the cell's closing quote and the NUL */
	while (*p && k + 13 < n) {
		if (*p == '"')
			in_name = !in_name;
		else if (*p == '+' && !in_name)
			cut = k + 1;
		size_t len = ckt_util_clean_len((const unsigned char *)p, left);
		if (len == 0) {
			buf[k++] = '?';
			len = ckt_util_unclean_len((const unsigned char *)p, left);
		} else {
			if (*p == '"')
				buf[k++] = '"';
			memcpy(buf + k, p, len);
			k += len;
		}
		p += len;
		left -= len;
	}
	if (*p) {
		if (cut)
			k = cut;
		else if (in_name) /* the first name alone is longer: its quote closed */
			k += (memcpy(buf + k, "\"\"", 2), 2);
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	if (quote)
		buf[k++] = '"';
	buf[k] = '\0';
}

/* The header line `t_s,rss_bytes,heap_bytes,mmap_bytes` is a published interface: append
 * new columns at the end, never reorder. */
static const struct ckt_report_csv_column ckt_report_csv_columns[] = {
	{ "t_s", ckt_report_csv_t_s },
	{ "rss_bytes", ckt_report_csv_rss },
	{ "heap_bytes", ckt_report_csv_heap },
	{ "mmap_bytes", ckt_report_csv_mmap },
	{ "gpu_bytes", ckt_report_csv_gpu },       /* CUDA device + pool + VMM, all devices */
	{ "pinned_bytes", ckt_report_csv_pinned }, /* CUDA pinned host RAM */
	{ "active_phases", ckt_report_csv_phases }, /* names joined by '+' (phases.c fills them) */
};
#define CKT_REPORT_CSV_NCOLS (sizeof(ckt_report_csv_columns) / sizeof(ckt_report_csv_columns[0]))

static void ckt_report_csv_check(struct ckt_report_csv *c, int rc)
{
	if (rc < 0 && !c->err)
		c->err = errno ? errno : EIO;
}

int ckt_report_csv_open(const char *path, struct ckt_report_csv **out)
{
	struct ckt_report_csv *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	int e = ckt_util_out_open(&c->out, path);
	if (e < 0) {
		free(c);
		return e;
	}
	c->f = c->out.f;
	for (size_t i = 0; i < CKT_REPORT_CSV_NCOLS; i++) {
		ckt_report_csv_check(c, fputs(ckt_report_csv_columns[i].name, c->f) == EOF ? -1 : 0);
		ckt_report_csv_check(c, fputc(i + 1 < CKT_REPORT_CSV_NCOLS ? ',' : '\n', c->f) == EOF ? -1 : 0);
	}
	*out = c;
	return 0;
}

void ckt_report_csv_sample(void *ctx, const struct ckt_sample *s)
{
	struct ckt_report_csv *c = ctx;
	char cell[4096]; /* active_phases can be long */

	if (c->err)
		return;
	for (size_t i = 0; i < CKT_REPORT_CSV_NCOLS; i++) {
		ckt_report_csv_columns[i].cell(cell, sizeof(cell), s);
		ckt_report_csv_check(c, fputs(cell, c->f) == EOF ? -1 : 0);
		ckt_report_csv_check(c, fputc(i + 1 < CKT_REPORT_CSV_NCOLS ? ',' : '\n', c->f) == EOF ? -1 : 0);
	}
}

int ckt_report_csv_close(struct ckt_report_csv *c, bool ok)
{
	if (!c)
		return 0;
	int e = c->err, rc = ckt_util_out_close(&c->out, ok && !e);
	free(c);
	return e ? -e : rc;
}
