#!/usr/bin/env python3
"""Keeps the first, the last, or K seeded random examples of each class of a per-example CSV (as
`gesture convert` writes it: session, label, channels; one session per example), to replay a
gesture set as if only K recordings per class had been made.

    gesture convert ../shared/datasets/grt/HMMTrainingData.grt hmm.csv
    scripts/cut-per-class.py hmm.csv hmm-last5.csv 5 last
    scripts/cut-per-class.py hmm.csv hmm-random5.csv 5 random 2
    gesture evaluate hmm-last5.csv --classifier dtw --spotting-replay --seed 100 --still all

`random SEED` shuffles each class (labels in sorted order, one generator for all) and keeps its
first K, written class after class in that shuffled order.
"""
import collections
import csv
import random
import sys


def main():
    usage = "usage: cut-per-class.py IN.csv OUT.csv K first|last|random SEED"
    if len(sys.argv) < 5 or sys.argv[4] not in ("first", "last", "random") \
            or len(sys.argv) != (6 if sys.argv[4] == "random" else 5):
        sys.exit(usage)
    src, dst, k, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, sessions = rows[0], collections.OrderedDict()
    if header[:2] != ["session", "label"]:
        sys.exit(f"{src}: expected the columns session,label,... that `gesture convert` writes")
    for r in rows[1:]:
        sessions.setdefault(r[0], []).append(r)
    by_label = collections.OrderedDict()
    for rs in sessions.values():
        by_label.setdefault(rs[0][1], []).append(rs)
    if end == "random":
        rng = random.Random(int(sys.argv[5]))
        kept = []
        for label in sorted(by_label):
            runs = by_label[label][:]
            rng.shuffle(runs)
            kept.append(runs[:k])
    else:
        kept = [runs[:k] if end == "first" else runs[-k:] for runs in by_label.values()]
    with open(dst, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for runs in kept:
            for rs in runs:
                w.writerows(rs)


if __name__ == "__main__":
    main()
