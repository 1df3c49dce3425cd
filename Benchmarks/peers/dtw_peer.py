#!/usr/bin/env python3
"""DTW and kNN workloads in the Python peers, next to GestureKit's own benchmarks, in one job.

Makes Benchmarks/.venv-peers (pip: dtaidistance, aeon, which brings scikit-learn), times the same
workloads as Benchmarks/Benchmarks/DTW and KNN, runs `swift package benchmark` for those targets,
and prints our median, the peer's median and the ratio (peer / ours; > 1 means we are faster).

Workloads (medians; the machine's other load shows up in both sides alike):
  1. one DTW distance, two 6-channel series of 100 frames, full window
     peers: dtaidistance dtw_ndim.distance_fast (C kernel), aeon dtw_distance (numba)
  2. 1-NN DTW classification of the 40 BasicMotions test series against the 40 training series,
     full window, dependent: aeon KNeighborsTimeSeriesClassifier(distance="dtw") predict;
     dtaidistance: 40 x 40 distance_fast calls
  3. DTW "training" on GRT DTWTrainingData (z-normalise, resample to 50, band 5 samples,
     leave-one-out nearest same-class distances for null rejection): dtaidistance
     dtw_ndim.distance_matrix_fast within each class (aeon's classifier fit only stores the data)
  4. kNN on acc-orientation (1526 x 3, k = 10): scikit-learn KNeighborsClassifier, one vector per
     predict call, and the whole set in one call (per vector)

Usage: python3 Benchmarks/peers/dtw_peer.py [--skip-ours] [--repeat N]
"""
import argparse
import os
import subprocess
import sys
import time

from ordo_table import run_medians

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
DATA = os.path.join(os.path.dirname(REPO), "shared", "datasets")
VENV = os.path.join(BENCH, ".venv-peers")


def ensure_venv():
    """Re-executes this script inside the peers' venv, creating it first when missing."""
    py = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    subprocess.check_call([py, "-m", "pip", "install", "-q", "dtaidistance", "aeon"])
    os.execv(py, [py] + sys.argv)


def median_ns(fn, repeat, inner=1):
    samples = []
    for _ in range(repeat):
        t = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter_ns() - t) / inner)
    samples.sort()
    return samples[len(samples) // 2]


def load_ts(path):
    import numpy as np
    xs, ys, data = [], [], False
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not data:
            data = line.lower() == "@data"
            continue
        *dims, label = line.split(":")
        xs.append([[float(v) for v in d.split(",")] for d in dims])
        ys.append(label)
    return np.array(xs), np.array(ys)  # (n, channels, length)


def load_grt_series(path):
    import numpy as np
    tok = open(path).read().split()
    dims = int(tok[tok.index("NumDimensions:") + 1])
    i = tok.index("LabelledTimeSeriesTrainingData:") + 1
    xs, ys = [], []
    while i < len(tok):
        label, n = tok[i + 2], int(tok[i + 4])
        i += 6
        xs.append(np.array([float(v) for v in tok[i:i + n * dims]]).reshape(n, dims))
        ys.append(label)
        i += n * dims
    return xs, ys


def load_grt_vectors(path):
    import numpy as np
    tok = open(path).read().split()
    dims = int(tok[tok.index("NumDimensions:") + 1])
    key = "LabelledTrainingData:" if "LabelledTrainingData:" in tok else "Data:"
    rest = tok[tok.index(key) + 1:]
    rows = np.array([float(v) for v in rest]).reshape(-1, dims + 1)
    return rows[:, 1:], rows[:, 0].astype(int)


def peers(repeat):
    import numpy as np
    from dtaidistance import dtw_ndim
    from aeon.distances import dtw_distance
    from aeon.classification.distance_based import KNeighborsTimeSeriesClassifier
    from sklearn.neighbors import KNeighborsClassifier
    out = {}
    rng = np.random.default_rng(1)

    # 1. one distance
    a, b = rng.standard_normal((100, 6)), rng.standard_normal((100, 6))
    dtw_ndim.distance_fast(a, b)
    out["dist_dtaidistance"] = median_ns(lambda: dtw_ndim.distance_fast(a, b), repeat * 20, 10)
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    dtw_distance(at, bt)  # numba compile
    out["dist_aeon"] = median_ns(lambda: dtw_distance(at, bt), repeat * 20, 10)

    # 2. 1-NN BasicMotions
    xtr, ytr = load_ts(os.path.join(DATA, "basicmotions/BasicMotions_TRAIN.ts"))
    xte, yte = load_ts(os.path.join(DATA, "basicmotions/BasicMotions_TEST.ts"))
    knn = KNeighborsTimeSeriesClassifier(distance="dtw", n_neighbors=1).fit(xtr, ytr)
    acc = (knn.predict(xte) == yte).mean()
    out["nn_aeon"] = median_ns(lambda: knn.predict(xte), max(3, repeat // 2))
    out["nn_aeon_accuracy"] = acc
    trs = [np.ascontiguousarray(x.T) for x in xtr]
    tes = [np.ascontiguousarray(x.T) for x in xte]

    def nn_dtai():
        return [ytr[int(np.argmin([dtw_ndim.distance_fast(q, t) for t in trs]))] for q in tes]
    out["nn_dtai_accuracy"] = float(np.mean(np.array(nn_dtai()) == yte))
    out["nn_dtaidistance"] = median_ns(nn_dtai, max(3, repeat // 2))

    # 3. training on DTWTrainingData (letters configuration)
    xs, ys = load_grt_series(os.path.join(DATA, "grt/DTWTrainingData.grt"))

    def prepare(x):
        t = np.linspace(0, len(x) - 1, 50)
        r = np.stack([np.interp(t, np.arange(len(x)), x[:, c]) for c in range(x.shape[1])], axis=1)
        sd = r.std(axis=0)
        return np.ascontiguousarray((r - r.mean(axis=0)) / np.where(sd > 1e-8, sd, np.inf))

    def train():
        prepared = [prepare(x) for x in xs]
        stats = {}
        for c in sorted(set(ys)):
            members = [p for p, y in zip(prepared, ys) if y == c]
            d = dtw_ndim.distance_matrix_fast(members, window=6)  # |i - j| <= 5
            np.fill_diagonal(d, np.inf)
            loo = d.min(axis=1) ** 2  # dtaidistance returns the square root
            stats[c] = (loo.mean(), loo.std())
        return stats
    train()
    out["train_dtaidistance"] = median_ns(train, repeat)

    # 4. kNN acc-orientation
    x, y = load_grt_vectors(os.path.join(DATA, "grt/acc-orientation.grt"))
    clf = KNeighborsClassifier(n_neighbors=10).fit(x, y)
    idx = iter(range(10 ** 9))
    out["knn_sklearn_single"] = median_ns(lambda: clf.predict(x[next(idx) % len(x)][None, :]), repeat * 20)
    out["knn_sklearn_batch_per_vector"] = median_ns(lambda: clf.predict(x), max(3, repeat // 2)) / len(x)
    return out


def fmt(ns):
    return f"{ns / 1e3:10.2f} us" if ns < 1e6 else f"{ns / 1e6:10.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--repeat", type=int, default=21)
    args = ap.parse_args()
    ensure_venv()
    p = peers(args.repeat)
    o = {}
    if not args.skip_ours:
        for target in ("DTW", "KNN"):
            o.update({k: v * 1e9 for k, v in run_medians(target)[0].items()})
    rows = [
        ("one DTW distance 6ch x 100, full", "DTW distance 6ch x 100 full window",
         [("dtaidistance distance_fast", p["dist_dtaidistance"]), ("aeon dtw_distance", p["dist_aeon"])]),
        ("1-NN BasicMotions 40 vs 40, full", "DTW 1-NN BasicMotions 40 test vs 40 train full window",
         [("aeon KNeighborsTimeSeriesClassifier", p["nn_aeon"]), ("dtaidistance 1600 x distance_fast", p["nn_dtaidistance"])]),
        ("DTW training DTWTrainingData", "DTW training DTWTrainingData (letters config)",
         [("dtaidistance distance_matrix_fast per class", p["train_dtaidistance"])]),
        ("kNN predict acc-orientation k=10 (per vector)", "kNN predict acc-orientation 1526x3 k=10",
         [("scikit-learn, one vector per call", p["knn_sklearn_single"]),
          ("scikit-learn, all 1526 in one call", p["knn_sklearn_batch_per_vector"])]),
    ]
    print(f"peer accuracies: aeon 1-NN DTW BasicMotions {p['nn_aeon_accuracy']:.3f}, "
          f"dtaidistance 1-NN {p['nn_dtai_accuracy']:.3f}")
    print(f"{'workload':48} {'ours':>14} {'peer':>14} {'peer/ours':>10}  peer")
    for title, key, peer_list in rows:
        mine = o.get(key)
        for pname, pv in peer_list:
            ratio = f"{pv / mine:10.1f}" if mine else "       n/a"
            print(f"{title:48} {fmt(mine) if mine else '       n/a':>14} {fmt(pv):>14} {ratio}  {pname}")


if __name__ == "__main__":
    main()
