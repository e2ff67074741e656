/* kin.h: the traces a traced process's children and later images wrote beside its own.
 *
 * A wrapper (`timeout`, `sh -c`, `cargo run`) started under the tracer with a fixed
 * CUZKTRACE_OUT takes that name, and the program it starts, the one the user meant, writes
 * "<name>.<pid>.zst" next to it: a report of the wrapper's trace said nothing of where the
 * program's went. The reader looks for them in the trace's directory and names them.
 */
#ifndef CKT_KIN_H
#define CKT_KIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"

#define CKT_KIN_MAX_LOOKS 1024 /* trace headers opened at most per report */

enum ckt_kin_rel {
	CKT_KIN_CHILD, /* its header's ppid is this process: a child (its own later execs too) */
	CKT_KIN_EXEC,  /* the same process (header `process`), a later image after an exec */
};

struct ckt_kin {
	char *path;             /* as found: the trace's directory as given, then the file name */
	char *exe;              /* the header's exe, cleaned for a terminal */
	uint64_t pid;
	uint64_t start_wall_ns; /* the header's start_wall_ns */
	enum ckt_kin_rel rel;
};

struct ckt_kin_list {
	struct ckt_kin *v;
	size_t n;
	size_t unlooked; /* candidate files past CKT_KIN_MAX_LOOKS, not opened */
};

/* Fills *out with the traces in trace_path's directory that the process of dec's header
 * started (children) or became (execs), by start time: files named as CUZKTRACE_OUT names
 * them (its fixed part before the first %, or "<name>." without one: the per-pid and .exec
 * fallbacks included), changed since this process started, whose headers say so. ended and
 * duration_ns (the replay's) bound a child's start. Returns 0, or CKT_ENOMEM (*out empty). */
int ckt_kin_find(const char *trace_path, const struct ckt_decoder *dec, bool ended, uint64_t duration_ns,
		 struct ckt_kin_list *out);
void ckt_kin_free(struct ckt_kin_list *l);

#endif
