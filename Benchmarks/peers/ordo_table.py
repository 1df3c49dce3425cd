"""Reads the medians out of an ordo-one `swift package benchmark` run, for the peer scripts."""
import os
import re
import subprocess

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECONDS = {"ns": 1e-9, "us": 1e-6, "\u03bcs": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0}


def parse_medians(text):
    """{benchmark name: median wall clock in seconds} from the benchmark tool's text tables."""
    res, name = {}, None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"\u2502 Time \(wall clock\) \(([^)]+)\)\s*\*?\s*\u2502(.*)", s)
        if m and name:
            cols = [c.strip() for c in m.group(2).split("\u2502") if c.strip()]
            res[name] = float(cols[2].replace(",", "")) * SECONDS[m.group(1)]  # p0, p25, p50
        elif s and not s.startswith(("\u2502", "\u2552", "\u255e", "\u251c", "\u2558", "=")):
            name = s
    return res


def run_medians(target, extra=(), env=None):
    """Runs one benchmark target of Benchmarks/ and returns ({name: median seconds}, its stdout)."""
    cmd = ["swift", "package", "--disable-sandbox", "benchmark", "--target", target, "--no-progress", *extra]
    out = subprocess.run(cmd, cwd=BENCH, capture_output=True, text=True, env=env)
    return parse_medians(out.stdout), out.stdout + out.stderr
