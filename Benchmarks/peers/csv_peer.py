#!/usr/bin/env python3
"""CSV reading speed: GestureKit (`gesture info` in release) against pandas.read_csv on one file.

Generates the benchmark file (1,000,000 rows x 8 channels plus session and label columns, the same
layout Benchmarks/Benchmarks/Formats/Formats.swift generates), then times
  - pandas.read_csv(path)                     (C engine, default float parsing)
  - .build/release/gesture info --json path   (whole process: read, parse, cut segments, summarise)
median of several runs each, and prints both medians and the ratio.

Setup (once):  python3 -m venv Benchmarks/.venv-peers && Benchmarks/.venv-peers/bin/pip install pandas
               swift build -c release --product gesture
Run:           Benchmarks/.venv-peers/bin/python Benchmarks/peers/csv_peer.py [--runs 5] [--rows 1000000]
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def generate(path, rows, channels=8, seed=1):
    """Rows of `session,label,ch0..ch7`; sessions of 100,000 rows, labels change every 500 rows,
    values are random decimals with 6 digits after the point (like real sensor exports)."""
    rng = random.Random(seed)
    labels = ["rest", "walk", "wave", "", "shake"]
    with open(path, "w") as f:
        f.write("session,label," + ",".join(f"ch{c}" for c in range(channels)) + "\n")
        for i in range(rows):
            vals = ",".join(f"{rng.uniform(-20, 20):.6f}" for _ in range(channels))
            f.write(f"s{i // 100000},{labels[(i // 500) % len(labels)]},{vals}\n")


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--binary", default=os.path.join(REPO, ".build/release/gesture"))
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"build the CLI first: swift build -c release --product gesture  (missing {args.binary})")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.csv")
        generate(path, args.rows)
        size = os.path.getsize(path) / 1e6

        def pandas_read():
            df = pd.read_csv(path)
            assert len(df) == args.rows

        def ours():
            out = subprocess.run([args.binary, "info", "--json", path], check=True, capture_output=True)
            assert b'"recordingFrames":%d' % args.rows in out.stdout, out.stdout[:300]

        pandas_read(); ours()  # warm the page cache
        p_med, p_all = median_time(pandas_read, args.runs)
        g_med, g_all = median_time(ours, args.runs)
        print(f"file: {args.rows} rows x 8 channels (+session,label), {size:.1f} MB; {args.runs} runs each")
        print(f"pandas {pd.__version__} read_csv   median {p_med * 1000:8.1f} ms  runs {[round(t * 1000) for t in p_all]}")
        print(f"gesture info (release)  median {g_med * 1000:8.1f} ms  runs {[round(t * 1000) for t in g_all]}")
        print(f"ratio gesture / pandas: {g_med / p_med:.2f}  (< 1 means GestureKit is faster)")


if __name__ == "__main__":
    main()
