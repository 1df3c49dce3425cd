"""What the studio's browser tests (.ci/studio-test.py, .ci/studio-plot-test.py) share: the pass and
fail log, free ports, a studio process and headless Chromium. Imported from the scripts' folder."""
import os, re, socket, subprocess, sys, threading

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTS = os.path.join(ROOT, ".ci", "studio-shots")
failures = []

def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok: failures.append(what)

def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def start_studio(binary, args):
    """Starts `gesture studio ARGS`; returns the process, its URL and its banner (up to "Ctrl-C")."""
    proc = subprocess.Popen([binary, "studio"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    banner = [proc.stdout.readline()]
    m = re.search(r"(https?://\S+)", banner[0])
    if not m:
        proc.kill(); raise SystemExit("studio did not start: " + banner[0] + proc.stderr.read())
    while "Ctrl-C" not in banner[-1] and banner[-1]: banner.append(proc.stdout.readline())
    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
    threading.Thread(target=lambda: [sys.stderr.write("studio: " + l) for l in proc.stderr], daemon=True).start()
    return proc, m.group(1), "".join(banner)

def chromium(*extra):
    """Headless Chromium at 1360 x 1000, one device pixel per CSS pixel, plus `extra` flags."""
    opts = Options()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1360,1000", *extra,
              "--force-device-scale-factor=1"]:
        opts.add_argument(a)
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    return webdriver.Chrome(options=opts, service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")))

def finish(name):
    """Prints the outcome and exits 1 if any check failed."""
    print(f"{name}: {'FAILED ' + str(len(failures)) if failures else 'all passed'}; screenshots in {SHOTS}", flush=True)
    sys.exit(1 if failures else 0)
