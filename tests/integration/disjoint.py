"""disjoint.py OUT N BASE: a trace of N heap blocks of 16 to 79 bytes, each from a call stack of
its own whose one frame is at BASE + 16 i, in no module: N functions "0x...", none of which a
trace written with another BASE has (as a program rebuilt in place, whose frames are
module+offset, or two builds that share no function name)."""
import sys
from rows import *
out, n, base = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
body = [bytes([FRAME]) + uv(0) + uv(0)]
for i in range(n):
    body.append(stack(i + 1, [base + 16 * i]))
body.append(bytes([THREAD]) + uv(1))
prev = 0
for i in range(n):
    a = 0x10000 + 64 * i
    body.append(alloc(1, a - prev, 16 + i % 64, i + 1))
    prev = a
body.append(bytes([SYNC]) + uv(n + 10) + bytes([END]) + uv(n + 10) + uv(0) + uv(n) + uv(0))
open(out, "wb").write(z(header()) + z(b"".join(body)))
