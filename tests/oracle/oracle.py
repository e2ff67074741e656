#!/usr/bin/env python3
"""oracle.py: an independent second reader of cuzktrace traces, for differential testing.

Written from the format specification in include/ckt_format.h only (not from reader/), in
Python with the standard library, so that a bug in reader/ and a bug here are unlikely to
agree. Decompression uses the `zstd` command-line tool.

    python3 tests/oracle/oracle.py TRACE.zst            prints one JSON object
    python3 tests/oracle/oracle.py --flat TRACE.zst     prints "key value" lines, keys named
                                                        like the reader's JSON (see README)
    python3 tests/oracle/oracle.py --records TRACE.zst    prints "mmap <len> <flags> <prot>" and
                                                        "cuda_alloc <kind> <size> <fn>" per MMAP
                                                        and CUDA_ALLOC record, in file order
    python3 tests/oracle/oracle.py --stacks-of=N TRACE.zst
                                                        prints "<stack id> <count>" for the
                                                        ALLOC records of exactly N bytes

The numbers: event counts by kind; the heap peak (requested bytes, exact mode) and the first
time it was reached, with the live bytes at that moment grouped by allocating phase; live heap
bytes and blocks at the end; the mmap peak (page-rounded lengths, partial unmaps subtract the
overlap; total, anonymous and file-backed) and what is mapped at the end; the peak of reserved
address space and what is reserved at the end.

Mapped versus reserved: every range has the protection its MMAP gave it (any format version)
until an MPROTECT (format version 5) changes it for the mapped pages of [addr, addr + len
rounded up to a page), splitting ranges as a partial munmap does and keeping their anonymous
flag; pages no range holds are left alone. Ranges whose protection is 0 (PROT_NONE) are
reserved address space: they count in `reserved` (peak_reserved, live_at_exit.reserved_bytes)
and not in any mapped bytes (peak_mmap*, live_at_exit.*mmap_bytes). MREMAP moves each piece of
the old range (the parts of the ranges it overlaps) to its offset in the new range, with its
anonymous flag and protection, replacing what lies under it; the parts no range holds are
holes, which leave the new range's pages under them as they were, except where the new range
is longer than the old one (then they count as anonymous read+write, and the last piece grows
to the new end) or no range holds any part of it (then all of it is one anonymous read+write
piece); the new range is cut at its length. An MREMAP that
releases nothing (length 0: MREMAP_DONTUNMAP, or old size 0) copies the pieces of the new
length's bytes from the old address, which stay, as they are at its release half; where those
pieces run from the old address without a gap, the last one grows to the new end (old size 0
makes one area of the new length, which may reach past what the trace knows). Each peak is the highest value after any
event and the first time it was reached.

Replay order (the spec's): threads are merged by timestamp; within a thread, program order;
at equal timestamps across threads a release (FREE, MUNMAP, MPROTECT to protection 0, the
release half of REALLOC and MREMAP) goes before an allocation (MPROTECT to any other protection
is one). A REALLOC releases the old block at ts and allocates the new one at ts + dafter; a
MREMAP the old range at ts and maps the new one at ts + dafter.
"""
import json
import heapq
import subprocess
import sys

# ---------------------------------------------------------------- zstd frames

ZSTD_MAGIC = 0xFD2FB528


class TraceError(Exception):
    pass


def split_zstd_frames(data):
    """Returns (frames, trailing): frames is a list of (start, end, content_size or None) for
    every complete zstd frame (skippable frames are skipped), trailing the number of bytes
    after the last complete frame that are not a frame (garbage or a cut-off frame)."""
    frames = []
    i, n = 0, len(data)
    while i < n:
        if n - i < 4:
            break
        magic = int.from_bytes(data[i:i + 4], 'little')
        if 0x184D2A50 <= magic <= 0x184D2A5F:  # skippable frame
            if n - i < 8:
                break
            size = int.from_bytes(data[i + 4:i + 8], 'little')
            if i + 8 + size > n:
                break
            i += 8 + size
            continue
        if magic != ZSTD_MAGIC:
            break
        p = i + 4
        if p >= n:
            break
        fhd = data[p]
        p += 1
        fcs_flag = fhd >> 6
        single = (fhd >> 5) & 1
        checksum = (fhd >> 2) & 1
        did_size = [0, 1, 2, 4][fhd & 3]
        if (fhd >> 3) & 1:  # reserved bit
            break
        if not single:
            p += 1  # window descriptor
        p += did_size
        fcs_size = [1 if single else 0, 2, 4, 8][fcs_flag]
        if p + fcs_size > n:
            break
        csize = None
        if fcs_size:
            csize = int.from_bytes(data[p:p + fcs_size], 'little')
            if fcs_size == 2:
                csize += 256
        p += fcs_size
        ok = False
        while p + 3 <= n:
            bh = int.from_bytes(data[p:p + 3], 'little')
            last, btype, bsize = bh & 1, (bh >> 1) & 3, bh >> 3
            if btype == 3:
                break
            p += 3 + (1 if btype == 1 else bsize)
            if p > n:
                break
            if last:
                ok = True
                break
        if not ok:
            break
        if checksum:
            p += 4
        if p > n:
            break
        frames.append((i, p, csize))
        i = p
    return frames, n - i


def zstd_decompress(blob):
    r = subprocess.run(['zstd', '-dc', '-q'], input=blob, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise TraceError('zstd -dc failed: ' + r.stderr.decode(errors='replace').strip())
    return r.stdout


def decompress_frames(data):
    frames, trailing = split_zstd_frames(data)
    if not frames:
        raise TraceError('no zstd frame')
    out = []
    # one zstd run for all frames when every header pledges its size (the writer's case)
    if all(f[2] is not None for f in frames):
        whole = zstd_decompress(data[frames[0][0]:frames[-1][1]])
        if len(whole) == sum(f[2] for f in frames):
            pos = 0
            for f in frames:
                out.append(whole[pos:pos + f[2]])
                pos += f[2]
            return out, trailing
    for s, e, _ in frames:  # else frame by frame
        out.append(zstd_decompress(data[s:e]))
    return out, trailing

# ---------------------------------------------------------------- byte readers


class Buf:
    __slots__ = ('b', 'p', 'name')

    def __init__(self, b, name='buf'):
        self.b, self.p, self.name = b, 0, name

    def at_end(self):
        return self.p >= len(self.b)

    def byte(self):
        if self.p >= len(self.b):
            raise TraceError('%s: read past end' % self.name)
        v = self.b[self.p]
        self.p += 1
        return v

    def uv(self):
        v, shift, b, p = 0, 0, self.b, self.p
        n = len(b)
        while True:
            if p >= n or shift >= 70:
                raise TraceError('%s: bad varint' % self.name)
            c = b[p]
            p += 1
            v |= (c & 0x7f) << shift
            if not c & 0x80:
                self.p = p
                return v & 0xFFFFFFFFFFFFFFFF
            shift += 7

    def sv(self):
        u = self.uv()
        return (u >> 1) ^ -(u & 1)

    def bytes_(self, k):
        if self.p + k > len(self.b):
            raise TraceError('%s: string past end' % self.name)
        v = self.b[self.p:self.p + k]
        self.p += k
        return v

    def str_(self):
        return self.bytes_(self.uv()).decode('utf-8', errors='replace')

# ---------------------------------------------------------------- address model (spec)

AM_RECENT, AM_FREED, AM_CLASSES, ACODE_MISS = 16, 8, 128, 0xff
M64 = 0xFFFFFFFFFFFFFFFF


def am_class(size):
    if size >= (AM_CLASSES - 1) * 16:
        return AM_CLASSES - 1
    c = (size + 8 + 15) & ~15
    c = (32 if c < 32 else c) >> 4
    return AM_CLASSES - 1 if c > AM_CLASSES - 1 else c


class AModel:
    """The spec's model with plain lists, newest first (the header's rings are an encoding of
    the same lists)."""

    def __init__(self):
        self.recent = []  # [(addr, cls)], newest first, at most AM_RECENT
        self.freed = {}   # cls -> [addr], newest first, at most AM_FREED
        self.esc_rel = 0
        self.esc_next = 0

    def release(self, code, addrs):
        if code == ACODE_MISS:
            self.esc_rel = (self.esc_rel + addrs.sv()) & M64
            return self.esc_rel
        if code >= len(self.recent):
            raise TraceError('release code %d with %d recent' % (code, len(self.recent)))
        a, c = self.recent.pop(code)
        fl = self.freed.setdefault(c, [])
        fl.insert(0, a)
        del fl[AM_FREED:]
        return a

    def alloc(self, code, addrs, size):
        c = am_class(size)
        if code == ACODE_MISS:
            a = (self.esc_next + addrs.sv()) & M64
            self.esc_next = (a + 16 * c) & M64
        else:
            fl = self.freed.get(c, [])
            if code >= len(fl):
                raise TraceError('alloc code %d with %d freed in class %d' % (code, len(fl), c))
            a = fl.pop(code)
        self.recent.insert(0, (a, c))
        del self.recent[AM_RECENT:]
        return a

# ---------------------------------------------------------------- decoding

T_FRAME, T_THREAD, T_SYNC, T_END, T_LOST, T_THREAD_NAME = 1, 2, 3, 4, 5, 6
T_THREAD_EXIT = 7  # format version 4
T_WAITED = 8  # format version 7: the program's threads' waits for the tracer (not replayed)
T_LIMIT = 9  # format version 8: when one of the tracer's tables filled (not replayed)
T_ALLOC, T_FREE, T_REALLOC, T_MMAP, T_MUNMAP, T_MREMAP, T_RSS, T_RSS_DETAIL = range(0x10, 0x18)
T_MPROTECT = 0x18  # format version 5
T_STACK, T_MODULE, T_PHASE_DEF, T_PHASE, T_NOTE = 0x20, 0x21, 0x22, 0x23, 0x24
T_CUDA_ALLOC, T_CUDA_FREE, T_CUDA_DEVICE, T_AGG = 0x28, 0x29, 0x2a, 0x30
T_CUDA_MAP, T_CUDA_UNMAP = 0x2b, 0x2c  # format version 4
FN_SAMPLED = 0x80
MAP_ANON = 0x1
PROT_RW = 3  # PROT_READ | PROT_WRITE
NSTREAMS = 11
(S_ROW, S_TS_LO, S_TS_HI, S_TSF_LO, S_TSF_HI, S_SIZE_LO, S_SIZE_HI, S_ACODE, S_ADDR, S_META,
 S_ESC) = range(NSTREAMS)

# event tuples appended to a thread's list (program order):
#   ('A', ts, addr, size, phase, sampled)   ('F', ts, addr)
#   ('R', ts, old, dafter, new, size, phase)
#   ('M', ts, addr, len, flags, prot)  ('U', ts, addr, len)  ('P', ts, addr, len, prot)
#   ('X', ts, old, old_len, new, new_len, dafter)   (dafter 0 before format version 3)
#   ('G', ts, bytes, blocks, since)     AGG (since: format version 6, else 0)


class Trace:
    def __init__(self):
        self.header = {}
        self.version = None
        self.counts = dict(alloc=0, free=0, realloc=0, mmap=0, munmap=0, mremap=0, mprotect=0,
                           rss=0, rss_detail=0, cuda_alloc=0, cuda_free=0, agg=0)
        self.threads = {}  # tid -> [events]
        self.phase_names = {}
        self.end = None
        self.lost = 0
        self.limits = []  # LIMIT records: (ts, kind), in file order
        self.frames = 0
        self.trailing = 0
        self.last_ts = 0
        self.syncs = []  # horizons, in file order
        self.cuts = []   # (h_(k-1), {tid: events read}) at each SYNC(h_k), for --stream
        self.records = []  # for --records: the fields of MMAP and CUDA_ALLOC records, in file order
        self.sync_violations = 0  # events read after SYNC(h_k) with ts < h_(k-1)
        self.early_exits = 0  # THREAD_EXITs stamped before the end of their thread's last event
        self.first_violation = None
        self.stacks_of = {}  # stack id -> ALLOC records of allocs_size bytes
        self.stacks = {}  # stack id -> its frames (STACK records)
        self.allocs_size = None


def parse_header(b, tr):
    if b[:8] != b'CUZKTRC\0':
        raise TraceError('bad magic')
    tr.version = int.from_bytes(b[8:10], 'little')
    if tr.version not in (1, 2, 3, 4, 5, 6, 7, 8):
        raise TraceError('unsupported format version %d' % tr.version)
    r = Buf(b, 'header')
    r.p = 10
    while True:
        k = r.str_()
        if not k:
            break
        tr.header[k] = r.str_()


def check_sync(tr, ts, fidx, what):
    """The streaming contract: an event read after SYNC(h_k) has ts >= h_(k-1)."""
    if len(tr.syncs) >= 2 and ts < tr.syncs[-2]:
        tr.sync_violations += 1
        if tr.first_violation is None:
            tr.first_violation = '%s ts %d in frame %d after SYNC horizons %d, %d' % (
                what, ts, fidx, tr.syncs[-2], tr.syncs[-1])


def parse_frame(b, tr, fidx):
    v2 = tr.version >= 2
    top = Buf(b, 'frame %d' % fidx)
    if v2:
        ns = top.uv()
        if ns != NSTREAMS:
            raise TraceError('frame %d: %d streams' % (fidx, ns))
        lens = [top.uv() for _ in range(ns)]
        pos = top.p
        st = []
        for k, ln in enumerate(lens):
            st.append(Buf(b[pos:pos + ln], 'frame %d stream %d' % (fidx, k)))
            pos += ln
        if pos != len(b):
            raise TraceError('frame %d: streams cover %d of %d bytes' % (fidx, pos, len(b)))
        row = st[S_ROW]
    else:
        st = None
        row = top

    c = tr.counts
    base_ts = 0
    prev_ts = 0
    prev_addr = 0
    am = AModel()
    ev = None  # the current thread's event list
    first = True

    def plane(lo, hi, signed):
        v = st[lo].byte() | (st[hi].byte() << 8)
        if v == 0xffff:
            return ('e', st[S_ESC].sv() if signed else st[S_ESC].uv())
        return ('v', v)

    while not row.at_end():
        tag = row.byte()
        if first and tag != T_FRAME:
            raise TraceError('frame %d does not start with FRAME' % fidx)
        first = False
        if tag == T_FRAME:
            row.uv()  # seq
            base_ts = row.uv()
            prev_ts = base_ts
            prev_addr = 0
            am = AModel()
            ev = None
        elif tag == T_THREAD:
            tid = row.uv()
            prev_ts = base_ts
            prev_addr = 0
            am = AModel()
            ev = tr.threads.setdefault(tid, [])
        elif tag == T_SYNC:
            tr.syncs.append(row.uv())
            if len(tr.syncs) >= 2:
                tr.cuts.append((tr.syncs[-2], {t: len(e) for t, e in tr.threads.items()}))
        elif tag == T_END:
            ts = row.uv()
            tr.end = dict(ts=ts, reason=row.uv(), events=row.uv(), lost=row.uv())
        elif tag == T_LOST:
            tr.lost += row.uv()
        elif tag == T_WAITED:
            row.uv()
            row.uv()
        elif tag == T_LIMIT:
            ts, kind = row.uv(), row.uv()
            if kind > 4:  # the reader's bound too (kind 0 says nothing)
                raise TraceError('LIMIT of an unknown kind')
            tr.limits.append((ts, kind))
        elif tag == T_THREAD_NAME:
            row.uv()
            row.uv()
            row.str_()
        elif tag == T_THREAD_EXIT:
            # the thread's end, "its last stamp": not before its last event ended (a realloc's
            # or mremap's new half is stamped dafter later)
            xts = row.uv()
            xtid = row.uv()
            xevs = tr.threads.get(xtid, [])
            if xevs:
                e = xevs[-1]
                if xts < e[1] + (e[3] if e[0] == 'R' else e[6] if e[0] == 'X' else 0):
                    tr.early_exits += 1
            # the thread's end, in its stream: a later thread of the id allocates anew
            tr.threads.setdefault(xtid, []).append(('E', xts))
        elif tag == T_ALLOC:
            c['alloc'] += 1
            if v2:
                k, v = plane(S_TS_LO, S_TS_HI, True)
                ts = prev_ts + v
                fn = st[S_META].uv()
                k, v = plane(S_SIZE_LO, S_SIZE_HI, False)
                size = v
                addr = am.alloc(st[S_ACODE].byte(), st[S_ADDR], size)
                stack = st[S_META].uv()
                phase = st[S_META].uv()
            else:
                ts = prev_ts + row.sv()
                fn = row.uv()
                prev_addr = (prev_addr + row.sv()) & M64
                addr = prev_addr
                size = row.uv()
                stack = row.uv()
                phase = row.uv()
            prev_ts = ts
            if size == tr.allocs_size:
                tr.stacks_of[stack] = tr.stacks_of.get(stack, 0) + 1
            ev.append(('A', ts, addr, size, phase, bool(fn & FN_SAMPLED)))
            check_sync(tr, ts, fidx, 'ALLOC')
        elif tag == T_FREE:
            c['free'] += 1
            if v2:
                k, v = plane(S_TSF_LO, S_TSF_HI, True)
                ts = prev_ts + v
                addr = am.release(st[S_ACODE].byte(), st[S_ADDR])
            else:
                ts = prev_ts + row.sv()
                prev_addr = (prev_addr + row.sv()) & M64
                addr = prev_addr
            prev_ts = ts
            ev.append(('F', ts, addr))
            check_sync(tr, ts, fidx, 'FREE')
        elif tag == T_REALLOC:
            c['realloc'] += 1
            if v2:
                k, v = plane(S_TS_LO, S_TS_HI, True)
                ts = prev_ts + v
                old = am.release(st[S_ACODE].byte(), st[S_ADDR])
                dafter = st[S_META].uv()
                k, v = plane(S_SIZE_LO, S_SIZE_HI, False)
                size = v
                new = am.alloc(st[S_ACODE].byte(), st[S_ADDR], size)
                st[S_META].uv()
                phase = st[S_META].uv()
            else:
                ts = prev_ts + row.sv()
                prev_addr = (prev_addr + row.sv()) & M64
                old = prev_addr
                dafter = row.uv()
                prev_addr = (prev_addr + row.sv()) & M64
                new = prev_addr
                size = row.uv()
                row.uv()
                phase = row.uv()
            prev_ts = ts
            ev.append(('R', ts, old, dafter, new, size, phase))
            check_sync(tr, ts, fidx, 'REALLOC')
        elif tag in (T_MMAP, T_MUNMAP, T_MREMAP, T_MPROTECT):
            ts = prev_ts + row.sv()
            prev_ts = ts
            prev_addr = (prev_addr + row.sv()) & M64
            addr = prev_addr
            check_sync(tr, ts, fidx, 'MMAP/MUNMAP/MREMAP/MPROTECT')
            if tag == T_MMAP:
                c['mmap'] += 1
                ln = row.uv()
                flags = row.uv()
                prot = row.uv() & 7  # the spec: PROT_READ|PROT_WRITE|PROT_EXEC, others dropped
                row.uv()
                row.uv()
                ev.append(('M', ts, addr, ln, flags, prot))
                tr.records.append('mmap %d %d %d' % (ln, flags, prot))
            elif tag == T_MUNMAP:
                c['munmap'] += 1
                ev.append(('U', ts, addr, row.uv()))
            elif tag == T_MPROTECT:
                c['mprotect'] += 1
                ln = row.uv()
                ev.append(('P', ts, addr, ln, row.uv() & 7))
            else:
                c['mremap'] += 1
                old_len = row.uv()
                prev_addr = (prev_addr + row.sv()) & M64
                new_len = row.uv()
                dafter = row.uv() if tr.version >= 3 else 0
                ev.append(('X', ts, addr, old_len, prev_addr, new_len, dafter))
        elif tag == T_RSS:
            c['rss'] += 1
            prev_ts += row.sv()
            ev.append(('S', prev_ts, row.uv()))  # its time bounds a late total's last change
        elif tag == T_RSS_DETAIL:
            c['rss_detail'] += 1
            prev_ts += row.sv()
            for _ in range(4):
                row.uv()
        elif tag == T_STACK:
            sid = row.uv()
            f, fr = 0, []
            for _ in range(row.uv()):
                f = (f + row.sv()) & M64
                fr.append(f)
            tr.stacks[sid] = tuple(fr)
        elif tag == T_MODULE:
            row.uv()
            row.uv()
            row.uv()
            row.str_()
            row.str_()
        elif tag == T_PHASE_DEF:
            pid = row.uv()
            tr.phase_names[pid] = row.str_()
        elif tag == T_PHASE:
            prev_ts += row.sv()
            row.uv()
            row.uv()
            ev.append(('H', prev_ts))  # a phase event: a late total's change is placed by them
        elif tag == T_NOTE:
            row.uv()
            row.uv()
            row.str_()
        elif tag == T_CUDA_ALLOC:
            c['cuda_alloc'] += 1
            prev_ts += row.sv()
            kind = row.uv()
            row.uv()
            prev_addr = (prev_addr + row.sv()) & M64
            size = row.uv()
            row.uv()
            row.uv()
            tr.records.append('cuda_alloc %d %d %d' % (kind, size, row.uv()))
        elif tag == T_CUDA_FREE:
            c['cuda_free'] += 1
            prev_ts += row.sv()
            row.uv()
            prev_addr = (prev_addr + row.sv()) & M64
            row.uv()
        elif tag == T_CUDA_MAP:
            prev_ts += row.sv()
            prev_addr = (prev_addr + row.sv()) & M64
            row.uv()
            row.uv()
        elif tag == T_CUDA_UNMAP:
            prev_ts += row.sv()
            prev_addr = (prev_addr + row.sv()) & M64
            row.uv()
        elif tag == T_CUDA_DEVICE:
            row.uv()
            row.str_()
            row.str_()
        elif tag == T_AGG:
            c['agg'] += 1
            ts = prev_ts + row.sv()
            prev_ts = ts
            nb, nk = row.sv(), row.sv()
            ev.append(('G', ts, nb, nk, row.uv() if tr.version >= 6 else 0))
        else:
            raise TraceError('frame %d: unknown tag 0x%02x at %d' % (fidx, tag, row.p - 1))
        if prev_ts > tr.last_ts:
            tr.last_ts = prev_ts
    if v2:
        for k in range(1, NSTREAMS):
            if not st[k].at_end():
                raise TraceError('frame %d: stream %d not consumed (%d of %d)'
                                 % (fidx, k, st[k].p, len(st[k].b)))


def load(path, allocs_size=None):
    data = open(path, 'rb').read()
    frames, trailing = decompress_frames(data)
    tr = Trace()
    tr.allocs_size = allocs_size
    tr.trailing = trailing
    parse_header(frames[0], tr)
    for i, f in enumerate(frames[1:], 1):
        parse_frame(f, tr, i)
    tr.frames = len(frames)
    return tr

# ---------------------------------------------------------------- replay


REL, ALC = 0, 1


def expand(evs, tid=None):
    """A thread's events as (ts, rank, op, ...) in its order: a REALLOC's release at ts and its
    new block at ts + dafter, a MREMAP's release at ts and new range at ts + dafter; an
    MPROTECT to protection 0 ranks as a release, to any other as an allocation. Heap events
    end in the thread (tid) and, for a release, whether it is a FREE (not a REALLOC's)."""
    out = []
    agg_ts = 0  # the thread's previous AGG: its totals changed after it
    for e in evs:
        k = e[0]
        if k == 'A':
            out.append((e[1], ALC, 'alloc', e[2], e[3], e[4], e[5], tid))
        elif k == 'F':
            out.append((e[1], REL, 'free', e[2], tid, True))
        elif k == 'R':
            out.append((e[1], REL, 'free', e[2], tid, False))
            # realloc(p, 0) returned no block: no allocation of the thread's
            out.append((e[1] + e[3], ALC, 'alloc', e[4], e[5], e[6], False, tid if e[4] else None))
        elif k == 'M':
            out.append((e[1], ALC, 'map', e[2], e[3], e[4], e[5]))
        elif k == 'P':
            out.append((e[1], REL if e[4] == 0 else ALC, 'protect', e[2], e[3], e[4]))
        elif k == 'U':
            out.append((e[1], REL, 'unmap', e[2], e[3]))
        elif k == 'X':
            # the old range goes at ts, the new one exists at ts + dafter (format version 3);
            # the attributes go from one to the other through the thread's own slot
            cell = {'new_len': e[5]}
            out.append((e[1], REL, 'remap_rel', e[2], e[3], cell))
            out.append((e[1] + e[6], ALC, 'remap_new', e[4], e[5], cell))
        elif k == 'S':
            out.append((e[1], ALC, 'sample', e[2]))
        elif k == 'H':
            out.append((e[1], ALC, 'phase'))
        elif k == 'E':
            out.append((e[1], REL, 'exit', tid))
        elif k == 'G':
            # not a release at equal ts, whatever its sign (the format lists the releases)
            out.append((e[1], ALC, 'agg', e[2], e[3], e[4], agg_ts))
            agg_ts = e[1]
    # program order, except that a REALLOC's new block exists only at ts + dafter
    out.sort(key=lambda x: x[0])  # stable
    return out


def merge(streams):
    """Across threads by ts, at equal ts releases first; each thread's order kept."""
    heap = []
    for si, s in enumerate(streams):
        if s:
            heapq.heappush(heap, (s[0][0], s[0][1], si, 0))
    while heap:
        ts, rank, si, i = heapq.heappop(heap)
        yield streams[si][i]
        if i + 1 < len(streams[si]):
            n = streams[si][i + 1]
            heapq.heappush(heap, (n[0], n[1], si, i + 1))


def merged(tr, stream=False):
    """The global order. With stream=True (a diagnostic), the order a streaming reader gets:
    at each SYNC(h_k) only the events read so far with ts < h_(k-1) are merged, so an event
    that arrives after the horizon that should have covered it is replayed late."""
    if not stream:
        yield from merge([expand(evs, tid) for tid, evs in tr.threads.items()])
        return
    done = {tid: 0 for tid in tr.threads}
    for bound, avail in tr.cuts + [(None, {t: len(e) for t, e in tr.threads.items()})]:
        batch = []
        for tid, n in avail.items():
            evs, i = tr.threads[tid], done[tid]
            j = i
            while j < n and (bound is None or evs[j][1] < bound):
                j += 1
            batch.append(expand(evs[i:j], tid))
            done[tid] = j
        yield from merge(batch)


class Maps:
    """Mapped pages: sorted disjoint [lo, hi) ranges with an anonymous flag and a protection.
    anon and file are the bytes of ranges whose protection is not 0, reserved the bytes of
    those whose protection is 0 (PROT_NONE: address space, not memory), anonymous or not."""

    def __init__(self, page):
        self.page = page
        self.r = []  # [lo, hi, anon, prot]
        self.anon = 0
        self.file = 0
        self.reserved = 0

    def _round(self, n):
        return (n + self.page - 1) // self.page * self.page

    def _count(self, n, anon, prot):
        if prot == 0:
            self.reserved += n
        elif anon:
            self.anon += n
        else:
            self.file += n

    def remove(self, lo, ln):
        """Unmaps [lo, lo + rounded ln); returns (anon, prot) of the range that held lo, or None
        when none did (an mremap of a range never seen mapped counts as anonymous read+write)."""
        hi = lo + self._round(ln)
        keep = []
        attrs = next(((an, pr) for a, b, an, pr in self.r if a <= lo < b), None)  # also for ln 0
        for a, b, an, pr in self.r:
            if b <= lo or a >= hi:
                keep.append([a, b, an, pr])
                continue
            self._count(-(min(b, hi) - max(a, lo)), an, pr)
            if a < lo:
                keep.append([a, lo, an, pr])
            if b > hi:
                keep.append([hi, b, an, pr])
        self.r = keep
        return attrs

    def pieces(self, lo, hi, holes):
        """[offset, length, anon, prot] of every part of [lo, hi): the ranges' parts, and the
        gaps between them as anonymous read+write, or (holes) left out, unless no range holds
        any part of [lo, hi): then all of it, as anonymous read+write."""
        out, at = [], lo
        for a, b, an, pr in sorted(self.r):
            if b <= lo or a >= hi:
                continue
            x, y = max(a, lo), min(b, hi)
            if x > at and not holes:
                out.append([at - lo, x - at, True, PROT_RW])
            out.append([x - lo, y - x, an, pr])
            at = y
        if at < hi and (not holes or not out):
            out.append([at - lo, hi - at, True, PROT_RW])
        return out

    def add(self, lo, ln, anon, prot):
        self.remove(lo, ln)  # a fixed mapping replaces what was there
        hi = lo + self._round(ln)
        if hi == lo:
            return
        self.r.append([lo, hi, anon, prot])
        self.r.sort()
        self._count(hi - lo, anon, prot)

    def protect(self, lo, ln, prot):
        """The mapped pages of [lo, lo + rounded ln) get protection prot; ranges are split at
        the bounds (keeping their anonymous flag), pages no range holds stay unmapped."""
        hi = lo + self._round(ln)
        out = []
        for a, b, an, pr in self.r:
            if b <= lo or a >= hi or pr == prot:
                out.append([a, b, an, pr])
                continue
            x, y = max(a, lo), min(b, hi)
            self._count(-(y - x), an, pr)
            self._count(y - x, an, prot)
            if a < x:
                out.append([a, x, an, pr])
            out.append([x, y, an, prot])
            if y < b:
                out.append([y, b, an, pr])
        self.r = out


def replay(tr, stream=False):
    page = int(tr.header.get('page_size', '4096') or 4096)
    # the coarse clock's tick: the RSS sampling period, or the flush interval when shorter or
    # when RSS is not sampled
    rss_ms = int(tr.header.get('setting.CUZKTRACE_RSS_MS', '0') or 0)  # absent: as the reader
    flush_ms = int(tr.header.get('setting.CUZKTRACE_FLUSH_MS', '100') or 100)
    tick = (rss_ms if rss_ms and rss_ms < flush_ms else flush_ms) * 1000000
    live = {}  # addr -> (size, phase, sampled)
    heap = 0
    blocks = 0
    by_phase = {}
    peak, peak_t, peak_phase = 0, None, {}
    late_net = 0  # the late totals' sum at the current peak
    flat_until = None  # the first change of the heap after the peak (None: none yet)
    phase_after = None  # the first phase event after the peak (None: none yet)

    def moved(t, nbytes):
        nonlocal flat_until
        if flat_until is None and nbytes:
            flat_until = t
    # the peak RSS sample: its bytes, time, the heap then (late totals that belong to it
    # included, as at the peak heap) and the heap by phase then
    rss_peak, rss_t, rss_heap, rss_late, rss_phase = None, None, 0, 0, {}
    # RSS sample times, kept as the reader keeps them (the spec leaves how to the reader; the
    # bound they give must agree): the latest 256 exact, and every stride-th of all since the
    # start in at most 1024, halved (every other one, from the first) when full
    recent, hist, rss_seen, stride = [], [], [0], [1]
    margin = min(tick // 2, 1000000)

    def sample_time(t):
        recent.append(t)
        if len(recent) > 256:
            recent.pop(0)
        k = rss_seen[0]
        rss_seen[0] += 1
        if k % stride[0]:
            return
        if len(hist) == 1024:
            hist[:] = hist[0::2]
            stride[0] *= 2
            if k % stride[0]:
                return
        hist.append(t)

    def first_after(v, c):
        return next((t for t in v if t > c), None)

    def tick_after(c, none):
        # the first sample after c + margin: the one that follows the tick that set c is
        # skipped; a c older than the recent samples looks in the sparser history
        c += margin
        if recent and recent[0] <= c:
            t = first_after(recent, c)
            return none if t is None else t
        t = first_after(hist, c)
        if t is not None:
            return t
        t = first_after(recent, c)
        return none if t is None else t
    sample_rate = int(tr.header.get('setting.CUZKTRACE_SAMPLE', '0') or 0)
    inconsistencies = 0
    unknown_frees = 0
    # temporaries (exact mode): a FREE of the block its thread allocated last, before that
    # thread allocated again; the block must be that thread's (live[addr][3]), and not live
    # at the peak heap: one live when the heap rose to a new peak (its own allocation
    # included) was live at the peak of then, and counts only if the heap rises again
    last_alloc = {}  # tid -> address of its latest allocation (None: freed since)
    alloc_rises = {}  # tid -> how many times the peak had risen before that allocation
    rises, at_peak = 0, 0
    temporary = 0
    maps = Maps(page)
    mpeak, mpeak_t, mpeak_anon, mpeak_file = 0, None, 0, 0
    apeak, apeak_t, fpeak, fpeak_t = 0, None, 0, None
    rpeak, rpeak_t = 0, None
    for e in merged(tr, stream):
        ts, op = e[0], e[2]
        if op == 'alloc':
            addr, size, phase, sampled = e[3], e[4], e[5], e[6]
            if addr in live:
                inconsistencies += 1
                osz, oph, osm, _ = live.pop(addr)
                if not osm:
                    moved(ts, osz)
                    heap -= osz
                    blocks -= 1
                    by_phase[oph] -= osz
            live[addr] = (size, phase, sampled, e[7])
            if e[7] is not None:
                last_alloc[e[7]] = addr
                alloc_rises[e[7]] = rises
            if not sampled:  # a sample's bytes and count are in the AGG totals already
                moved(ts, size)
                heap += size
                blocks += 1
                by_phase[phase] = by_phase.get(phase, 0) + size
        elif op == 'free':
            b = live.pop(e[3], None)
            if (e[5] and b is not None and not b[2] and b[3] == e[4] and
                    last_alloc.get(e[4]) == e[3]):
                if alloc_rises[e[4]] == rises:
                    temporary += 1
                else:
                    at_peak += 1
                last_alloc[e[4]] = None
            if b is None:
                unknown_frees += 1
            elif not b[2]:
                blocks -= 1
                moved(ts, b[0])
                heap -= b[0]
                by_phase[b[1]] -= b[0]
        elif op == 'exit':  # a later thread of this id has allocated nothing yet
            last_alloc[e[3]] = None
        elif op == 'agg':
            flat0 = flat_until  # before this record's own change
            moved(ts, e[3])
            heap += e[3]
            blocks += e[4]
            # format 6: a total sent late last changed after the thread's previous AGG (e[6]),
            # no earlier than c = ts - since and before the first RSS sample after c (the
            # coarse clock ticks right before each; c + tick without samples). A peak held from
            # then on, before this record, keeps its moment and counts it
            c = max(ts - e[5], 0)
            frm = tick_after(c, ts if rss_seen[0] else c + tick)
            # a total that grew, made in the tick or two after the peak while the heap held
            # still at it (no other change, no phase event, from the peak until frm): the top
            # it made was reached then, and it counts at the peak
            lim, aft = frm, e[6]
            if (e[3] > 0 and frm - c <= 2 * tick and peak_t is not None and peak_t < frm and
                    frm - peak_t <= 2 * tick and e[6] < frm and
                    (flat0 is None or flat0 >= frm) and (phase_after is None or phase_after >= frm)):
                lim, aft = peak_t, 0
            if e[3] and e[5] and peak and lim <= peak_t < ts and peak_t > aft:
                # the peak counts the positive part of the sum of the late totals that belong
                # to it: frees among them cancel allocations among them, in either order
                peak += max(late_net + e[3], 0) - max(late_net, 0)
                late_net += e[3]
                if max(heap, 0) == peak:
                    flat_until = flat0  # the heap and the peak moved alike
            if e[3] and e[5] and rss_t is not None and frm <= rss_t < ts and rss_t > e[6]:
                rss_heap += max(rss_late + e[3], 0) - max(rss_late, 0)
                rss_late += e[3]
        elif op == 'phase':
            phase_after = ts if phase_after is None else phase_after
        elif op == 'sample':
            sample_time(ts)
            if rss_peak is None or e[3] > rss_peak:
                rss_peak, rss_t, rss_heap, rss_late = e[3], ts, max(heap, 0), 0
                rss_phase = {k: v for k, v in by_phase.items() if v}
        elif op == 'map':
            maps.add(e[3], e[4], bool(e[5] & MAP_ANON), e[6])
        elif op == 'unmap':
            maps.remove(e[3], e[4])
        elif op == 'protect':
            maps.protect(e[3], e[4], e[5])
        elif op == 'remap_rel':
            lo, ln = e[3], maps._round(e[4])
            new_ln = maps._round(e[5]['new_len'])
            if ln:
                e[5]['pieces'] = maps.pieces(lo, lo + ln, new_ln <= ln)
                e[5]['old_len'] = ln
                maps.remove(lo, ln)
            else:  # released nothing: a copy of the new length's bytes from lo, which stay
                ps = maps.pieces(lo, lo + new_ln, True)
                e[5]['pieces'] = ps
                e[5]['old_len'] = new_ln
                # MREMAP_DONTUNMAP, or old size 0 (a second mapping of one shared area, which
                # may reach past the pieces known): pieces without a gap from lo grow to the end
                if ps and ps[0][0] == 0 and all(ps[k][0] == ps[k - 1][0] + ps[k - 1][1] for k in range(1, len(ps))):
                    e[5]['old_len'] = ps[-1][0] + ps[-1][1]
        elif op == 'remap_new':
            # each piece replaces what lies under it; under a hole the new place stays as it
            # was (the kernel moves the areas one by one)
            new, ln = e[3], maps._round(e[4])
            ps = e[5]['pieces']
            kept = [p for p in ps if p[0] < ln]
            if ln and kept:
                if kept[-1][0] + kept[-1][1] > ln or ln > e[5]['old_len']:
                    kept[-1][1] = ln - kept[-1][0]
                for off, n, anon, prot in kept:
                    maps.add(new + off, min(n, ln - off), anon, prot)
        if heap > peak:
            peak, peak_t, late_net, flat_until, phase_after = heap, ts, 0, None, None
            rises += 1
            temporary, at_peak = temporary + at_peak, 0
            peak_phase = {k: v for k, v in by_phase.items() if v}
        tot = maps.anon + maps.file
        if tot > mpeak:
            mpeak, mpeak_t, mpeak_anon, mpeak_file = tot, ts, maps.anon, maps.file
        if maps.anon > apeak:
            apeak, apeak_t = maps.anon, ts
        if maps.file > fpeak:
            fpeak, fpeak_t = maps.file, ts
        if maps.reserved > rpeak:
            rpeak, rpeak_t = maps.reserved, ts

    # late totals can show more heap at the peak RSS sample than at the replay's own top:
    # that moment is the peak heap's then
    if rss_heap > peak:
        peak, peak_t, peak_phase = rss_heap, rss_t, rss_phase

    def name(pid):
        return '(none)' if pid == 0 else tr.phase_names.get(pid, 'phase#%d' % pid)

    def secs(t):
        return None if t is None else '%.6f' % (t / 1e9)

    bp = {}
    for k, v in peak_phase.items():
        bp[name(k)] = bp.get(name(k), 0) + v
    return {
        'format_version': tr.version,
        'frames': tr.frames,
        'trailing_bytes': tr.trailing,
        'truncated': tr.end is None,
        # END's count is the total, the LOST records' included
        'lost_events': max(tr.lost, tr.end['lost']) if tr.end else tr.lost,
        'limit_records': len(tr.limits),
        'inconsistencies': inconsistencies,
        'temporary_allocations': None if sample_rate else temporary,
        'sync_violations': tr.sync_violations,
        'thread_exits_before_last_event': tr.early_exits,
        'first_sync_violation': tr.first_violation,
        'unknown_frees': unknown_frees,
        'event_counts': tr.counts,
        'peak_heap': {'bytes': peak, 't_ns': peak_t, 't_s': secs(peak_t),
                      'by_phase': dict(sorted(bp.items()))},
        'peak_mmap': {'bytes': mpeak, 't_ns': mpeak_t, 't_s': secs(mpeak_t),
                      'anon_bytes': mpeak_anon, 'file_bytes': mpeak_file},
        'peak_mmap_anon': {'bytes': apeak, 't_s': secs(apeak_t)},
        'peak_mmap_file': {'bytes': fpeak, 't_s': secs(fpeak_t)},
        'peak_reserved': {'bytes': rpeak, 't_s': secs(rpeak_t)},
        'live_at_exit': {'heap_bytes': heap, 'heap_blocks': blocks,
                         'mmap_bytes': maps.anon + maps.file, 'anon_mmap_bytes': maps.anon,
                         'file_mmap_bytes': maps.file, 'reserved_bytes': maps.reserved},
    }


def flat(d, prefix=''):
    for k, v in d.items():
        key = prefix + k
        if isinstance(v, dict) and k != 'by_phase':
            yield from flat(v, key + '.')
        elif k == 'by_phase':
            yield key, ' '.join('%s=%d' % kv for kv in v.items())
        else:
            yield key, 'null' if v is None else json.dumps(v) if isinstance(v, bool) else v


def main(argv):
    args = [a for a in argv[1:] if not a.startswith('--')]
    if len(args) != 1:
        sys.stderr.write('usage: oracle.py [--flat] [--stream] [--records] [--stacks-of=N] TRACE.zst\n')
        return 2
    size = [int(a.split('=', 1)[1]) for a in argv[1:] if a.startswith('--stacks-of=')]
    try:
        tr = load(args[0], size[0] if size else None)
        if size:
            for stack, n in sorted(tr.stacks_of.items()):
                print(stack, n)
            return 0
        if '--records' in argv:
            for r in tr.records:
                print(r)
            return 0
        res = replay(tr, '--stream' in argv)
    except (TraceError, OSError) as e:
        sys.stderr.write('oracle: %s: %s\n' % (args[0], e))
        return 1
    if '--flat' in argv:
        for k, v in flat(res):
            print(k, v)
    else:
        print(json.dumps(res, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
