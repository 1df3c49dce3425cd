#!/usr/bin/env python3
"""How many gestures of a class never learned could any threshold reject, at best, on a set?

For each class U left out: every learned example's leave-one-out nearest neighbour among the
learned examples (whole-example DTW on raw frames, squared Euclidean frame cost, as the spotter's
SPRING), its log distance scaled by that neighbour class's own mean and spread; every example of U
scaled the same against its nearest learned example. A threshold that keeps KEEP of the learned
examples rejects the printed share of U. This is an oracle at the true boundaries (the threshold is
chosen on the answer), so a spotter cannot beat it: it bounds the suite's "unlearned rejected" row
for a given share of learned gestures kept.

    scripts/unlearned-ceiling.py [--minirocket] ../shared/datasets/racketsports/RacketSports_TRAIN.ts [KEEP ...]

KEEP defaults to 0.85 (the issue's bar) and 0.95. Pure numpy: minutes for sets of short examples
(RacketSports 15 s, BasicMotions about a minute); too slow for UWave or Epilepsy.

--minirocket asks the same of another representation: MiniRocket features (aeon's
MiniRocketMultivariate, fitted on the learned classes only, each feature standardised on them),
compared by squared Euclidean distance (as the DTW version's frames). Seconds, so UWave and Epilepsy
too. Needs aeon (`python3 -m venv V && V/bin/pip install aeon`, then run the script with V/bin/python).
"""
import sys

import numpy as np


def load_ts(path):
    series, labels, data = [], [], False
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.lower().startswith("@data"):
                data = True
                continue
            if not data:
                continue
            *channels, label = line.split(":")
            series.append(np.stack([np.array([float(v) for v in c.split(",")]) for c in channels], 1))
            labels.append(label)
    return series, np.array(labels)


def dtw(a, b):
    cost = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)
    n, m = cost.shape
    d = np.full((n + 1, m + 1), np.inf)
    d[0, 0] = 0
    for i in range(1, n + 1):
        row, prev = d[i], d[i - 1]
        for j in range(1, m + 1):
            row[j] = cost[i - 1, j - 1] + min(prev[j], row[j - 1], prev[j - 1])
    return d[n, m]


def minirocket_distances(series, learned):
    from aeon.transformations.collection.convolution_based import MiniRocket

    length = max(len(s) for s in series)
    # aeon wants equal lengths: shorter examples padded with their last frame (held, as in the replays).
    x = np.stack([np.concatenate([s, np.repeat(s[-1:], length - len(s), 0)]).T for s in series]).astype(np.float32)
    rocket = MiniRocket(random_state=0).fit(x[learned])
    f = np.asarray(rocket.transform(x), dtype=np.float64)
    mean, std = f[learned].mean(0), f[learned].std(0) + 1e-6
    f = (f - mean) / std
    sq = (f ** 2).sum(1)
    return np.maximum(sq[:, None] + sq[None, :] - 2 * f @ f.T, 0)


def main():
    args = sys.argv[1:]
    use_minirocket = "--minirocket" in args
    args = [a for a in args if a != "--minirocket"]
    if not args:
        sys.exit(__doc__)
    series, labels = load_ts(args[0])
    keeps = [float(k) for k in args[1:]] or [0.85, 0.95]
    n = len(series)
    if not use_minirocket:
        dist = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                dist[i, j] = dist[j, i] = dtw(series[i], series[j])
    total_rejected = {k: 0.0 for k in keeps}
    for left_out in sorted(set(labels)):
        learned = np.where(labels != left_out)[0]
        unlearned = np.where(labels == left_out)[0]
        if use_minirocket:
            dist = minirocket_distances(series, learned)

        def nearest(i):
            pool = learned[learned != i]
            j = pool[np.argmin(dist[i, pool])]
            return labels[j], np.log(max(dist[i, j], 1e-12))

        own = [nearest(i) for i in learned]
        scale = {}
        for c in set(labels[learned]):
            logs = [d for (nc, d), i in zip(own, learned) if labels[i] == c and nc == c]
            scale[c] = (np.mean(logs), max(np.std(logs), 1e-6))
        z_learned = np.array([(d - scale[c][0]) / scale[c][1] for c, d in own])
        z_unlearned = np.array([(d - scale[c][0]) / scale[c][1] for c, d in map(nearest, unlearned)])
        row = []
        for k in keeps:
            share = float(np.mean(z_unlearned > np.quantile(z_learned, k)))
            total_rejected[k] += share * len(unlearned)
            row.append(f"keeping {k:.0%} of learned rejects {share:.2f}")
        print(f"{left_out} left out ({len(unlearned)}): " + "; ".join(row))
    print("all: " + "; ".join(f"keeping {k:.0%}: {total_rejected[k]:.0f} of {n} rejected" for k in keeps))


if __name__ == "__main__":
    main()
