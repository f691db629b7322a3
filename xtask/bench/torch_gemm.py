"""Times float32 matrix products in PyTorch for `cargo xtask bench gemm`.

Usage: torch_gemm.py THREADS M,K,N,TRANS_A,TRANS_B,REPS ...
Prints one line per case: "M K N TRANS_A TRANS_B SECONDS" (the median of REPS timed runs
after warm-up), with the same methodology as the Rust side: products written into a preallocated
output, transposed operands passed as views (no copy).
"""

import sys
import time

import torch


def time_case(m, k, n, trans_a, trans_b, reps):
    a = torch.rand(k, m) if trans_a else torch.rand(m, k)
    b = torch.rand(n, k) if trans_b else torch.rand(k, n)
    a_op = a.t() if trans_a else a
    b_op = b.t() if trans_b else b
    out = torch.empty(m, n)
    for _ in range(3):
        torch.matmul(a_op, b_op, out=out)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        torch.matmul(a_op, b_op, out=out)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def main():
    threads = int(sys.argv[1])
    torch.set_num_threads(threads)
    with torch.no_grad():
        for case in sys.argv[2:]:
            m, k, n, ta, tb, reps = (int(v) for v in case.split(","))
            secs = time_case(m, k, n, bool(ta), bool(tb), reps)
            print(m, k, n, ta, tb, f"{secs:.9f}", flush=True)


if __name__ == "__main__":
    main()
