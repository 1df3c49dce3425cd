#!/usr/bin/env python3
"""Throughput and memory of `gesture stream` fed from a pipe.

Pushes N frames (default 10,000,000) of real BasicMotions samples through `gesture stream PIPELINE`
on stdin, samples the process's resident memory (VmRSS) while it runs, and prints frames/s and the
RSS at start, at the end and its maximum. Memory must stay flat: the live recogniser keeps no history.

usage: stream_throughput.py PIPELINE [--frames N] [--gesture PATH]
"""
import argparse, os, subprocess, sys, threading, time

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))


def block_of_frames():
    ts = os.path.join(repo, "datasets", "basicmotions", "BasicMotions_TEST.ts")
    rows = []
    with open(ts) as f:
        data = f.read().split("@data\n", 1)[1].strip().split("\n")
    for line in data:
        dims = [d.split(",") for d in line.split(":")[:6]]
        rows += [",".join(d[i] for d in dims) for i in range(len(dims[0]))]
    return rows


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pipeline")
    ap.add_argument("--frames", type=int, default=10_000_000)
    ap.add_argument("--gesture", default=os.path.join(repo, ".build", "release", "gesture"))
    args = ap.parse_args()

    rows = block_of_frames()
    block = ("\n".join(rows) + "\n").encode()
    proc = subprocess.Popen([args.gesture, "stream", args.pipeline], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples = []

    def sample():
        while proc.poll() is None:
            r = rss_kib(proc.pid)
            if r:
                samples.append((time.time(), r))
            time.sleep(0.1)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    start = time.time()
    sent = 0
    try:
        while sent + len(rows) <= args.frames:
            proc.stdin.write(block)
            sent += len(rows)
        rest = args.frames - sent
        if rest:
            proc.stdin.write(("\n".join(rows[:rest]) + "\n").encode())
            sent += rest
        proc.stdin.close()
    except BrokenPipeError:
        pass
    err = proc.stderr.read().decode()
    proc.wait()
    elapsed = time.time() - start
    t.join(timeout=1)
    summary = [l for l in err.splitlines() if "frames," in l]
    print(f"frames sent        {sent}")
    print(f"gesture summary    {summary[-1] if summary else err.strip()}")
    print(f"wall time          {elapsed:.2f} s  ({sent / elapsed:,.0f} frames/s including the Python writer)")
    if samples:
        rss = [r for _, r in samples]
        warm = [r for t0, r in samples if t0 - samples[0][0] >= 1.0] or [r for _, r in samples]
        rss = warm
        n = len(rss)
        print(f"RSS after 1 s / end / max   {rss[0] / 1024:.1f} / {rss[-1] / 1024:.1f} / {max(rss) / 1024:.1f} MiB "
              f"({n} samples)")
        print("RSS at 10%, 25%, 50%, 75%, 100% of the run: " +
              " ".join(f"{rss[min(n - 1, int(q * n))] / 1024:.1f}" for q in (0.1, 0.25, 0.5, 0.75, 1.0)) + " MiB")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
