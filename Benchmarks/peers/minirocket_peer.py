#!/usr/bin/env python3
"""aeon's MiniRocket next to GestureKit's, in one job: speed on one thread and accuracy on the same folds.

Makes Benchmarks/.venv-peers (pip: aeon, which brings numba and scikit-learn), then
  1. speed, UWaveGestureLibrary TRAIN (120 x 3 x 315), 10,000 features, one thread (NUMBA_NUM_THREADS=1,
     n_jobs=1), medians after a warm-up call (numba compiles on first use):
     MiniRocket fit, MiniRocket transform of all 120, and the classifier's fit (transform + scaler +
     RidgeClassifierCV over logspace(-3, 3, 10)), against `swift package benchmark --target MiniRocket`;
  2. accuracy: stratified k-fold (scikit-learn StratifiedKFold, shuffled, seed 0) on the TRAIN splits of
     BasicMotions, UWave, Epilepsy and RacketSports; each fold is written as .ts files (the original data
     lines, unchanged) and given to both aeon's MiniRocketClassifier-equivalent pipeline and
     `gesture train FOLD_TRAIN --classifier minirocket -o P && gesture evaluate P FOLD_TEST --json`,
     so both see exactly the same folds. Pooled accuracy over all held-out examples.

  3. with --test-splits: each set's TEST split, trained on its TRAIN split (the plain commands,
     `gesture train TRAIN --classifier C -o P && gesture evaluate P TEST`, beside aeon's pipelines fitted on
     the same TRAIN), for every set whose TEST file is present: the four above (../shared has only
     BasicMotions' TEST), and the gesture sets bundled with aeon, nobody's tuning data here:
     GunPoint, PickupGestureWiimoteZ and JapaneseVowels (the last two in aeon's equal-length `_eq` files,
     since aeon's MiniRocket needs equal lengths; both sides read the same files).

Usage: python3 Benchmarks/peers/minirocket_peer.py [--skip-ours] [--skip-speed] [--skip-accuracy] [--repeat N] [--folds K]
       [--ours minirocket,dtw,auto] [--cv-seeds 0,1,2,3,4] [--test-splits]
  (accuracy also runs aeon's 1-NN DTW, dependent, 10% window, the standard baseline, on the same folds)
Needs the release CLI: swift build -c release (in the repository root), or GESTURE_BIN=path.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from ordo_table import run_medians

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
REPO = os.path.dirname(BENCH)
DATA = os.path.join(os.path.dirname(REPO), "shared", "datasets")
VENV = os.path.join(BENCH, ".venv-peers")
# GESTURE_BIN: a build under another scratch path (e.g. a worktree's .build-NAME/release/gesture).
GESTURE = os.environ.get("GESTURE_BIN", os.path.join(REPO, ".build", "release", "gesture"))

SETS = [
    ("BasicMotions", os.path.join(REPO, "datasets", "basicmotions", "BasicMotions_TRAIN.ts")),
    ("UWave", os.path.join(DATA, "uwave", "UWaveGestureLibrary_TRAIN.ts")),
    ("Epilepsy", os.path.join(DATA, "epilepsy", "Epilepsy_TRAIN.ts")),
    ("RacketSports", os.path.join(DATA, "racketsports", "RacketSports_TRAIN.ts")),
]


def ensure_venv():
    """Re-executes this script inside the peers' venv (one numba thread), creating it when missing."""
    py = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        if not os.path.exists(py):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
            subprocess.check_call([py, "-m", "pip", "install", "-q", "aeon"])
        env = dict(os.environ, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        os.execve(py, [py] + sys.argv, env)


def read_ts(path):
    """(header lines, data lines, X (n, channels, length), labels) of an equal-length .ts file."""
    import numpy as np
    header, lines, xs, ys, data = [], [], [], [], False
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not data:
            header.append(line)
            data = line.lower() == "@data"
            continue
        *dims, label = line.split(":")
        lines.append(line)
        xs.append([[float(v) for v in d.split(",")] for d in dims])
        ys.append(label)
    return header, lines, np.array(xs, dtype=np.float32), np.array(ys)


def median_s(fn, repeat):
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    samples.sort()
    return samples[len(samples) // 2]


def aeon_pipeline(seed=0):
    import numpy as np
    from aeon.transformations.collection.convolution_based import MiniRocket
    from sklearn.linear_model import RidgeClassifierCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    return make_pipeline(MiniRocket(n_kernels=10_000, n_jobs=1, random_state=seed),
                         StandardScaler(with_mean=False), RidgeClassifierCV(alphas=np.logspace(-3, 3, 10)))


def peer_speed(repeat):
    from aeon.transformations.collection.convolution_based import MiniRocket
    _, _, X, y = read_ts(SETS[1][1])
    m = MiniRocket(n_kernels=10_000, n_jobs=1, random_state=0)
    m.fit(X)
    m.transform(X)  # numba compiles here
    aeon_pipeline().fit(X, y)
    # MultiRocket's layout at 10,000 requested features: 1,250 biases each on the series and its
    # first difference, four pools each, rounded to 9,408 (ours: multiPooling with difference,
    # which rounds the same way).
    from aeon.transformations.collection.convolution_based import MultiRocket
    mr = MultiRocket(n_kernels=1_250, n_jobs=1, random_state=0)
    mr.fit(X)
    assert mr.transform(X).shape[1] == 9_408
    # The same series laid end to end (one channel of 3 x 315 frames), as `concatenate` lays them.
    E = X.reshape(X.shape[0], 1, -1)
    e = MiniRocket(n_kernels=10_000, n_jobs=1, random_state=0)
    e.fit(E)
    e.transform(E)
    return {
        "end-to-end fit": median_s(lambda: MiniRocket(n_kernels=10_000, n_jobs=1, random_state=0).fit(E), repeat),
        "end-to-end transform": median_s(lambda: e.transform(E), repeat),
        "end-to-end train": median_s(lambda: aeon_pipeline().fit(E, y), repeat),
        "multirocket transform": median_s(lambda: mr.transform(X), repeat),
        "fit": median_s(lambda: MiniRocket(n_kernels=10_000, n_jobs=1, random_state=0).fit(X), repeat),
        "transform": median_s(lambda: m.transform(X), repeat),
        "train": median_s(lambda: aeon_pipeline().fit(X, y), repeat),
    }


def aeon_dtw():
    """The standard baseline: 1-NN dependent DTW with a 10% Sakoe-Chiba window."""
    from aeon.classification.distance_based import KNeighborsTimeSeriesClassifier
    return KNeighborsTimeSeriesClassifier(n_neighbors=1, distance="dtw", distance_params={"window": 0.1})


def ours_accuracy(c, train, test, model):
    """`gesture train TRAIN (--classifier C | --spec C.json) -o MODEL`, then MODEL's accuracy on TEST."""
    how = ["--spec", c] if c.endswith(".json") else ["--classifier", c]
    subprocess.run([GESTURE, "train", train, *how, "-o", model], check=True, capture_output=True)
    r = subprocess.run([GESTURE, "evaluate", model, test, "--json"], check=True, capture_output=True, text=True)
    return json.loads(r.stdout)["accuracy"]


def accuracy(folds, ours_classifiers, cv_seeds=(0,)):
    """Pooled k-fold accuracy of aeon's MiniRocket and 1-NN DTW and of `gesture train --classifier C`
    for each C, on identical folds, per data set, pooled over the partitions of `cv_seeds` (every
    model keeps its default seed, so only the folds change): (name, n, {column: accuracy})."""
    from sklearn.model_selection import StratifiedKFold
    out = []
    for name, path in SETS:
        if not os.path.exists(path):
            continue
        header, lines, X, y = read_ts(path)
        right = {"aeon minirocket": 0, "aeon 1nn-dtw": 0}
        right.update({c: 0 for c in ours_classifiers})
        with tempfile.TemporaryDirectory() as tmp:
            splits = [(cv, k, tr, te) for cv in cv_seeds
                      for k, (tr, te) in enumerate(StratifiedKFold(folds, shuffle=True, random_state=cv).split(X, y))]
            for cv, k, tr, te in splits:
                for col, model in (("aeon minirocket", aeon_pipeline()), ("aeon 1nn-dtw", aeon_dtw())):
                    model.fit(X[tr], y[tr])
                    right[col] += int((model.predict(X[te]) == y[te]).sum())
                ftr, fte = (os.path.join(tmp, f"{name}-{cv}-{k}-{s}") for s in ("train.ts", "test.ts"))
                for f, idx in ((ftr, tr), (fte, te)):
                    with open(f, "w") as h:
                        h.write("\n".join(header + [lines[i] for i in idx]) + "\n")
                for c in ours_classifiers:
                    model = os.path.join(tmp, f"{name}-{cv}-{k}-{os.path.basename(c)}.gesture")
                    right[c] += round(ours_accuracy(c, ftr, fte, model) * len(te))
        total = len(y) * len(cv_seeds)
        out.append((name, len(y), {c: v / total for c, v in right.items()}))
        print(f"  {name}: " + ", ".join(f"{c} {v / total:.4f}" for c, v in right.items()), flush=True)
    return out


def test_splits(ours_classifiers):
    """Accuracy on TEST splits, every model trained once on the TRAIN split: (name, n, {column: accuracy})."""
    import aeon
    bundled = os.path.join(os.path.dirname(aeon.__file__), "datasets", "data")
    pairs = [(name, path, path.replace("_TRAIN.ts", "_TEST.ts")) for name, path in SETS]
    pairs += [(name, os.path.join(bundled, folder, f"{folder}{suffix}_TRAIN.ts"),
               os.path.join(bundled, folder, f"{folder}{suffix}_TEST.ts"))
              for name, folder, suffix in (("GunPoint", "GunPoint", ""),
                                           ("PickupGestureWiimoteZ", "PickupGestureWiimoteZ", "_eq"),
                                           ("JapaneseVowels", "JapaneseVowels", "_eq"))]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, train, test in pairs:
            if not (os.path.exists(train) and os.path.exists(test)):
                continue
            _, _, X, y = read_ts(train)
            _, _, Xt, yt = read_ts(test)
            acc = {}
            for col, model in (("aeon minirocket", aeon_pipeline()), ("aeon 1nn-dtw", aeon_dtw())):
                model.fit(X, y)
                acc[col] = float((model.predict(Xt) == yt).mean())
            for c in ours_classifiers:
                acc[c] = ours_accuracy(c, train, test, os.path.join(tmp, f"{name}-{os.path.basename(c)}.gesture"))
            out.append((name, len(yt), acc))
            print(f"  {name}: " + ", ".join(f"{c} {v:.4f}" for c, v in acc.items()), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--ours", default="minirocket",
                    help="comma-separated `gesture train --classifier` values or spec files (*.json) to "
                         "cross-validate (e.g. minirocket,dtw,auto)")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--test-splits", action="store_true",
                    help="also train on each TRAIN split and score its TEST split, where present")
    ap.add_argument("--cv-seeds", default="0",
                    help="comma-separated StratifiedKFold seeds; accuracy is pooled over these partitions")
    args = ap.parse_args()
    ensure_venv()
    import aeon
    if not args.skip_speed:
        p = peer_speed(args.repeat)
        o = {} if args.skip_ours else run_medians("MiniRocket")[0]
        rows = [("MiniRocket fit UWave TRAIN", "MiniRocket fit UWave TRAIN 120x3x315", p["fit"]),
                ("MiniRocket transform UWave TRAIN (120)", "MiniRocket transform UWave TRAIN 120x3x315", p["transform"]),
                ("classifier fit UWave TRAIN (transform + ridge CV)",
                 "MiniRocket pipeline train UWave TRAIN (transform + ridge LOO)", p["train"]),
                # The default of `--classifier minirocket` pools four ways per bias (MultiRocket's) on the
                # channels laid end to end (three times the frames here): more work per feature than
                # aeon's MiniRocket, listed against it for the cost of that choice.
                ("  default (multiPooling, concatenate) transform",
                 "MiniRocket transform UWave TRAIN 120x3x315 multiPooling concatenate", p["transform"]),
                ("  default classifier fit",
                 "MiniRocket pipeline train UWave TRAIN multiPooling concatenate (transform + ridge LOO)", p["train"]),
                ("  multiPooling transform", "MiniRocket transform UWave TRAIN 120x3x315 multiPooling", p["transform"]),
                ("  multiPooling classifier fit",
                 "MiniRocket pipeline train UWave TRAIN multiPooling (transform + ridge LOO)", p["train"]),
                # Like for like with the channels laid end to end: aeon's MiniRocket on the univariate
                # series of 945 frames that `concatenate` transforms (the default's layout, PPV only; the
                # default's classifier fit pools four ways, aeon's one).
                ("  concatenate fit vs aeon end to end",
                 "MiniRocket fit UWave TRAIN 120x3x315 concatenate", p["end-to-end fit"]),
                ("  concatenate transform vs aeon end to end",
                 "MiniRocket transform UWave TRAIN 120x3x315 concatenate", p["end-to-end transform"]),
                ("  default classifier fit vs aeon end to end",
                 "MiniRocket pipeline train UWave TRAIN multiPooling concatenate (transform + ridge LOO)",
                 p["end-to-end train"]),
                # Like for like: aeon's MultiRocket at the same 10,000 features and layout.
                ("  multiPooling + difference vs aeon MultiRocket",
                 "MiniRocket transform UWave TRAIN 120x3x315 multiPooling difference", p["multirocket transform"])]
        print(f"aeon {aeon.__version__}, one thread")
        print(f"{'workload':52} {'ours':>10} {'aeon':>10} {'aeon/ours':>10}")
        for title, key, peer in rows:
            mine = o.get(key)
            ratio = f"{peer / mine:10.1f}" if mine else "       n/a"
            print(f"{title:52} {f'{mine * 1e3:8.1f}ms' if mine else '       n/a':>10} {peer * 1e3:8.1f}ms {ratio}")
        for key, v in o.items():
            if key.startswith("MiniRocket live"):
                print(f"{key}: {v * 1e6:.1f} us")
    ours_classifiers = [c for c in args.ours.split(",") if c]
    cols = ["aeon minirocket", "aeon 1nn-dtw"] + ours_classifiers
    if args.test_splits:
        print("\nTEST splits, every model trained once on the TRAIN split")
        rows = test_splits(ours_classifiers)
        print(f"{'data set':22} {'n':>5} " + " ".join(f"{c:>16}" for c in cols))
        for name, n, acc in rows:
            print(f"{name:22} {n:5d} " + " ".join(f"{acc[c]:16.4f}" for c in cols))
    if not args.skip_accuracy:
        cv_seeds = [int(v) for v in args.cv_seeds.split(",") if v]
        print(f"\n{args.folds}-fold CV on TRAIN splits (StratifiedKFold seeds {args.cv_seeds}, identical folds for every column)")
        rows = accuracy(args.folds, ours_classifiers, cv_seeds)
        print(f"{'data set':14} {'n':>5} " + " ".join(f"{c:>16}" for c in cols))
        for name, n, acc in rows:
            print(f"{name:14} {n:5d} " + " ".join(f"{acc[c]:16.4f}" for c in cols))


if __name__ == "__main__":
    main()
