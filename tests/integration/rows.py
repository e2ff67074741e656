"""rows.py: hand-made traces for the reader's tests, in format version 1 rows (see
include/ckt_format.h): varints, the few tags the tests use, and zstd frames by the zstd CLI."""
import subprocess

FRAME, THREAD, SYNC, END, ALLOC = 1, 2, 3, 4, 0x10


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


def alloc(dts, daddr, size):
    return bytes([ALLOC]) + sv(dts) + uv(0) + sv(daddr) + uv(size) + uv(0) + uv(0)


def header(*kv):
    """frame 0: magic, version 1, page_size 4096 and the given key/value pairs"""
    body = b"".join(s(k) + s(v) for k, v in ((b"page_size", b"4096"),) + kv)
    return b"CUZKTRC\0" + (1).to_bytes(2, "little") + body + uv(0)


def z(fr):
    return subprocess.run(["zstd", "-q", "-c"], input=fr, capture_output=True, check=True).stdout
