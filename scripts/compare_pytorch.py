#!/usr/bin/env python3
"""Side by side: the paper's own harness (its Listing 1) against dual-delta.

Both do the same work: the CPU FP16 matmul as both implementations (there is
no CUDA here, so the paper's GPU function also runs on the CPU), the f64
oracle, the maximum hybrid error, N trials of `randn(m, k).half()` and
`randn(k, n).half()`. The script prints seconds per trial for each and their
ratio.

    pip install torch numpy
    python3 scripts/compare_pytorch.py            # both shapes, default N
    python3 scripts/compare_pytorch.py --trials 20 --shapes 128x4096x128

dual-delta is run through `cargo run --release --example cpu_harness`, built
first so that compilation is not timed.
"""

import argparse
import re
import subprocess
import sys
import time

import numpy as np
import torch


# --- The paper's Listing 1, with the GPU function on the CPU ------------------

def make_listing_1(m, k, n):
    def matmul_gpu_fp16(A, B):
        """Custom implementation (on the CPU here: no CUDA)."""
        return torch.matmul(A, B)

    def matmul_cpu_fp16(A, B):
        """Reference implementation: CPU FP16 matmul."""
        return torch.matmul(A.cpu(), B.cpu())

    def matmul_oracle(A, B):
        """Oracle: FP64 matmul."""
        return torch.matmul(A.double(), B.double())

    def generate_input():
        A = torch.randn(m, k).half()
        B = torch.randn(k, n).half()
        return A, B

    def get_error(res, res_oracle):
        diff = (res.double() - res_oracle).abs()
        normalized = diff / (1 + res_oracle.abs())
        return normalized.max().item()

    return matmul_gpu_fp16, matmul_cpu_fp16, matmul_oracle, generate_input, get_error


def dual_delta_test(impl_1, impl_2, oracle, generate_input, get_error, num_tests):
    """Run Dual-Delta Testing (the paper's loop, verbatim)."""
    delta_1 = []
    delta_2 = []
    for _ in range(num_tests):
        input_data = generate_input()
        res_1 = impl_1(*input_data)
        res_2 = impl_2(*input_data)
        res_oracle = oracle(*input_data)
        delta_1.append(get_error(res_1, res_oracle))
        delta_2.append(get_error(res_2, res_oracle))
    return delta_1, delta_2


def time_paper(m, k, n, trials):
    f1, f2, oracle, gen, err = make_listing_1(m, k, n)
    dual_delta_test(f1, f2, oracle, gen, err, 2)  # warm-up
    start = time.perf_counter()
    d1, d2 = dual_delta_test(f1, f2, oracle, gen, err, trials)
    # The paper's statistics (mean and std), for a like-for-like end.
    np.mean(d1), np.std(d1), np.mean(d2), np.std(d2)
    return (time.perf_counter() - start) / trials, float(np.mean(d2))


def time_dual_delta(m, k, n, trials):
    out = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "--example", "cpu_harness", "--",
         str(m), str(k), str(n), str(trials)],
        check=True, capture_output=True, text=True,
    ).stdout
    per_trial_ms = float(re.search(r"([0-9.]+) ms per trial", out).group(1))
    mean = float(re.search(r"mean error ([0-9.e+-]+)", out).group(1))
    return per_trial_ms / 1e3, mean, out.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="128x128x128,128x4096x128")
    parser.add_argument("--trials", type=int, default=0,
                        help="trials per shape (default: 200 for K <= 512, else 30)")
    parser.add_argument("--dual-delta-trials", type=int, default=1000,
                        help="trials for dual-delta (default 1000)")
    args = parser.parse_args()

    subprocess.run(["cargo", "build", "--quiet", "--release", "--example", "cpu_harness"],
                   check=True)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}")
    for shape in args.shapes.split(","):
        m, k, n = (int(v) for v in shape.split("x"))
        trials = args.trials or (200 if k <= 512 else 30)
        paper_s, paper_mean = time_paper(m, k, n, trials)
        ours_s, ours_mean, line = time_dual_delta(m, k, n, args.dual_delta_trials)
        print(f"{m}x{k}x{n}:")
        print(f"  paper's harness (PyTorch CPU): {paper_s * 1e3:9.3f} ms per trial "
              f"over {trials} trials, mean CPU error {paper_mean:.6e}")
        print(f"  dual-delta:                    {ours_s * 1e3:9.3f} ms per trial "
              f"over {args.dual_delta_trials} trials, mean CPU error {ours_mean:.6e}")
        print(f"  ratio: dual-delta is {paper_s / ours_s:.1f}x faster per trial")
        print(f"  ({line})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
