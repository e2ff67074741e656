/* report_text.c: the default human-readable report: what ran, for how long, and the peaks of
 * heap, mmap and RSS with the moment each was reached. Numbers come from replay; header text
 * from decode. Control characters from the trace are neutralised so a report stays readable.
 */
#include "report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define CKT_REPORT_TEXT_COL "%-22s"

/* argv as a shell-like line: arguments joined by spaces, quoted when they hold a space or
 * a quote, so the line can be read back unambiguously. */
static void ckt_report_text_argv(FILE *out, const struct ckt_header_kv *kv, char sep)
{
	for (size_t start = 0, i = 0;; i++) {
		if (i != kv->value_len && kv->value[i] != sep)
			continue;
		const char *a = kv->value + start;
		size_t n = i - start;
		int quote = n == 0 || memchr(a, ' ', n) || memchr(a, '\'', n) || memchr(a, '"', n) ||
			    memchr(a, '\t', n) || memchr(a, '\n', n);
		if (start)
			fputc(' ', out);
		if (quote)
			fputc('\'', out);
		for (size_t k = 0; k < n;) { /* whole characters: valid UTF-8 stays as it is */
			const char *q = memchr(a + k, '\'', n - k);
			size_t m = q ? (size_t)(q - (a + k)) : n - k;
			ckt_util_put_clean(out, a + k, m);
			k += m;
			if (q) {
				fputs("'\\''", out);
				k++;
			}
		}
		if (quote)
			fputc('\'', out);
		start = i + 1;
		if (i == kv->value_len)
			break;
	}
}

static void ckt_report_text_bytes(FILE *out, uint64_t bytes)
{
	char h[32];
	fprintf(out, "%s (%" PRIu64 " bytes)", ckt_util_fmt_bytes(h, sizeof(h), bytes), bytes);
}

static void ckt_report_text_peak(FILE *out, const char *label, const struct ckt_peak *p)
{
	char t[32];
	fprintf(out, CKT_REPORT_TEXT_COL, label);
	ckt_report_text_bytes(out, p->bytes);
	if (p->bytes)
		fprintf(out, " at %s s", ckt_util_fmt_secs(t, sizeof(t), p->ts, 6));
	fputc('\n', out);
}

const char *ckt_report_end_text(uint64_t reason)
{
	static char sig[64];
	if (ckt_util_end_signal_name(reason, sig + 7, sizeof(sig) - 7)) {
		memcpy(sig, "signal ", 7);
		return sig;
	}
	switch (reason) {
	case CKT_END_EXIT: return "exit";
	case CKT_END_EXEC: return "exec";
	case CKT_END_ERROR: return "a write error in the tracer";
	case CKT_END_ABORT: return "abort (SIGABRT)";
	default: return "an unknown reason";
	}
}

/* The traces of the process's descendants and later images (kin.h), one a line: a wrapper's
 * trace says where the program it ran wrote its own. */
#define CKT_REPORT_TEXT_KIN 10
static void ckt_report_text_kin(FILE *out, const struct ckt_kin_list *kin)
{
	size_t shown = kin->n < CKT_REPORT_TEXT_KIN ? kin->n : CKT_REPORT_TEXT_KIN;
	for (size_t i = 0; i < shown; i++) {
		const struct ckt_kin *k = &kin->v[i];
		fprintf(out, CKT_REPORT_TEXT_COL, k->rel == CKT_KIN_CHILD  ? "child trace"
						  : k->rel == CKT_KIN_EXEC ? "after exec"
									   : "descendant trace");
		ckt_util_put_clean(out, k->path, strlen(k->path));
		fputs(" (", out);
		ckt_util_put_clean(out, k->exe, strlen(k->exe));
		fprintf(out, ", pid %" PRIu64, k->pid);
		if (k->rel == CKT_KIN_DESCENDANT)
			fprintf(out, k->after_exec ? ", after an exec" : ", started by pid %" PRIu64, k->parent);
		/* how it ends, as its own report's first lines would say */
		const char *writing = k->being_written ? ": a process is still writing it" : "";
		if (k->state == CKT_KIN_CUT)
			fprintf(out, "; truncated: no end record%s", writing);
		else if (k->state == CKT_KIN_EMPTY && k->error) {
			fputs("; holds no event: ", out);
			ckt_util_put_clean(out, k->error, strlen(k->error));
		} else if (k->state == CKT_KIN_EMPTY)
			fprintf(out, "; holds no event%s", k->being_written ? writing : " (killed before its first flush)");
		else if (k->state == CKT_KIN_CORRUPT) {
			fputs("; unreadable: ", out);
			ckt_util_put_clean(out, k->error, strlen(k->error));
		}
		fputs(")\n", out);
	}
	size_t cut = 0;
	for (size_t i = shown; i < kin->n; i++)
		cut += kin->v[i].state != CKT_KIN_COMPLETE;
	char cuts[64] = "";
	if (cut)
		snprintf(cuts, sizeof(cuts), "; %zu of them truncated, empty or unreadable", cut);
	if (kin->n > shown)
		fprintf(out, CKT_REPORT_TEXT_COL "%zu more (JSON child_traces lists them all%s)\n", "", kin->n - shown,
			cuts);
	if (kin->unlooked)
		fprintf(out, CKT_REPORT_TEXT_COL "%zu more files named as its traces were not looked at\n", "",
			kin->unlooked);
	/* files named as its traces that are none the reader can read: maybe a descendant's */
	size_t bad_shown = kin->n_bad < CKT_REPORT_TEXT_KIN ? kin->n_bad : CKT_REPORT_TEXT_KIN;
	for (size_t i = 0; i < bad_shown; i++) {
		fprintf(out, CKT_REPORT_TEXT_COL, "unreadable trace");
		ckt_util_put_clean(out, kin->bad[i].path, strlen(kin->bad[i].path));
		fputs(" (", out);
		ckt_util_put_clean(out, kin->bad[i].error, strlen(kin->bad[i].error));
		fputs(")\n", out);
	}
	if (kin->n_bad > bad_shown)
		fprintf(out, CKT_REPORT_TEXT_COL "%zu more (JSON child_traces_unreadable lists them all)\n", "",
			kin->n_bad - bad_shown);
}

void ckt_report_put_program(FILE *out, const struct ckt_report *rep)
{
	const struct ckt_header_kv *exe = ckt_decode_header_kv(rep->dec, "exe");
	const struct ckt_header_kv *pid = ckt_decode_header_kv(rep->dec, "pid");
	if (exe)
		ckt_util_put_clean(out, exe->value, exe->value_len);
	else
		fputs("(unknown)", out);
	if (pid) {
		fputs(" (pid ", out);
		ckt_util_put_clean(out, pid->value, pid->value_len);
		fputc(')', out);
	}
}

static void ckt_report_text_program(FILE *out, const struct ckt_report *rep)
{
	const struct ckt_header_kv *host = ckt_decode_header_kv(rep->dec, "hostname");
	char sep;
	const struct ckt_header_kv *argv = ckt_decode_args(rep->dec, &sep);

	fputs("cuzktrace report for ", out);
	ckt_util_put_clean(out, rep->trace_path, strlen(rep->trace_path));
	fputs("\n\n", out);
	fprintf(out, CKT_REPORT_TEXT_COL, "program");
	ckt_report_put_program(out, rep);
	if (host) {
		fputs(" on ", out);
		ckt_util_put_clean(out, host->value, host->value_len);
	}
	fputc('\n', out);
	if (argv) {
		fprintf(out, CKT_REPORT_TEXT_COL, "command line");
		ckt_report_text_argv(out, argv, sep);
		uint64_t total = ckt_decode_args_total(rep->dec);
		if (total)
			fprintf(out, " ... [cut: the trace keeps the first %zu bytes of %" PRIu64 "]", argv->value_len,
				total);
		fputc('\n', out);
	}
}

/* GPU memory (device + pool + VMM, summed over devices, then each device), pinned host RAM,
 * managed memory: each peak with its moment. */
static void ckt_report_text_cuda(FILE *out, const struct ckt_replay_stats *st)
{
	char h[32];
	ckt_report_text_peak(out, "peak GPU memory", &st->peak_gpu);
	if (st->peak_gpu.bytes) {
		fprintf(out, CKT_REPORT_TEXT_COL "device %s", "  then",
			ckt_util_fmt_bytes(h, sizeof(h), st->peak_gpu_kind[CKT_CUDA_DEVICE]));
		fprintf(out, ", pool %s", ckt_util_fmt_bytes(h, sizeof(h), st->peak_gpu_kind[CKT_CUDA_POOL]));
		fprintf(out, ", VMM %s\n", ckt_util_fmt_bytes(h, sizeof(h), st->peak_gpu_kind[CKT_CUDA_VMM]));
		/* since 0.2.45: a prover whose pools keep what it frees (a release threshold at the
		 * maximum) saw nvidia-smi far above this peak, and only README said why */
		if (st->peak_gpu_kind[CKT_CUDA_POOL])
			fputs("  (pool memory counts from each allocation to its free; what a pool keeps reserved "
			      "after cuMemFreeAsync, up to its release threshold, is not counted: nvidia-smi and "
			      "cudaMemGetInfo count it)\n",
			      out);
	}
	for (size_t i = 0; i < st->n_cuda_devices; i++) {
		const struct ckt_cuda_device *d = &st->cuda_devices[i];
		char label[32];
		snprintf(label, sizeof(label), "  device %u", d->ordinal);
		fprintf(out, CKT_REPORT_TEXT_COL "peak %s", label, ckt_util_fmt_bytes(h, sizeof(h), d->peak.bytes));
		if (d->uuid[0] || d->name[0]) {
			fputs(" (", out);
			ckt_util_put_clean(out, d->name, strlen(d->name));
			if (d->uuid[0] && d->name[0])
				fputs(", ", out);
			ckt_util_put_clean(out, d->uuid, strlen(d->uuid));
			fputc(')', out);
		}
		fputc('\n', out);
	}
	/* since 0.2.45: the devices' lines did not add up, and nothing said why */
	if (st->peak_nodev.bytes)
		fprintf(out, CKT_REPORT_TEXT_COL "peak %s (the driver did not say on which device)\n",
			"  no device known", ckt_util_fmt_bytes(h, sizeof(h), st->peak_nodev.bytes));
	ckt_report_text_peak(out, "peak CUDA pinned host", &st->peak_pinned);
	ckt_report_text_peak(out, "peak CUDA managed", &st->peak_managed);
	if (st->peak_registered.bytes)
		ckt_report_text_peak(out, "peak CUDA registered", &st->peak_registered);
	fputc('\n', out);
}

/* after a remainder below 0 (since 0.2.45: only README said why; since 0.2.46 it names pages
 * given back with madvise too, which stay mapped and allocated) */
#define CKT_REPORT_TEXT_UNTOUCHED "; below 0: memory allocated but never touched, or given back with madvise, is not resident"

int ckt_report_text_print(FILE *out, const struct ckt_report *rep)
{
	const struct ckt_replay_stats *st = rep->st;
	char t[32], h[32];

	ckt_report_text_program(out, rep);
	if (rep->kin)
		ckt_report_text_kin(out, rep->kin);
	fprintf(out, CKT_REPORT_TEXT_COL "%s s", "duration", ckt_util_fmt_secs(t, sizeof(t), st->duration_ns, 3));
	if (st->ended)
		fprintf(out, ", ended by %s\n", ckt_report_end_text(st->end_reason));
	else
		fputs(" (truncated: no end record)\n", out);
	/* the parts add up to the total (CUDA and the default mode's running totals are apart) */
	fprintf(out, CKT_REPORT_TEXT_COL "%" PRIu64 " (alloc %" PRIu64 ", free %" PRIu64 ", realloc %" PRIu64
		", mmap %" PRIu64 ", munmap %" PRIu64 ", mremap %" PRIu64, "events", st->events,
		st->counts[CKT_KIND_ALLOC], st->counts[CKT_KIND_FREE], st->counts[CKT_KIND_REALLOC],
		st->counts[CKT_KIND_MMAP], st->counts[CKT_KIND_MUNMAP], st->counts[CKT_KIND_MREMAP]);
	if (st->counts[CKT_KIND_MPROTECT])
		fprintf(out, ", mprotect %" PRIu64, st->counts[CKT_KIND_MPROTECT]);
	fprintf(out, ", rss samples %" PRIu64 " and %" PRIu64 " of their detail)\n", st->counts[CKT_KIND_RSS],
		st->counts[CKT_KIND_RSS_DETAIL]);
	/* CUDA's records are not in `events` (JSON's either): their own line, when there are any */
	uint64_t cuda_events = st->counts[CKT_KIND_CUDA_ALLOC] + st->counts[CKT_KIND_CUDA_FREE] +
			       st->counts[CKT_KIND_CUDA_MAP] + st->counts[CKT_KIND_CUDA_UNMAP];
	if (cuda_events)
		fprintf(out, CKT_REPORT_TEXT_COL "%" PRIu64 " (alloc %" PRIu64 ", free %" PRIu64 ", map %" PRIu64
			", unmap %" PRIu64 ")\n", "CUDA events", cuda_events, st->counts[CKT_KIND_CUDA_ALLOC],
			st->counts[CKT_KIND_CUDA_FREE], st->counts[CKT_KIND_CUDA_MAP], st->counts[CKT_KIND_CUDA_UNMAP]);
	if (st->sample_r) {
		char r[32], b[32];
		fprintf(out, CKT_REPORT_TEXT_COL "default: heap blocks under %s counted in running totals "
			"at their usable size (exact to within %s: %" PRIu64 " thread%s with totals at once), %" PRIu64 " sampled for "
			"sites, phases and thread groups, which are estimates (about +-sqrt(%s x bytes))\n",
			"mode", ckt_util_fmt_bytes(r, sizeof(r), st->sample_r),
			ckt_util_fmt_bytes(b, sizeof(b), st->agg_threads_at_once * (uint64_t)CKT_AGG_STEP),
			st->agg_threads_at_once, st->agg_threads_at_once == 1 ? "" : "s",
			st->sampled_allocs, r);
	} else {
		fprintf(out, CKT_REPORT_TEXT_COL "exact: every allocation recorded\n", "mode");
	}
	if (st->lost)
		fprintf(out, CKT_REPORT_TEXT_COL "%" PRIu64 " (totals are inexact)\n", "lost events", st->lost);
	if (st->inconsistencies)
		fprintf(out, CKT_REPORT_TEXT_COL "%" PRIu64 " (allocations of an address still live)\n",
			"inconsistencies", st->inconsistencies);
	if (st->waits)
		fprintf(out, CKT_REPORT_TEXT_COL "%s s in %" PRIu64 " wait%s: the program's threads waited "
			"for room in the tracer's buffers (its writer fell behind them), so their timing and "
			"overlap differ from an untraced run\n", "tracer wait",
			ckt_util_fmt_secs_nz(t, sizeof(t), st->wait_ns), st->waits, st->waits == 1 ? "" : "s");
	for (unsigned k = 1, said = 0; k <= CKT_LIMIT_KINDS; k++)
		if (st->limit_at[k])
			fprintf(out, CKT_REPORT_TEXT_COL "its %s at %s s: %s\n", said++ ? "" : "tracer limits",
				ckt_report_limits[k].what, ckt_util_fmt_secs(t, sizeof(t), st->limit_at[k] - 1, 3),
				ckt_report_limits[k].lacks);
	struct ckt_sites_untraced u;
	for (size_t i = 0; rep->sites && ckt_sites_untraced(rep->sites, i, &u); i++) {
		bool rss = st->peak_rss.seen && u.bytes_at_peak_rss;
		uint64_t bytes = rss ? u.bytes_at_peak_rss : u.bytes_at_peak_mmap;
		/* the function and the module come from the trace and the module's file: cleaned,
		 * as every name the report shows */
		fprintf(out, CKT_REPORT_TEXT_COL "%s (", i ? "" : "untraced allocator", u.name);
		if (u.function)
			ckt_util_put_clean(out, u.function, strlen(u.function));
		if (u.function && u.module)
			fputs(" in ", out);
		if (u.module)
			ckt_util_put_clean(out, u.module, strlen(u.module));
		fprintf(out, "): the program allocates through it, and its blocks are not traced; its mappings "
			"hold %s (%" PRIu64 " bytes) at the peak %s\n",
			ckt_util_fmt_bytes(h, sizeof(h), bytes), bytes, rss ? "RSS" : "mmap");
	}
	fputc('\n', out);

	ckt_report_text_peak(out, "peak heap", &st->peak_heap);
	if (st->peak_heap_at_rss)
		fprintf(out, CKT_REPORT_TEXT_COL "the peak RSS sample's: running totals that threads sent "
			"later were live then, more heap than at any moment the replay saw\n", "  moment");
	ckt_report_text_peak(out, "peak mmap", &st->peak_mmap);
	if (st->peak_mmap.bytes) {
		fprintf(out, CKT_REPORT_TEXT_COL, "  then anonymous");
		ckt_report_text_bytes(out, st->peak_mmap_anon_bytes);
		fprintf(out, ", file-backed %s\n",
			ckt_util_fmt_bytes(h, sizeof(h), st->peak_mmap_file_bytes));
	}
	ckt_report_text_peak(out, "peak anonymous mmap", &st->peak_anon);
	ckt_report_text_peak(out, "peak file-backed mmap", &st->peak_file);
	if (st->peak_reserved.bytes) {
		ckt_report_text_peak(out, "peak PROT_NONE mmap", &st->peak_reserved);
		fprintf(out, CKT_REPORT_TEXT_COL "reserved address space, not memory: in no mmap figure\n", "");
	}

	fprintf(out, CKT_REPORT_TEXT_COL, "peak RSS");
	if (!st->peak_rss.seen) {
		fputs("no RSS samples in the trace\n", out);
	} else {
		int64_t unexplained = ckt_replay_unexplained(st);
		int cuda = st->counts[CKT_KIND_CUDA_ALLOC] != 0;
		ckt_report_text_bytes(out, st->peak_rss.bytes);
		fprintf(out, " at %s s\n", ckt_util_fmt_secs(t, sizeof(t), st->peak_rss.ts, 6));
		fprintf(out, CKT_REPORT_TEXT_COL, "  heap then");
		ckt_report_text_bytes(out, st->peak_rss.heap_bytes);
		fprintf(out, "\n" CKT_REPORT_TEXT_COL, "  mmap then");
		ckt_report_text_bytes(out, st->peak_rss.anon_mmap_bytes + st->peak_rss.file_mmap_bytes);
		fprintf(out, ": anonymous %s", ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.anon_mmap_bytes));
		fprintf(out, ", file-backed %s\n", ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.file_mmap_bytes));
		if (cuda) {
			fprintf(out, CKT_REPORT_TEXT_COL, "  CUDA pinned then");
			ckt_report_text_bytes(out, st->peak_rss.pinned_bytes);
			fprintf(out, "; GPU memory then %s\n",
				ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.gpu_bytes));
		}
		fprintf(out, CKT_REPORT_TEXT_COL "%s (%" PRId64 " bytes) = RSS - heap - anonymous mmap%s%s\n",
			"  unexplained", ckt_util_fmt_sbytes(h, sizeof(h), unexplained), unexplained,
			cuda ? " - CUDA pinned" : "", unexplained < 0 ? CKT_REPORT_TEXT_UNTOUCHED : "");
		if (st->peak_rss.has_detail) {
			fprintf(out, CKT_REPORT_TEXT_COL "anonymous %s", "  RSS split",
				ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.anon));
			fprintf(out, ", file %s", ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.file));
			fprintf(out, ", shmem %s\n", ckt_util_fmt_bytes(h, sizeof(h), st->peak_rss.shmem));
			int64_t anon = ckt_replay_unexplained_anon(st);
			fprintf(out, CKT_REPORT_TEXT_COL "%s (%" PRId64 " bytes) = RSS anonymous + shmem - heap - "
				"anonymous mmap%s (file pages left out)%s\n",
				"  unexplained anon", ckt_util_fmt_sbytes(h, sizeof(h), anon), anon, cuda ? " - CUDA pinned" : "",
				anon < 0 ? CKT_REPORT_TEXT_UNTOUCHED : "");
		}
	}
	if (st->hwm_max) {
		fprintf(out, CKT_REPORT_TEXT_COL, "VmHWM");
		ckt_report_text_bytes(out, st->hwm_max);
		fputc('\n', out);
	}
	fputc('\n', out);
	if (st->counts[CKT_KIND_CUDA_ALLOC])
		ckt_report_text_cuda(out, st);

	fprintf(out, CKT_REPORT_TEXT_COL, st->ended ? "live at exit: heap" : "live at cut: heap");
	ckt_report_text_bytes(out, st->heap_bytes);
	fprintf(out, " in %" PRIu64 " block%s\n", st->heap_blocks, st->heap_blocks == 1 ? "" : "s");
	fprintf(out, CKT_REPORT_TEXT_COL, st->ended ? "live at exit: mmap" : "live at cut: mmap");
	ckt_report_text_bytes(out, st->anon_mmap_bytes + st->file_mmap_bytes);
	fprintf(out, ": anonymous %s", ckt_util_fmt_bytes(h, sizeof(h), st->anon_mmap_bytes));
	fprintf(out, ", file-backed %s", ckt_util_fmt_bytes(h, sizeof(h), st->file_mmap_bytes));
	if (st->reserved_bytes)
		fprintf(out, "; PROT_NONE %s not counted", ckt_util_fmt_bytes(h, sizeof(h), st->reserved_bytes));
	fputc('\n', out);
	if (st->counts[CKT_KIND_CUDA_ALLOC]) {
		fprintf(out, CKT_REPORT_TEXT_COL, st->ended ? "live at exit: CUDA" : "live at cut: CUDA");
		fprintf(out, "GPU %s", ckt_util_fmt_bytes(h, sizeof(h), st->gpu_bytes));
		fprintf(out, ", pinned %s", ckt_util_fmt_bytes(h, sizeof(h), st->pinned_bytes));
		fprintf(out, ", managed %s", ckt_util_fmt_bytes(h, sizeof(h), st->managed_bytes));
		/* a registration counts among the allocations: its bytes are named too */
		if (st->registered_bytes)
			fprintf(out, ", registered %s", ckt_util_fmt_bytes(h, sizeof(h), st->registered_bytes));
		fprintf(out, " in %" PRIu64 " allocation%s\n", st->cuda_blocks, st->cuda_blocks == 1 ? "" : "s");
	}
	if (rep->phases) {
		int rc = ckt_phases_print_text(out, rep->phases, st, rep->by_thread);
		if (rc < 0)
			return rc;
	}
	if (rep->sites) {
		fputc('\n', out);
		ckt_sites_print_text(out, rep->sites, st->limit_at[CKT_LIMIT_MODULES] != 0);
	}

	if (fflush(out) != 0 || ferror(out))
		return -(errno ? errno : EIO);
	return 0;
}
