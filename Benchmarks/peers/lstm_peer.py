#!/usr/bin/env python3
"""PyTorch peer of Benchmarks/Benchmarks/LSTM: same workloads, one thread; prints ours, peer, ratio.

Setup (once):  python3 -m venv Benchmarks/.venv-peers && Benchmarks/.venv-peers/bin/pip install torch numpy
Run:           Benchmarks/.venv-peers/bin/python Benchmarks/peers/lstm_peer.py
               (add --skip-swift to time PyTorch only)

Workloads (match LSTM.swift):
- training: series of 6 channels x 100 steps, nn.LSTM(6, 64) + nn.Linear(64, 4) on the last hidden
  state, cross-entropy, Adam (lr 0.005), batch 16; time per sample = median batch time / 16.
  Ours: median of "LSTM train 128 samples" (64 series x 2 epochs, including model setup) / 128.
- streaming: nn.LSTMCell(6, 64) + Linear + softmax on one frame under no_grad; time per step.
  Ours: median of "LSTM stream 1000 steps" / 1000.
"""
import os
import statistics
import sys
import time

import torch

from ordo_table import run_medians

torch.set_num_threads(1)
torch.manual_seed(0)


def torch_train_per_sample(batches=40, warmup=5):
    lstm = torch.nn.LSTM(6, 64, batch_first=True)
    head = torch.nn.Linear(64, 4)
    params = list(lstm.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=0.005)
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.randn(16, 100, 6)
    y = torch.randint(0, 4, (16,))
    times = []
    for i in range(warmup + batches):
        t0 = time.perf_counter()
        out, _ = lstm(x)
        loss = loss_fn(head(out[:, -1, :]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t1 = time.perf_counter()
        if i >= warmup:
            times.append(t1 - t0)
    return statistics.median(times) / 16


def torch_stream_per_step(rounds=30, steps=1000):
    cell = torch.nn.LSTMCell(6, 64)
    head = torch.nn.Linear(64, 4)
    frames = torch.randn(steps, 1, 6)
    times = []
    with torch.no_grad():
        h = torch.zeros(1, 64)
        c = torch.zeros(1, 64)
        for r in range(rounds + 2):
            t0 = time.perf_counter()
            for f in range(steps):
                h, c = cell(frames[f], (h, c))
                p = torch.softmax(head(h), dim=1)
            t1 = time.perf_counter()
            if r >= 2:
                times.append((t1 - t0) / steps)
    return statistics.median(times)


def swift_medians():
    """Runs the LSTM benchmark target (OpenBLAS on one thread) and returns ({name: median seconds}, stdout)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    medians, text = run_medians("LSTM", ("--time-units", "microseconds"), env)
    medians = {k: v for k, v in medians.items() if k.startswith("LSTM ")}
    if len(medians) < 2:
        sys.exit("could not read the benchmark table:\n" + text[-3000:])
    return medians, text


def main():
    peer_train = torch_train_per_sample()
    peer_step = torch_stream_per_step()
    print(f"PyTorch {torch.__version__}, 1 thread")
    if "--skip-swift" in sys.argv:
        print(f"train per sample  peer {peer_train * 1e6:9.1f} us")
        print(f"stream step       peer {peer_step * 1e6:9.2f} us")
        return
    medians, data = swift_medians()
    ours_train = next(v for k, v in medians.items() if "train" in k.lower()) / 128
    ours_step = next(v for k, v in medians.items() if "stream" in k.lower()) / 1000
    print(f"{'workload':<36}{'ours':>12}{'PyTorch':>12}{'ours/peer':>11}")
    print(f"{'train per sample (6x100, H64, b16)':<36}{ours_train * 1e6:10.1f}us{peer_train * 1e6:10.1f}us"
          f"{ours_train / peer_train:11.3f}")
    print(f"{'stream step (6 in, H64, softmax)':<36}{ours_step * 1e6:10.2f}us{peer_step * 1e6:10.2f}us"
          f"{ours_step / peer_step:11.3f}")


if __name__ == "__main__":
    main()
