/* kin.h: the traces a traced process's descendants and later images wrote beside its own.
 *
 * A wrapper (`timeout`, `sh -c`, `cargo run`, `nice`) started under the tracer with a fixed
 * CUZKTRACE_OUT takes that name, and the program it starts, the one the user meant, writes
 * "<name>.<pid>.zst" (or, after an exec, "<name>.exec1.zst") next to it: a report of the
 * wrapper's trace said nothing of where the program's went. The reader looks for them in the
 * trace's directory and names them.
 */
#ifndef CKT_KIN_H
#define CKT_KIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode.h"

#define CKT_KIN_MAX_LOOKS 1024 /* trace headers opened at most per report */

enum ckt_kin_rel {
	CKT_KIN_CHILD,      /* a child of this process (of any of its images) */
	CKT_KIN_EXEC,       /* this process, a later image after an exec */
	CKT_KIN_DESCENDANT, /* a child's child, and further down, or a child's later image */
};

/* How a listed trace ends, from its last whole zstd frame alone (ckt_decode_seek_last): a
 * wrapper's report listed the program's trace as if whole when the program had been killed. */
enum ckt_kin_state {
	CKT_KIN_COMPLETE, /* it has its END record */
	CKT_KIN_CUT,      /* no END record: the process was killed, or is still running */
	CKT_KIN_EMPTY,    /* nothing after its header: killed (or still starting) before a flush */
	CKT_KIN_CORRUPT,  /* its last frame cannot be read (error says why) */
};

struct ckt_kin {
	char *path;             /* as found: the trace's directory as given, then the file name */
	char *exe;              /* the header's exe, as it is */
	uint64_t pid, parent;   /* its pid; the pid of the process that started it (exec: its own) */
	uint64_t start_wall_ns; /* the header's start_wall_ns */
	enum ckt_kin_rel rel;
	enum ckt_kin_state state;
	uint64_t events;        /* CKT_KIN_COMPLETE: its END record's count of events */
	bool being_written;     /* CUT or EMPTY: a process holds it open for writing now */
	bool after_exec;        /* a later image of the process it was found from (its parent: that
				 * process's pid, its own; told apart from a child that has its
				 * parent's pid in a pid namespace of its own) */
	char *error;            /* CKT_KIN_CORRUPT: why; CKT_KIN_EMPTY: what follows its header
				 * when anything does (since 0.2.45); else NULL */
};

/* A file named as the process's traces, written to since it started, that is no trace the
 * reader can read (its header cut, another program's file): it may be a descendant's */
struct ckt_kin_bad {
	char *path, *error;
};

struct ckt_kin_list {
	struct ckt_kin *v;
	size_t n;
	size_t unlooked; /* candidate files past CKT_KIN_MAX_LOOKS, not opened */
	struct ckt_kin_bad *bad;
	size_t n_bad;
};

/* Fills *out, by start time, with the traces in trace_path's directory that the process of
 * dec's header became (execs) or whose processes descend from it: the regular files named as
 * its CUZKTRACE_OUT names them (the fixed part before its first %, or "<name>." without
 * one, and that name itself), written to since it started, whose headers say so: a "parent_process" key (tracer
 * 0.2.21 on) equal to a known process's "process" key, else the same ppid and pid namespace
 * and a start while that process's trace was being written; and, in the report of a run's
 * first process, every other trace whose header names the same "run" (tracer 0.2.22 on).
 * Each found trace's end is looked at (state); the candidates that cannot be read as traces
 * go to out->bad. Returns 0, or CKT_ENOMEM (*out empty). */
int ckt_kin_find(const char *trace_path, const struct ckt_decoder *dec, struct ckt_kin_list *out);
void ckt_kin_free(struct ckt_kin_list *l);

#endif
