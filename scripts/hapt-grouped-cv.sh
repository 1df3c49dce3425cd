#!/usr/bin/env bash
# Grouped-by-user cross-validation of a pipeline spec on the HAPT raw streams, replayed as live.
#
#   scripts/hapt-grouped-cv.sh SPEC [K]
#
# The users of POOL (default: every user of the data) are dealt round-robin into K folds (default
# 21: leave one user out). Each fold trains on the other users of POOL and replays its own users
# with `gesture evaluate --stream --json`. FOLDS="u1,u2;u3,u4" gives the held-out groups instead
# (then POOL is what they train on, minus the fold). Prints each fold and the pooled figures:
# frame accuracy on the 6 basic activities (raw decisions, and decoded: after post-processing), postural-transition events (precision, recall, F1)
# and false activations per minute of null (rest or unlabelled) time.
#
# Environment (an empty TRAIN_FLAGS means none): DATA (default ../shared/datasets/hapt-raw/RawData), GESTURE (.build/release/gesture),
# POOL, FOLDS, TRAIN_FLAGS (default "--null-as rest": unlabelled gaps become the rest class that
# the spec names with "rest"), OUT (folder for the per-fold JSON; default a temporary one).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
spec=${1:?usage: hapt-grouped-cv.sh SPEC [K]}
k=${2:-21}
data=${DATA:-$here/../shared/datasets/hapt-raw/RawData}
[ -d "$data" ] || data=/work/shared/datasets/hapt-raw/RawData
gesture=${GESTURE:-$here/.build/release/gesture}
train_flags=${TRAIN_FLAGS---null-as rest}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
events=STAND_TO_SIT,SIT_TO_STAND,SIT_TO_LIE,LIE_TO_SIT,STAND_TO_LIE,LIE_TO_STAND

all_users=$(ls "$data" | sed -n 's/^acc_exp[0-9]*_\(user[0-9]*\)\.txt$/\1/p' | sort -u | paste -sd, -)
pool=${POOL:-$all_users}
if [ -n "${FOLDS:-}" ]; then
  IFS=';' read -r -a folds <<< "$FOLDS"
else
  IFS=',' read -r -a users <<< "$pool"
  folds=()
  for ((i = 0; i < k; i++)); do
    f=""
    for ((j = i; j < ${#users[@]}; j += k)); do f="$f${f:+,}${users[j]}"; done
    [ -n "$f" ] && folds+=("$f")
  done
fi

n=0
for fold in "${folds[@]}"; do
  n=$((n + 1))
  train=$(tr ',' '\n' <<< "$pool" | grep -vxF -f <(tr ',' '\n' <<< "$fold") | paste -sd, -)
  # shellcheck disable=SC2086
  nice "$gesture" train "$data" --spec "$spec" $train_flags --users "$train" -o "$out/fold$n.gesture" > "$out/fold$n.train.log" 2>&1 \
    || { tail -5 "$out/fold$n.train.log" >&2; exit 1; }  # the log holds why; show it
  nice "$gesture" evaluate "$out/fold$n.gesture" "$data" --stream --users "$fold" --events "$events" --json > "$out/fold$n.json"
  echo "$fold" > "$out/fold$n.users"
done

python3 - "$out" "$n" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
basic = ["WALKING", "WALKING_UPSTAIRS", "WALKING_DOWNSTAIRS", "SITTING", "STANDING", "LAYING"]
rate = 50.0  # HAPT is 50 Hz
T = dict(bc=0, bd=0, bf=0, ev=0, ce=0, seg=0, det=0, fa=0.0, nullmin=0.0)
per = {c: [0, 0] for c in basic}
print("fold  users                               basicAcc  decoded  evP    evR    evF1   FA/min")
for i in range(1, n + 1):
    r = json.load(open(f"{out}/fold{i}.json"))
    users = open(f"{out}/fold{i}.users").read().strip()
    pc = r["perClass"]
    bc = sum(pc[c]["correctFrames"] for c in basic if c in pc)
    bd = sum(pc[c].get("correctDecodedFrames", 0) for c in basic if c in pc)
    bf = sum(pc[c]["frames"] for c in basic if c in pc)
    for c in basic:
        if c in pc: per[c][0] += pc[c]["correctFrames"]; per[c][1] += pc[c]["frames"]
    trans = [c for c in pc if c not in basic]
    ce = sum(pc[c]["correctEvents"] for c in trans); ev = r["events"]
    det = sum(pc[c]["detected"] for c in trans); seg = sum(pc[c]["segments"] for c in trans)
    nullmin = (r["frames"] - sum(v["frames"] for v in pc.values())) / rate / 60
    fa = r["falseActivationsPerMinute"] * nullmin
    for key, v in dict(bc=bc, bd=bd, bf=bf, ev=ev, ce=ce, seg=seg, det=det, fa=fa, nullmin=nullmin).items(): T[key] += v
    p = ce / ev if ev else 0; rc = det / seg if seg else 0
    f1 = 2 * p * rc / (p + rc) if p + rc else 0
    print(f"{i:<5} {users:<35} {bc / max(bf, 1):.3f}     {bd / max(bf, 1):.3f}    {p:.3f}  {rc:.3f}  {f1:.3f}  {fa / nullmin if nullmin else 0:.2f}")
p = T["ce"] / T["ev"] if T["ev"] else 0; rc = T["det"] / T["seg"] if T["seg"] else 0
f1 = 2 * p * rc / (p + rc) if p + rc else 0
print(f"pooled: basic frame accuracy {T['bc'] / max(T['bf'], 1):.3f} (decoded {T['bd'] / max(T['bf'], 1):.3f}; "
      + ", ".join(f"{c} {a / max(b, 1):.2f}" for c, (a, b) in per.items())
      + f"); transition events precision {p:.3f} recall {rc:.3f} F1 {f1:.3f}; "
      + f"false activations {T['fa'] / T['nullmin'] if T['nullmin'] else 0:.2f}/min of null time ({T['nullmin']:.1f} min)")
PY
echo "per-fold files: $out"
