"""collide.py OUT N: a trace of N live heap blocks at addresses that all hash to one slot of the
reader's tables under the hash without a key (ckt_util_hash64 of key 0): each inserted block
probed past all the others, so N = 300,000 took minutes; with the per-run key they spread."""
import sys
from rows import *
K = 0x9e3779b97f4a7c15
Kinv = pow(K, -1, 1 << 64)
M = (1 << 64) - 1
n = int(sys.argv[2])
addrs = []
for i in range(1, n + 1):
    p = (0x5a5a5a << 40) | (i << 4)          # equal top 24 bits: one home slot in any table up to 2^24
    y = (p * Kinv) & M
    x = y ^ (y >> 31) ^ (y >> 62)
    addrs.append(x)
body = [bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1)]
prev = 0
for k, a in enumerate(addrs):
    d = a - prev
    if d >= 1 << 63: d -= 1 << 64
    if d < -(1 << 63): d += 1 << 64
    body.append(alloc(1, d, 16))
    prev = a
body.append(bytes([SYNC]) + uv(n + 10) + bytes([END]) + uv(n + 10) + uv(0) + uv(n) + uv(0))
open(sys.argv[1], "wb").write(z(header()) + z(b"".join(body)))
