/* ckt_format.h: the cuzktrace trace format, the one contract shared by the capture library
 * (preload/) and the reader (reader/). Nothing else is shared between them.
 *
 * FILE
 *   A trace file is a concatenation of independent zstd frames (so `zstd -dc trace.zst` works).
 *   Frame 0 holds exactly the HEADER. Every later frame starts with a FRAME record and holds
 *   whole records only; no record spans two frames and no decoding state crosses a frame
 *   boundary, so a reader can stop at the last complete frame of a killed process.
 *
 * INTEGERS AND STRINGS (all little-endian where fixed width)
 *   uv  unsigned LEB128 varint (1..10 bytes)
 *   sv  signed value, zigzag-encoded, then LEB128
 *   str uv byte length, then the bytes (no NUL; length-prefixed so long Rust names survive)
 *
 * HEADER (content of frame 0)
 *   8 bytes  CKT_MAGIC "CUZKTRC\0"
 *   2 bytes  format version, little-endian (CKT_FORMAT_VERSION)
 *   then (str key, str value) pairs, ended by an empty key. Values are text. Keys written:
 *     tracer_version pid ppid exe argv (arguments joined by '\n') start_wall_ns
 *     hostname page_size clock ("monotonic")  and one "setting.CUZKTRACE_xxx" per setting;
 *     since tracer 0.2.8 also args (the arguments joined by NUL bytes: exact even for an
 *     argument that holds a newline, which argv cannot tell; readers prefer it); since
 *     0.2.11, when the command line is longer than the 32 KiB the tracer keeps of it (args and
 *     argv are then cut, the last argument kept possibly in part), args_total: its whole
 *     length in bytes, NULs included; since 0.2.12 process: "<pid>.<start time in clock
 *     ticks>.<pid namespace inode>", the same across the process's execs (a new image given this file after an
 *     exec the hooks did not see keeps it, and takes the next name).
 *     Since 0.2.21 parent_process: the parent process as its own trace's process key names it
 *     ("<ppid>.<its start time>.<this pid namespace>"), when /proc shows a parent in this pid
 *     namespace that started before this process (readers match children to parents by it).
 *     Since 0.2.37, when the process that forked this one had ended before its tracer started
 *     (the kernel gave it to pid 1 or a subreaper, which ppid names), and this one is a fork
 *     of a traced process (through forks alone, told by CUZKTRACE_FORKED_BY): parent_process
 *     names that traced process when it forked this one itself; else (through forks of its,
 *     not traced, that ended) parent_process names the adopter as above, and
 *     ancestor_process names the traced process, a key of the same form (readers list this
 *     one as that one's descendant, not a child). Absent otherwise (readers then do as
 *     before).
 *     Since 0.2.22 run: "<process key of the run's first process>@<its start_wall_ns>", the
 *     same in every trace of a traced program and of the traced programs it started (passed
 *     on in CUZKTRACE_RUN; readers list a run's traces by it).
 *     Since 0.2.23 allocator_ahead and allocator_ahead_function: the object that defines an
 *     allocator function (malloc, free, mmap or calloc; malloc for valgrind's preload
 *     library) that the program's calls reach ahead of the tracer, and that function: its
 *     allocations are not in the trace. Absent when there is none.
 *   Readers ignore keys they do not know.
 *
 * DATA FRAMES: a sequence of records, each a tag byte then fields.
 *   Timestamps are nanoseconds of CLOCK_MONOTONIC since the trace start: t = 0 is the first
 *   intercepted call (which can precede the library's constructor). Within one thread they never
 *   decrease. Across threads, a FREE (stamped before the real free) is earlier than any later
 *   ALLOC of the same address by another thread (stamped after the real allocation); at equal
 *   ts a release (FREE, MUNMAP, the release half of REALLOC/MREMAP) sorts before an allocation.
 *   Per-block delta state: `prev_ts` and `prev_addr`. FRAME sets prev_ts = base_ts; THREAD
 *   resets prev_ts = base_ts of the current frame and prev_addr = 0. Every "dts" below is an sv
 *   added to prev_ts (and then stored in prev_ts); every "daddr" is an sv added to prev_addr
 *   (and then stored in prev_addr). Events between two THREAD records belong to that thread
 *   and are in that thread's program order.
 *
 *   FRAME      uv seq, uv base_ts      first record of each data frame; seq counts the data
 *                                      frames from 0, one by one (a reader refuses a gap)
 *   THREAD     uv tid                                           following events are this thread's
 *   SYNC       uv horizon_ts      written last in each flush. Every event that was complete
 *                                 when the writer began this flush is in this or an earlier
 *                                 frame; one still being recorded then appears in the next
 *                                 flush. So when a reader meets SYNC(h_k), every event with
 *                                 ts < h_(k-1) (the previous SYNC's horizon) has been read: it
 *                                 may merge threads by time up to there and must hold the rest.
 *                                 The writer keeps the horizon behind every event stamped but
 *                                 not yet complete (realloc, munmap and mremap are stamped
 *                                 before their real call) and 1 ms behind its clock (since
 *                                 tracer 0.2.1; earlier writers could break the promise).
 *   END        uv ts, uv reason, uv events, uv lost     the process ended; reason CKT_END_*
 *                                 lost: the trace's total of events lost, the LOST records'
 *                                 counts included (not to be added to them)
 *   LOST       uv count           events dropped (buffer could not be drained); totals inexact
 *   THREAD_EXIT uv ts, uv tid     (version 4; not inside a thread group) thread tid is gone and
 *              every event it recorded is in this or an earlier frame; ts is when it ended
 *              (its last stamp, taken as it flushed its totals, or a later event's). A thread's running totals of the default mode (AGG) are flushed
 *              before it ends, so from ts on it has none pending. Written when the writer
 *              recycles the thread's buffer, which can be a flush or two after ts: the SYNC
 *              promise does not cover it (a reader applies it when it comes). Since tracer
 *              0.2.33 it comes before any record of a later thread with the same tid (the
 *              kernel reuses ids): its events, its THREAD_NAME records (a reader tells the
 *              threads of one tid apart by counting these ends).
 *   WAITED     uv ns, uv waits   (version 7; not inside a thread group) the program's threads
 *              have slept ns nanoseconds in all, in `waits` waits, for room in their rings
 *              since the process started (the writer fell behind them: exact mode on busy
 *              threads; the tracer's own threads not counted). Running totals, written in a
 *              flush when the count grew: the last one counts. Each wait's time includes the
 *              thread's time to get a core again after it (a stop of the process inside one
 *              counts 100 ms at most). (Readers of version 7 accept it in a trace of any
 *              version.)
 *   LIMIT      uv ts, uv kind   (version 8; not inside a thread group) one of the tracer's tables
 *              filled at ts (or could not be had at all, ts the time it tried), and from then
 *              on the trace may lack what it would have held, by kind (CKT_LIMIT_*):
 *              STACKS   a call stack new since may not be recorded: its events carry stack 0
 *                       (the 2,097,152 distinct stacks, the memory reserved for their frames,
 *                       or a crowded run of the table: then only stacks that hash there)
 *              SAMPLES  the default mode's set of live samples is full: a sample taken while
 *                       it is full is not kept there, so its free is not recorded (its block
 *                       stays live for the estimates by site and phase; heap totals are not
 *                       affected)
 *              PHASES   phase names past 4,096: their phase events are not recorded
 *              MODULES  a module map past 256 KiB (or no memory for one, which a later map
 *                       may have): the modules left out of a map show their frames as
 *                       addresses
 *              Written once per kind, in the flush after (a reader takes it when it comes: it
 *              is not timed). (Readers of version 8 accept it in a trace of any version.)
 *   THREAD_NAME uv ts, uv tid, str name          (not inside a thread group) the thread's name
 *              from ts on; written when a thread first records and after each rename
 *   ALLOC      dts, uv fn, daddr, uv size, uv stack, uv phase       heap block of `size` bytes
 *              fn bit CKT_FN_SAMPLED: a sample of the default mode (see AGG): the block's bytes
 *              are already counted by AGG; it stands for size / (1 - exp(-size / R)) bytes,
 *              R = header setting.CUZKTRACE_SAMPLE, for estimates by site and phase
 *   FREE       dts, daddr                                           recorded before the real free
 *   REALLOC    dts (before the call), daddr (old), uv dafter (ns after the before-timestamp),
 *              daddr (new), uv size, uv stack, uv phase
 *              The old block is released at ts, the new one exists at ts + dafter.
 *   MMAP       dts, daddr, uv len, uv flags (CKT_MAP_*), uv prot, uv stack, uv phase
 *              prot: PROT_READ 1 | PROT_WRITE 2 | PROT_EXEC 4 (the writer drops other bits;
 *              readers take prot & 7). A mapping
 *              whose protection is 0 (PROT_NONE) is reserved address space, not memory:
 *              readers count it apart (`reserved`), not in mapped bytes (the CUDA driver
 *              reserves gigabytes so; a program may later open parts with mprotect).
 *   MUNMAP     dts, daddr, uv len
 *   MPROTECT   dts, daddr, uv len, uv prot   (version 5) mprotect/pkey_mprotect succeeded: the
 *              mapped pages of [addr, addr + len rounded up to a page) now have protection
 *              prot (as MMAP's). Stamped before the real call when prot is 0 (a release: at
 *              equal ts it sorts with the releases), after it otherwise (an allocation).
 *              Pages no traced mapping holds are left alone. (Readers of version 5 accept
 *              MPROTECT in a trace of any version.)
 *   MREMAP     dts, daddr (old), uv old_len, daddr (new), uv new_len   old range released, new
 *                                 range mapped with the old range's attributes (anonymous or
 *                                 not, protection: the kernel moves one mapping at a time, so
 *                                 they are those of the range holding the old address; a
 *                                 range never seen mapped counts as anonymous read-write)
 *              version 3 adds uv dafter: the old range is released at ts (stamped before the
 *              call), the new one exists at ts + dafter (stamped after it), as for REALLOC: a
 *              range another thread unmapped just before the kernel reused it for this one
 *              sorts before it. Versions 1 and 2: dafter = 0.
 *   RSS        dts, uv rss_bytes                                       from /proc/self/statm
 *   RSS_DETAIL dts, uv hwm_bytes, uv anon_bytes, uv file_bytes, uv shmem_bytes  /proc/self/status
 *
 *   STACK      uv id, uv nframes, nframes x sv (each frame minus the previous one; the first
 *              minus 0). Return addresses, innermost first, the tracer's own frames removed.
 *              nframes <= CKT_STACK_MAX_FRAMES (the tracer writes at most 256: CUZKTRACE_DEPTH);
 *              readers take a longer stack as a corrupt record (a few bytes of zstd could
 *              otherwise make them symbolize millions of frames).
 *              Each distinct stack is written once. An event may name a stack id whose STACK
 *              record comes later in the file: readers resolve ids when they report.
 *   MODULE     uv base (load bias, dlpi_addr), uv lo, uv hi (the [lo, hi) span of its PT_LOAD
 *              segments, bias applied), str path, str build_id (lowercase hex, may be empty).
 *              The whole module map is written at start and again after each dlopen/dlclose;
 *              readers keep the union (an address belongs to the module whose span holds it).
 *              Since tracer 0.2.1 each STACK record comes after the map that was current when
 *              the stack was captured and before the next map, so a reader that takes each run
 *              of consecutive MODULE records as one map, and symbolizes a stack with the newest
 *              module listed up to the map before it, is right across dlclose and a new library
 *              at the same addresses.
 *   CUDA_ALLOC dts, uv kind (CKT_CUDA_*), uv device (ordinal, or CKT_CUDA_NO_DEVICE), daddr,
 *              uv size, uv stack, uv phase, uv fn (CKT_CU_*: the driver entry point)
 *   CUDA_FREE  dts, uv kind, daddr, uv fn            recorded before the real free; kind is the
 *              kind implied by the entry point (device frees cover device and pool memory)
 *   CUDA_DEVICE uv ordinal, str uuid ("GPU-xxxxxxxx-xxxx-..." or empty), str name
 *              written once per device by the thread that first allocates on it, before that
 *              allocation; ordinals are the process's own (CUDA_VISIBLE_DEVICES renumbers)
 *              cuMemCreate / cuMemRelease (fn CKT_CU_MEM_CREATE / _RELEASE) carry the
 *              allocation handle in daddr: a namespace of its own, apart from addresses.
 *              cuMemCreate of host memory (location not a device) has kind CKT_CUDA_PINNED.
 *              cuMemAllocFromPoolAsync (+_ptsz) from a pool whose properties the tracer saw
 *              (since tracer 0.2.41) has the pool's kind and device: CKT_CUDA_POOL on the
 *              pool's device, CKT_CUDA_PINNED (a pool on the host; no device) or
 *              CKT_CUDA_MANAGED (CUDA 13's managed pools); from another pool, and before,
 *              CKT_CUDA_POOL on the current context's device. cuMemFree and cuMemFreeAsync
 *              free a block of a stream-ordered allocator (fn) whatever its kind.
 *   CUDA_MAP   dts, daddr, uv size, uv handle     (version 4) cuMemMap succeeded: the memory of
 *              allocation handle `handle` is mapped at [addr, addr + size). Recorded after the
 *              call. The memory of a handle exists until it is released (cuMemRelease) and
 *              every range mapped to it is unmapped, whichever comes last.
 *   CUDA_UNMAP dts, daddr, uv size                 (version 4) cuMemUnmap of [addr, addr + size)
 *              (whole mapped ranges), recorded before the real call. (Readers of version 4
 *              accept both records in a trace of any version.)
 *
 *   PHASE_DEF  uv id, str name                      (not inside a thread group) names phase id
 *   PHASE      dts, uv op (CKT_PHASE_*), uv id      in the thread group of the thread that
 *              called the API. PUSH/POP act on that thread's stack; BEGIN/END on the
 *              process-wide counted set (a name is active while begins outnumber ends; an
 *              END is written only for a name that is active. Since tracer 0.2.2 BEGIN/END
 *              are stamped in the order the tracer counted them; before, an END could be
 *              stamped before the BEGIN of another thread that it closed).
 *              Events from log-line rules are BEGIN/END in the group of the writing thread.
 *   NOTE       uv ts, uv phase id, str text         (not inside a thread group) the log line
 *              that triggered a phase event of a CUZKTRACE_PHASES rule
 *
 *   AGG        dts, sv bytes, sv blocks   default mode: small heap blocks (malloc_usable_size < R)
 *              are not recorded one by one; their usable bytes and count are summed per thread
 *              and sent as a delta whenever it reaches CKT_AGG_STEP bytes either way, and
 *              before a sample or a heap event recorded individually (since tracer 0.2.7; a
 *              thread's first small block is sent at once, and every change from its exit
 *              on). Totals are exact to within CKT_AGG_STEP per thread that has sent AGG.
 *              Version 6 adds uv since: 0 for a delta sent as it reached CKT_AGG_STEP (its
 *              last change is the record's ts); else the thread's totals last changed no
 *              earlier than ts - since (the tracer's coarse clock at that change: a sampling
 *              period or flush interval behind while the tracer's threads get a core, more
 *              when they do not; capped at 71 minutes). A thread that
 *              idled sends its last delta late (at a phase call, its next large block, its
 *              exit): its changes came after the thread's previous AGG, at or after
 *              ts - since, and before the coarse clock's next tick, which comes right before
 *              an RSS sample (the first RSS record more than a millisecond, or half the
 *              sampling period, after ts - since bounds it: the record right after the tick
 *              that set the clock is skipped; without RSS records, CUZKTRACE_FLUSH_MS after
 *              it, while the tracer's threads get a core).
 *              Readers count such totals at a peak held from then on (before ts), which keeps
 *              its moment (a pool thread's 60 KB sent at its exit moved the peak from the
 *              phase that made it to that exit); readers since 0.2.24 also a total that grew
 *              in the tick or two after a peak the heap held still at (a burst that is the
 *              peak ends there).
 *              Versions 1 to 5: since = 0.
 *   A reader of this version rejects a tag it does not know.
 *   Stack id 0 means "no stack recorded"; phase id 0 means "no phase". Phase ids run from 1
 *   to CKT_MAX_PHASE_ID; thread ids fit 32 bits, CUDA device ordinals too (CKT_CUDA_NO_DEVICE
 *   the largest); a reader refuses other values as corrupt.
 *
 * VERSION 2: COLUMNS (written by tracer 0.2.0; version 3, written by 0.2.1, is version 2
 * with MREMAP's dafter above; version 4, written by 0.2.2 and 0.2.3, adds CUDA_MAP and
 * CUDA_UNMAP; version 5, written by 0.2.4 to 0.2.22, adds MPROTECT; version 6, written by
 * 0.2.23 to 0.2.30, adds AGG's since; version 7, written by 0.2.31 to 0.2.33, adds WAITED;
 * version 8, written since 0.2.34, adds LIMIT; readers read versions 1 to 8)
 *   Version 1 is the layout above, every record in a row. Version 2 keeps every record and
 *   its meaning but stores a data frame as CKT_NSTREAMS streams, so that zstd sees each kind of
 *   value on its own (the benchmark's trace: 3.4 bytes per event in rows, about 1.6 here):
 *     uv nstreams (= CKT_NSTREAMS), nstreams x uv length, then the streams back to back:
 *     stream 0, ROW: the records exactly as in version 1, except that ALLOC, FREE and REALLOC
 *       are their tag byte alone; their fields are in the columns, in record order:
 *     TS_LO, TS_HI   time of ALLOC and REALLOC   } v = ts - prev_ts as an unsigned 64-bit
 *     TSF_LO, TSF_HI time of FREE               } value: if v < 0xffff its low and high byte,
 *                    else the bytes ff ff and the signed delta as an sv in ESC
 *     SIZE_LO, SIZE_HI  size of ALLOC and REALLOC, the same way (escape: ff ff, uv in ESC)
 *     ACODE, ADDR    heap addresses, by the address model below: one ACODE byte per address,
 *                    and for a code of CKT_ACODE_MISS an sv in ADDR
 *     META           ALLOC: uv fn, uv stack, uv phase; REALLOC: uv dafter, uv stack, uv phase
 *     ESC            escapes, in the order the fields are read
 *   Field order within an event is as in version 1 (REALLOC: ts, old address, dafter, new
 *   address, size, stack, phase); each stream keeps that order among its own values. An
 *   allocated address is decoded after the event's size: its code is an index into the
 *   freed list of the size's class. The ROW records' dts/daddr keep their version 1 meaning;
 *   prev_ts is shared between ROW records and the columns, prev_addr belongs to ROW records
 *   only. Every stream must be consumed exactly by the frame's records.
 *
 *   Address model (struct ckt_amodel below, one per thread group: reset at FRAME and THREAD).
 *   It predicts what glibc does: a free'd block is usually the one just allocated, and a new
 *   block is usually the last one freed of its size class (tcache).
 *     recent: the last CKT_AM_RECENT allocated addresses, newest first (index 0).
 *     freed[c]: per size class c = ckt_am_class(size), the last CKT_AM_FREED addresses
 *       released from `recent`, newest first. A push on a full list drops its oldest.
 *     release (FREE, REALLOC's old address): code = index in recent, the entry is removed and
 *       pushed on freed[its class]; else CKT_ACODE_MISS, ADDR = address - esc_rel, and
 *       esc_rel = address.
 *     allocation (ALLOC, REALLOC's new address): code = index in freed[class(size)], the
 *       entry is removed; else CKT_ACODE_MISS, ADDR = address - esc_next, and esc_next =
 *       address + 16 * class (where the next block carved from the heap top would start).
 *       Then the address is pushed on recent.
 */
#ifndef CKT_FORMAT_H
#define CKT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CKT_MAGIC "CUZKTRC"             /* 7 chars + the terminating NUL = 8 bytes on disk */
#define CKT_MAGIC_LEN 8
#define CKT_FORMAT_VERSION 8     /* written; CKT_FORMAT_VERSION_MIN.. are read */
#define CKT_FORMAT_VERSION_MIN 1
#define CKT_TRACER_VERSION "0.2.62"
#define CKT_STACK_MAX_FRAMES 1024
#define CKT_MAX_DEPTH 256 /* the most CUZKTRACE_DEPTH allows: the tracer's bound, the reader's check */

enum ckt_tag {
	CKT_TAG_FRAME = 0x01,
	CKT_TAG_THREAD = 0x02,
	CKT_TAG_SYNC = 0x03,
	CKT_TAG_END = 0x04,
	CKT_TAG_LOST = 0x05,
	CKT_TAG_THREAD_NAME = 0x06,
	CKT_TAG_THREAD_EXIT = 0x07,
	CKT_TAG_WAITED = 0x08, /* version 7 */
	CKT_TAG_LIMIT = 0x09,  /* version 8 */
	CKT_TAG_ALLOC = 0x10,
	CKT_TAG_FREE = 0x11,
	CKT_TAG_REALLOC = 0x12,
	CKT_TAG_MMAP = 0x13,
	CKT_TAG_MUNMAP = 0x14,
	CKT_TAG_MREMAP = 0x15,
	CKT_TAG_RSS = 0x16,
	CKT_TAG_RSS_DETAIL = 0x17,
	CKT_TAG_MPROTECT = 0x18, /* version 5 */
	/* reserved for later versions */
	CKT_TAG_STACK = 0x20,
	CKT_TAG_MODULE = 0x21,
	CKT_TAG_PHASE_DEF = 0x22,
	CKT_TAG_PHASE = 0x23,
	CKT_TAG_NOTE = 0x24,
	CKT_TAG_CUDA_ALLOC = 0x28,
	CKT_TAG_CUDA_FREE = 0x29,
	CKT_TAG_CUDA_DEVICE = 0x2a,
	CKT_TAG_CUDA_MAP = 0x2b,
	CKT_TAG_CUDA_UNMAP = 0x2c,
	CKT_TAG_AGG = 0x30,
};

/* ALLOC.fn: which entry point made the block (the reader may show it; sizes do not depend on it) */
enum ckt_alloc_fn {
	CKT_FN_MALLOC = 0,
	CKT_FN_CALLOC = 1,
	CKT_FN_REALLOC = 2,   /* realloc(NULL, n) and reallocarray(NULL, ...) */
	CKT_FN_POSIX_MEMALIGN = 3,
	CKT_FN_ALIGNED_ALLOC = 4,
	CKT_FN_MEMALIGN = 5,
	CKT_FN_VALLOC = 6,
	CKT_FN_PVALLOC = 7,
	CKT_FN_REALLOCARRAY = 8,
	CKT_FN_NEW = 9, /* C++ operator new (any form), traced where the allocator serves it without
			 * malloc (tracer 0.2.15; libstdc++'s new calls malloc: CKT_FN_MALLOC) */
};
#define CKT_FN_SAMPLED 0x80 /* ALLOC.fn flag: a sampled small block (default mode) */
/* AGG: a thread sends its running totals when they moved by this many bytes either way */
#define CKT_AGG_STEP (64 * 1024)

/* LIMIT.kind: which of the tracer's tables filled */
enum ckt_limit_kind {
	CKT_LIMIT_STACKS = 1,
	CKT_LIMIT_SAMPLES = 2,
	CKT_LIMIT_PHASES = 3,
	CKT_LIMIT_MODULES = 4,
};
#define CKT_LIMIT_KINDS 4

/* MMAP.flags */
#define CKT_MAP_ANON 0x1u    /* MAP_ANONYMOUS (or fd == -1): not backed by a file */
#define CKT_MAP_SHARED 0x2u  /* MAP_SHARED */
#define CKT_MAP_FIXED 0x4u   /* MAP_FIXED / MAP_FIXED_NOREPLACE: replaces what was there */

/* CUDA_ALLOC.kind / CUDA_FREE.kind */
enum ckt_cuda_kind {
	CKT_CUDA_DEVICE = 0,     /* cuMemAlloc_v2, cuMemAllocPitch_v2 */
	CKT_CUDA_PINNED = 1,     /* cuMemAllocHost_v2, cuMemHostAlloc: host RAM, shows in RSS */
	CKT_CUDA_MANAGED = 2,    /* cuMemAllocManaged */
	CKT_CUDA_POOL = 3,       /* cuMemAllocAsync, cuMemAllocFromPoolAsync (+_ptsz) of device memory */
	CKT_CUDA_VMM = 4,        /* cuMemCreate (physical memory of the VMM API) */
	CKT_CUDA_REGISTERED = 5, /* cuMemHostRegister_v2: pins existing memory, no new bytes */
};
#define CKT_CUDA_NO_DEVICE 0xffffffffu

/* CUDA_ALLOC.fn / CUDA_FREE.fn: the driver entry point that was called (the _ptsz variants are
 * the per-thread-default-stream forms handed out by cuGetProcAddress with flag 2). */
enum ckt_cu_fn {
	CKT_CU_MEM_ALLOC = 1,                  /* cuMemAlloc_v2 */
	CKT_CU_MEM_ALLOC_PITCH = 2,            /* cuMemAllocPitch_v2 (size = pitch * height) */
	CKT_CU_MEM_ALLOC_MANAGED = 3,          /* cuMemAllocManaged */
	CKT_CU_MEM_ALLOC_HOST = 4,             /* cuMemAllocHost_v2 */
	CKT_CU_MEM_HOST_ALLOC = 5,             /* cuMemHostAlloc */
	CKT_CU_MEM_ALLOC_ASYNC = 6,            /* cuMemAllocAsync */
	CKT_CU_MEM_ALLOC_ASYNC_PTSZ = 7,       /* cuMemAllocAsync_ptsz */
	CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC = 8,  /* cuMemAllocFromPoolAsync */
	CKT_CU_MEM_ALLOC_FROM_POOL_ASYNC_PTSZ = 9, /* cuMemAllocFromPoolAsync_ptsz */
	CKT_CU_MEM_CREATE = 10,                /* cuMemCreate: addr is the allocation handle */
	CKT_CU_MEM_HOST_REGISTER = 11,         /* cuMemHostRegister_v2 */
	CKT_CU_MEM_FREE = 16,                  /* cuMemFree_v2 */
	CKT_CU_MEM_FREE_HOST = 17,             /* cuMemFreeHost */
	CKT_CU_MEM_FREE_ASYNC = 18,            /* cuMemFreeAsync */
	CKT_CU_MEM_FREE_ASYNC_PTSZ = 19,       /* cuMemFreeAsync_ptsz */
	CKT_CU_MEM_RELEASE = 20,               /* cuMemRelease: addr is the allocation handle */
	CKT_CU_MEM_HOST_UNREGISTER = 21,       /* cuMemHostUnregister */
};

/* PHASE.op */
#define CKT_MAX_PHASE_ID 4096 /* the tracer names at most this many phases */
/* Lengths of strings in records: THREAD_NAME, PHASE_DEF and NOTE strings are cut to CKT_MAX_STR
 * bytes; a MODULE path is at most CKT_MAX_PATH, a build-id CKT_MAX_SHORT; a CUDA_DEVICE's uuid
 * and name CKT_MAX_SHORT. A reader refuses longer ones as corrupt. */
#define CKT_MAX_STR 1024
#define CKT_MAX_PATH 4096
#define CKT_MAX_SHORT 256

enum ckt_phase_op {
	CKT_PHASE_PUSH = 0,
	CKT_PHASE_POP = 1, /* id is the phase popped (0 if the stack was empty) */
	CKT_PHASE_BEGIN = 2,
	CKT_PHASE_END = 3,
};

/* END.reason */
enum ckt_end_reason {
	CKT_END_EXIT = 0,      /* exit(), return from main, or exit() from another thread */
	CKT_END_EXEC = 1,      /* the process image was replaced by execve */
	CKT_END_ERROR = 2,     /* tracing stopped after a write error; see the stderr line */
	CKT_END_ABORT = 3,     /* (tracer 0.2.26) abort(): the process ends by SIGABRT (readers take
				* a reason they do not know as an end all the same) */
	CKT_END_SIGNAL = 64,   /* (tracer 0.2.28) 64 + n: signal n's default action ends the process
				* (n from 1 to 64; SIGABRT's end is CKT_END_ABORT) */
};

/* END's reason CKT_END_SIGNAL + n: n; any other reason: 0 */
static inline int ckt_end_signal(uint64_t reason)
{
	return reason > CKT_END_SIGNAL && reason <= CKT_END_SIGNAL + 64 ? (int)(reason - CKT_END_SIGNAL) : 0;
}

/* ---- varints: written here once, used by the encoder (preload/record.c) and the decoder
 * (reader/decode.c). Both are bounds-checked by their callers: the encoder reserves
 * CKT_MAX_RECORD bytes before a record, the decoder passes the end pointer. */
#define CKT_MAX_VARINT 10
#define CKT_MAX_RECORD 128 /* largest fixed-field record; strings are bounded separately */

static inline uint8_t *ckt_put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *ckt_put_sv(uint8_t *p, int64_t v)
{
	return ckt_put_uv(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Returns the position after the varint, or NULL if it is longer than 10 bytes or runs past end. */
static inline const uint8_t *ckt_get_uv(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70 && p < end; shift += 7) {
		uint8_t b = *p++;
		if (shift == 63 && b > 1) /* the tenth byte holds bit 63 alone: more is no 64-bit value */
			return NULL;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return p;
		}
	}
	return NULL;
}

static inline const uint8_t *ckt_get_sv(const uint8_t *p, const uint8_t *end, int64_t *out)
{
	uint64_t u;
	p = ckt_get_uv(p, end, &u);
	if (p)
		*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return p;
}

/* ---- version 2 columns and the address model, shared by encoder and decoder ---- */
enum ckt_stream {
	CKT_S_ROW = 0,
	CKT_S_TS_LO,
	CKT_S_TS_HI,
	CKT_S_TSF_LO,
	CKT_S_TSF_HI,
	CKT_S_SIZE_LO,
	CKT_S_SIZE_HI,
	CKT_S_ACODE,
	CKT_S_ADDR,
	CKT_S_META,
	CKT_S_ESC,
	CKT_NSTREAMS
};
#define CKT_PLANE_ESC 0xffffu /* a 2-byte plane value meaning "the value is in ESC" */

#define CKT_AM_RECENT 16
#define CKT_AM_FREED 8
#define CKT_AM_CLASSES 128
#define CKT_ACODE_MISS 0xff

/* The lists are rings, newest at `head`: a hit is nearly always the newest entry, so taking it
 * out is a head move, and pushing drops the oldest by overwriting it (no shifting). */
struct ckt_amodel {
	uint64_t recent[CKT_AM_RECENT];
	uint8_t recent_cls[CKT_AM_RECENT];
	uint8_t rhead, nrecent;
	uint8_t fhead[CKT_AM_CLASSES], nfreed[CKT_AM_CLASSES];
	uint64_t freed[CKT_AM_CLASSES][CKT_AM_FREED];
	uint64_t esc_rel, esc_next;
};
#define CKT_AM_AT(head, i, cap) (((unsigned)(head) + (i)) & ((cap) - 1))

/* glibc's chunk size for a request, in 16-byte units, capped at CKT_AM_CLASSES - 1 (every
 * request of 2025 bytes or more): only a prediction key, and an index into the freed lists,
 * so the cap applies to the chunk size, not the request (2025..2031 round up to class 128). */
static inline unsigned ckt_am_class(uint64_t size)
{
	if (size >= (CKT_AM_CLASSES - 1) * 16)
		return CKT_AM_CLASSES - 1;
	uint64_t c = (size + 8 + 15) & ~(uint64_t)15;
	c = (c < 32 ? 32 : c) >> 4;
	return c > CKT_AM_CLASSES - 1 ? CKT_AM_CLASSES - 1 : (unsigned)c;
}

/* Costs 274 bytes of stores, not the 8 KiB of the lists: those are read only below their
 * counts. The heads are set too, so that no value is read before it was written. */
static inline void ckt_am_reset(struct ckt_amodel *m)
{
	m->nrecent = 0;
	m->rhead = 0;
	memset(m->fhead, 0, sizeof(m->fhead));
	memset(m->nfreed, 0, sizeof(m->nfreed));
	m->esc_rel = m->esc_next = 0;
}

static inline uint64_t ckt_am_recent(const struct ckt_amodel *m, unsigned i)
{
	return m->recent[CKT_AM_AT(m->rhead, i, CKT_AM_RECENT)];
}

static inline uint64_t ckt_am_freed(const struct ckt_amodel *m, unsigned c, unsigned j)
{
	return m->freed[c][CKT_AM_AT(m->fhead[c], j, CKT_AM_FREED)];
}

/* Removes recent entry i (the caller found it) and pushes it on its class's freed list. */
static inline void ckt_am_released(struct ckt_amodel *m, unsigned i)
{
	unsigned h = m->rhead, at = CKT_AM_AT(h, i, CKT_AM_RECENT);
	uint64_t a = m->recent[at];
	unsigned c = m->recent_cls[at];
	for (unsigned k = i; k > 0; k--) {
		unsigned to = CKT_AM_AT(h, k, CKT_AM_RECENT), from = CKT_AM_AT(h, k - 1, CKT_AM_RECENT);
		m->recent[to] = m->recent[from];
		m->recent_cls[to] = m->recent_cls[from];
	}
	m->rhead = (uint8_t)CKT_AM_AT(h, 1, CKT_AM_RECENT);
	m->nrecent--;
	m->fhead[c] = (uint8_t)CKT_AM_AT(m->fhead[c], CKT_AM_FREED - 1, CKT_AM_FREED);
	m->freed[c][m->fhead[c]] = a;
	if (m->nfreed[c] < CKT_AM_FREED)
		m->nfreed[c]++;
}

/* Takes freed[c] entry j out (j >= 0: a hit) and records `a` as the newest allocation. */
static inline void ckt_am_allocated(struct ckt_amodel *m, unsigned c, int j, uint64_t a)
{
	if (j >= 0) {
		unsigned h = m->fhead[c];
		for (unsigned k = (unsigned)j; k > 0; k--)
			m->freed[c][CKT_AM_AT(h, k, CKT_AM_FREED)] =
				m->freed[c][CKT_AM_AT(h, k - 1, CKT_AM_FREED)];
		m->fhead[c] = (uint8_t)CKT_AM_AT(h, 1, CKT_AM_FREED);
		m->nfreed[c]--;
	}
	m->rhead = (uint8_t)CKT_AM_AT(m->rhead, CKT_AM_RECENT - 1, CKT_AM_RECENT);
	m->recent[m->rhead] = a;
	m->recent_cls[m->rhead] = (uint8_t)c;
	if (m->nrecent < CKT_AM_RECENT)
		m->nrecent++;
}

/* Encoder side: the code for a release of `a`; on a miss *delta is what goes to ADDR. */
static inline unsigned ckt_am_enc_release(struct ckt_amodel *m, uint64_t a, int64_t *delta)
{
	for (unsigned i = 0; i < m->nrecent; i++)
		if (ckt_am_recent(m, i) == a) {
			ckt_am_released(m, i);
			return i;
		}
	*delta = (int64_t)(a - m->esc_rel);
	m->esc_rel = a;
	return CKT_ACODE_MISS;
}

static inline unsigned ckt_am_enc_alloc(struct ckt_amodel *m, uint64_t a, uint64_t size,
					int64_t *delta)
{
	unsigned c = ckt_am_class(size), code = CKT_ACODE_MISS;
	for (unsigned j = 0; j < m->nfreed[c]; j++)
		if (ckt_am_freed(m, c, j) == a) {
			code = j;
			break;
		}
	if (code == CKT_ACODE_MISS) {
		*delta = (int64_t)(a - m->esc_next);
		m->esc_next = a + 16 * (uint64_t)c;
	}
	ckt_am_allocated(m, c, code == CKT_ACODE_MISS ? -1 : (int)code, a);
	return code;
}

/* Decoder side: 0 and the address, or -1 for a code the model cannot hold (corruption). */
static inline int ckt_am_dec_release(struct ckt_amodel *m, unsigned code, int64_t delta,
				     uint64_t *a)
{
	if (code == CKT_ACODE_MISS) {
		*a = m->esc_rel += (uint64_t)delta;
		return 0;
	}
	if (code >= m->nrecent)
		return -1;
	*a = ckt_am_recent(m, code);
	ckt_am_released(m, code);
	return 0;
}

static inline int ckt_am_dec_alloc(struct ckt_amodel *m, unsigned code, int64_t delta,
				   uint64_t size, uint64_t *a)
{
	unsigned c = ckt_am_class(size);
	if (code == CKT_ACODE_MISS) {
		*a = m->esc_next + (uint64_t)delta;
		m->esc_next = *a + 16 * (uint64_t)c;
		ckt_am_allocated(m, c, -1, *a);
		return 0;
	}
	if (code >= m->nfreed[c])
		return -1;
	*a = ckt_am_freed(m, c, code);
	ckt_am_allocated(m, c, (int)code, *a);
	return 0;
}

#endif
