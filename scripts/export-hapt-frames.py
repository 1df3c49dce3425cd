"""The first 6000 frames (2 minutes, five transitions) of HAPT user 05's first recording as CSV:
what scripts/export-check and scripts/export-weights replay through pipelines trained on users 01
and 03. Usage: python3 scripts/export-hapt-frames.py RAWDATA_DIR OUT.csv"""
import sys

raw, out = sys.argv[1], sys.argv[2]
acc = open(f"{raw}/acc_exp09_user05.txt").read().split("\n")
gyro = open(f"{raw}/gyro_exp09_user05.txt").read().split("\n")
rows = [a.split() + g.split() for a, g in zip(acc, gyro) if a.strip() and g.strip()][:6000]
with open(out, "w") as f:
    f.write("accX,accY,accZ,gyroX,gyroY,gyroZ\n")
    f.writelines(",".join(r) + "\n" for r in rows)
