"""rows.py: hand-made traces for the reader's tests, in format version 1 rows (see
include/ckt_format.h): varints, the few tags the tests use, and zstd frames by the zstd CLI."""
import subprocess

FRAME, THREAD, SYNC, END, ALLOC, RSS = 1, 2, 3, 4, 0x10, 0x16
STACK, MODULE, PHASE_DEF, PHASE = 0x20, 0x21, 0x22, 0x23
THREAD_NAME = 0x06


def uv(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80)
        v >>= 7
    b.append(v)
    return bytes(b)


def sv(v):
    return uv((v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1)


def s(x):
    return uv(len(x)) + x


def alloc(dts, daddr, size, stack=0, phase=0):
    return bytes([ALLOC]) + sv(dts) + uv(0) + sv(daddr) + uv(size) + uv(stack) + uv(phase)


def stack(sid, frames):
    """STACK: absolute return addresses, written as deltas"""
    prev, b = 0, bytes([STACK]) + uv(sid) + uv(len(frames))
    for f in frames:
        b += sv(f - prev)
        prev = f
    return b


def module(lo, hi, path, build_id=b""):
    return bytes([MODULE]) + uv(lo) + uv(lo) + uv(hi) + s(path) + s(build_id)


def phase_def(pid, name):
    return bytes([PHASE_DEF]) + uv(pid) + s(name)


def phase_begin(dts, pid):
    return bytes([PHASE]) + sv(dts) + uv(2) + uv(pid)


def rss(dts, nbytes):
    return bytes([RSS]) + sv(dts) + uv(nbytes)


def thread_name(ts, tid, name):
    return bytes([THREAD_NAME]) + uv(ts) + uv(tid) + s(name)


def header(*kv):
    """frame 0: magic, version 1, page_size 4096 and the given key/value pairs"""
    body = b"".join(s(k) + s(v) for k, v in ((b"page_size", b"4096"),) + kv)
    return b"CUZKTRC\0" + (1).to_bytes(2, "little") + body + uv(0)


def z(fr):
    return subprocess.run(["zstd", "-q", "-c"], input=fr, capture_output=True, check=True).stdout
