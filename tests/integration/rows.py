"""rows.py: hand-made traces for the reader's tests, in format version 1 rows (see
include/ckt_format.h): varints, the few tags the tests use, and zstd frames by the zstd CLI."""
import subprocess

FRAME, THREAD, SYNC, END, ALLOC, RSS = 1, 2, 3, 4, 0x10, 0x16
MMAP, MUNMAP, MREMAP, MPROTECT = 0x13, 0x14, 0x15, 0x18
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


def header(*kv, version=1, page_size=b"4096"):
    """frame 0: magic, version (rows: 1; a version 2+ frame needs the stream directory, see
    row_frame), page_size (None: no such key) and the given key/value pairs"""
    ps = ((b"page_size", page_size),) if page_size is not None else ()
    body = b"".join(s(k) + s(v) for k, v in ps + kv)
    return b"CUZKTRC\0" + version.to_bytes(2, "little") + body + uv(0)


def row_frame(row, version):
    """a data frame holding only row records: as it is in version 1, else with the version 2
    stream directory (11 streams, all but the row stream empty)"""
    return row if version < 2 else uv(11) + uv(len(row)) + uv(0) * 10 + row


class Group:
    """one thread's group of mmap-family records, with the dts/daddr delta state"""

    def __init__(self, tid, version=1):
        self.b = bytes([THREAD]) + uv(tid)
        self.ts, self.addr, self.version = 0, 0, version

    def _d(self, ts, addr):
        r = sv(ts - self.ts) + sv(addr - self.addr)
        self.ts, self.addr = ts, addr
        return r

    def mmap(self, ts, addr, ln, flags, prot):
        self.b += bytes([MMAP]) + self._d(ts, addr) + uv(ln) + uv(flags) + uv(prot) + uv(0) + uv(0)

    def munmap(self, ts, addr, ln):
        self.b += bytes([MUNMAP]) + self._d(ts, addr) + uv(ln)

    def mprotect(self, ts, addr, ln, prot):
        self.b += bytes([MPROTECT]) + self._d(ts, addr) + uv(ln) + uv(prot)

    def mremap(self, ts, old, old_len, new, new_len):
        self.b += bytes([MREMAP]) + self._d(ts, old) + uv(old_len) + sv(new - self.addr) + uv(new_len)
        self.addr = new
        if self.version >= 3:
            self.b += uv(0)  # dafter


def z(fr):
    return subprocess.run(["zstd", "-q", "-c"], input=fr, capture_output=True, check=True).stdout


def one_frame_trace(path, body, *kv):
    """a format 8 trace at path: the header (settings kv), one data frame holding body's rows
    on thread 1 from time 0, its SYNC at 100 ns and the end record at 110"""
    row = (bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + body
           + bytes([SYNC]) + uv(100) + bytes([END]) + uv(110) + uv(0) + uv(1) + uv(0))
    open(path, 'wb').write(z(header(*kv, version=8)) + z(row_frame(row, 8)))


def blocks_trace(path, fns, end_ns, *kv):
    """a version 1 trace at path of one thread whose functions fns, (frame address, [block
    sizes]) each a stack of one frame, allocate their blocks 1 MiB apart, all live at exit;
    SYNC and the end record at end_ns"""
    body = [bytes([FRAME]) + uv(0) + uv(0)]
    for sid, (addr, _) in enumerate(fns, 1):
        body.append(stack(sid, [addr]))
    body.append(bytes([THREAD]) + uv(1))
    prev, a, n = 0, 0x10000, 0
    for sid, (_, sizes) in enumerate(fns, 1):
        for size in sizes:
            body.append(alloc(1, a - prev, size, sid))
            prev, a, n = a, a + 0x100000, n + 1
    body.append(bytes([SYNC]) + uv(end_ns) + bytes([END]) + uv(end_ns) + uv(0) + uv(n) + uv(0))
    open(path, "wb").write(z(header(*kv)) + z(b"".join(body)))


def zframes(data):
    """the zstd frames of a file, each as its bytes (RFC 8878: frame header, blocks, checksum)"""
    out, i = [], 0
    while i < len(data):
        start = i
        assert data[i:i + 4] == b"\x28\xb5\x2f\xfd", "not a zstd frame at %d" % i
        fhd = data[i + 4]
        single, checksum, dict_flag, fcs_flag = fhd >> 5 & 1, fhd >> 2 & 1, fhd & 3, fhd >> 6
        i += 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
        i += (1 if single else 0, 2, 4, 8)[fcs_flag]
        while True:
            bh = int.from_bytes(data[i:i + 3], "little")
            i += 3 + (1 if (bh >> 1 & 3) == 1 else bh >> 3)  # an RLE block holds one byte
            if bh & 1:
                break
        i += 4 if checksum else 0
        out.append(data[start:i])
    return out
