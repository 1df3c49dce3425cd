#!/usr/bin/env python3
"""Keeps the first (or last) K examples of each class of a per-example CSV (as `gesture convert`
writes it: session, label, channels; one session per example), to replay a gesture set as if
only K recordings per class had been made.

    gesture convert ../shared/datasets/grt/HMMTrainingData.grt hmm.csv
    scripts/cut-per-class.py hmm.csv hmm-last5.csv 5 last
    gesture evaluate hmm-last5.csv --classifier dtw --spotting-replay --seed 100 --still all
"""
import collections
import csv
import sys


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("first", "last"):
        sys.exit("usage: cut-per-class.py IN.csv OUT.csv K first|last")
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
    with open(dst, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for runs in by_label.values():
            for rs in (runs[:k] if end == "first" else runs[-k:]):
                w.writerows(rs)


if __name__ == "__main__":
    main()
