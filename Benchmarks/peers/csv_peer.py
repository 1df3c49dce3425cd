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
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import pandas as pd

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def generate(path, rows, channels=8):
    """Rows of `session,label,ch0..ch7`: sessions of 100,000 rows, labels change every 500 rows (one
    in five empty = null), values in [-20, 20] with 6 decimals from an integer hash. Byte-identical
    to generateCSV in Benchmarks/Benchmarks/Formats/Formats.swift."""
    labels = ["rest", "walk", "wave", "", "shake"]
    with open(path, "w") as f:
        f.write("session,label," + ",".join(f"ch{c}" for c in range(channels)) + "\n")
        for i in range(rows):
            cells = []
            for c in range(channels):
                h = ((i * channels + c) * 2654435761) & 0xFFFFFFFF
                v = h % 40000001 - 20000000
                a = abs(v)
                cells.append(f"{'-' if v < 0 else ''}{a // 1000000}.{a % 1000000:06d}")
            f.write(f"s{i // 100000},{labels[(i // 500) % len(labels)]},{','.join(cells)}\n")


def median_time(fn, runs, cpu):
    """Median wall time and median CPU time (user + sys) of `runs` calls."""
    times, cpus = [], []
    for _ in range(runs):
        c = cpu()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        cpus.append(cpu() - c)
    return statistics.median(times), times, statistics.median(cpus)


def own_cpu():
    return time.process_time()


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


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
        p_med, p_all, p_cpu = median_time(pandas_read, args.runs, own_cpu)
        g_med, g_all, g_cpu = median_time(ours, args.runs, children_cpu)
        print(f"file: {args.rows} rows x 8 channels (+session,label), {size:.1f} MB; {args.runs} runs each; load {os.getloadavg()[0]:.1f}")
        print(f"pandas {pd.__version__} read_csv   wall median {p_med * 1000:7.1f} ms  cpu median {p_cpu * 1000:7.1f} ms  runs {[round(t * 1000) for t in p_all]}")
        print(f"gesture info (release)  wall median {g_med * 1000:7.1f} ms  cpu median {g_cpu * 1000:7.1f} ms  runs {[round(t * 1000) for t in g_all]}")
        print(f"  (gesture info is a whole process: start-up, read, parse, cut segments, summary, JSON)")
        print(f"ratio gesture / pandas: wall {g_med / p_med:.2f}, cpu {g_cpu / p_cpu:.2f}  (< 1 means GestureKit is faster)")


if __name__ == "__main__":
    main()
