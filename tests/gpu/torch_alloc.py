# torch_alloc.py: PyTorch's CUDA memory under the tracer, for tests/gpu/run.sh (run when python3
# imports torch and sees a GPU). PyTorch loads a shared CUDA runtime (libcudart.so) and keeps
# device memory in its caching allocator, which asks cudaMalloc for whole segments and keeps them
# until empty_cache(); pinned host tensors come from cudaHostAlloc, rounded up to a power of two.
# So the device memory the tracer must see is torch's own count of reserved segments
# (max_memory_reserved), and the pinned peak is the 64 MiB asked for, in the load phase.
# Phases: the program prints LOAD_START/LOAD_END around the pinned buffer and GPU_START/GPU_END
# around the device work (run.sh sets CUZKTRACE_PHASES to match). Eight threads allocate on the
# device at once. Prints "expect KEY VALUE" lines, then "torch_alloc: done".
import threading

import torch

MiB = 1 << 20


def main():
    torch.cuda.init()
    torch.cuda.synchronize()
    print("LOAD_START", flush=True)
    pinned = torch.empty(64 * MiB, dtype=torch.uint8, pin_memory=True)
    pinned[0] = 1
    # given back before the device work: .item() on a CUDA tensor stages its value in a small
    # pinned block (seen: two 1-byte blocks from the threads below), which would otherwise
    # raise the pinned peak above the 64 MiB asked for, outside the load phase
    del pinned
    torch._C._host_emptyCache()  # the caching host allocator's cudaFreeHost
    print("LOAD_END", flush=True)

    print("GPU_START", flush=True)
    big = torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
    big.fill_(1)
    got = [None] * 8

    def work(i):
        t = torch.empty((32 + 2 * i) * MiB, dtype=torch.uint8, device="cuda")
        t.fill_(i)
        got[i] = int(t[-1].item())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    torch.cuda.synchronize()
    print("GPU_END", flush=True)
    if got != list(range(8)):
        raise SystemExit("torch_alloc: device work gave %s" % got)

    print("expect gpu %d" % torch.cuda.max_memory_reserved(), flush=True)
    print("expect pinned %d" % (64 * MiB), flush=True)
    del big
    torch.cuda.empty_cache()  # cudaFree of every cached segment: nothing live at exit
    torch.cuda.synchronize()
    print("expect live_gpu %d" % torch.cuda.memory_reserved(), flush=True)
    print("torch_alloc: done", flush=True)


main()
