#!/usr/bin/env python3
"""The studio's live plot draws whenever the page was opened: headless Chromium driven by Selenium.

A studio reads frames from --input udp:PORT, sent by this script as CSV datagrams. Three cases:
1. frames already flow when the page is opened: steadily at 50 frames/s (opened and reloaded three
   times, since what broke it was a draw between the page's first state message and its first
   frame, a race at a steady rate), then in bursts of 32 frames, as phones send them (the page's
   own motion path batches 32), where the page surely draws before the first burst (three times);
2. the page is opened first, and frames start after;
3. the channel count changes under an open page: the studio is restarted on the same port with 6
   channels instead of 3 after more than a screenful (1000) of frames, and the page reconnects;
   then restarted again with the same 6 channels (its frame numbers start again from 0, behind
   the ones the page last drew).
Each time the page must, within a few seconds, have a finite scale for every lane and lines of
every lane's colours painted in each lane of the canvas (read back from its pixels); a lane whose
scale became infinite or NaN (its axis labelled "NaN") paints nothing. Screenshots go to
.ci/studio-shots/plot-*.png. Exits 1 on any failure.

Usage: .ci/studio-plot-test.py GESTURE_BINARY   (runs `GESTURE_BINARY studio`; .ci/studio runs it)
"""
import math, os, re, socket, subprocess, sys, tempfile, threading, time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from studio_common import SHOTS, check, chromium, finish, free_port, start_studio

def stop_studio(proc):
    proc.terminate()
    try: proc.wait(10)
    except subprocess.TimeoutExpired: proc.kill()

class Sender:
    """CSV frames of `channels` values to udp:PORT at `rate` per second on average, `burst` at a
    time, on a thread, until stopped."""
    def __init__(self, port, channels, rate, burst=1):
        self.port, self.channels, self.rate, self.burst, self.sent = port, channels, rate, burst, 0
        self.stop_event = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.thread = threading.Thread(target=self.run, daemon=True); self.thread.start()
    def run(self):
        t0 = time.time()
        while not self.stop_event.is_set():
            i = self.sent
            # Channels apart in level and size, so every lane has a range of its own.
            values = [10 * k + (2 + k) * math.sin(i / 15 + k) for k in range(self.channels)]
            self.sock.sendto((",".join(f"{v:.4f}" for v in values) + "\n").encode(), ("127.0.0.1", self.port))
            self.sent += 1
            if self.sent % self.burst == 0:
                time.sleep(max(0, t0 + self.sent / self.rate - time.time()))
    def stop(self):
        self.stop_event.set(); self.thread.join()

# The plot as drawn: every lane's scale, and in each lane's rectangle the pixels of its line colours
# (#ff6b6b, #51cf66, #4dabf7, the page's AXES), counted from the canvas. Lane geometry as draw() has it.
PLOT_STATE = """
const st = window.studio, c = document.getElementById('plot'), x = c.getContext('2d');
const r = devicePixelRatio || 1, W = c.width, H = c.height, lanes = Math.ceil(st.channels.length / 3);
const img = x.getImageData(0, 0, W, H).data, AX = [[255,107,107],[81,207,102],[77,171,247]];
const plotH = H / r - 40 - 14, gh = lanes ? plotH / lanes : plotH;
const painted = [];
for (let k = 0; k < lanes; k++) {
  const counts = [0, 0, 0], y0 = Math.round((k * gh + 4) * r), y1 = Math.round((k * gh + gh - 6) * r);
  for (let y = y0; y < y1; y++) for (let px = Math.round(66 * r); px < W; px++) {
    const p = 4 * (y * W + px);
    for (let a = 0; a < 3; a++) {
      if (Math.abs(img[p] - AX[a][0]) + Math.abs(img[p + 1] - AX[a][1]) + Math.abs(img[p + 2] - AX[a][2]) < 60) counts[a]++;
    }
  }
  painted.push(counts);
}
return { channels: st.channels.length, last: st.last, scales: (st.scales || []).map(s => [s.lo, s.hi]), painted };
"""

def drawn(state, channels, sender=None):
    """Whether the plot shows `channels` channels: finite scales, every line of every lane painted,
    and, given the sender that is a fresh studio's only source, its newest frames (numbered by it)."""
    if sender and not (sender.sent - 100 <= state["last"] + 1 <= sender.sent): return False
    if state["channels"] != channels or len(state["scales"]) != (channels + 2) // 3: return False
    if not all(lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi) and hi > lo for lo, hi in state["scales"]):
        return False
    return all(n >= 30 for k, lane in enumerate(state["painted"]) for n in lane[:min(3, channels - 3 * k)])

def expect_drawn(driver, channels, what, shot, timeout=6, sender=None):
    js = driver.execute_script
    state = None
    def ok(_):
        nonlocal state
        state = js(PLOT_STATE)
        return drawn(state, channels, sender)
    try:
        WebDriverWait(driver, timeout, poll_frequency=0.3).until(ok)
        good = True
    except Exception:
        good = False
    driver.save_screenshot(os.path.join(SHOTS, shot))
    scales = ", ".join(f"{lo:.3g}..{hi:.3g}" if lo is not None and hi is not None else f"{lo}..{hi}" for lo, hi in state["scales"]) if state else "?"
    painted = state["painted"] if state else "?"
    frames = f", last frame drawn {state and state['last']} of {sender.sent} sent" if sender else ""
    check(good, f"{what}: {state and state['channels']} channels, lane scales {scales}, line pixels per lane {painted}{frames}")

def main():
    binary = os.path.abspath(sys.argv[1])
    os.makedirs(SHOTS, exist_ok=True)
    driver = chromium()
    live = lambda d: d.find_element(By.ID, "connText").text == "live"
    procs = []
    try:
        # 1. Frames flow before the page is opened.
        udp = free_port(socket.SOCK_DGRAM)
        proc, url, _ = start_studio(binary, ["--project", tempfile.mkdtemp(prefix="studio-plot-"), "--port", "0", "--input", f"udp:{udp}"])
        procs.append(proc)
        for burst in (1, 32):
            sender = Sender(udp, 3, 50, burst)
            time.sleep(2.0)
            flow = "steadily" if burst == 1 else f"in bursts of {burst}"
            for attempt in range(1, 4):
                driver.get(url)  # the first open, then reloads: each starts the page afresh mid-stream
                WebDriverWait(driver, 10).until(live)
                expect_drawn(driver, 3, f"page opened while frames flow {flow} (open {attempt} of 3) draws the plot",
                             f"plot-opened-mid-stream-{burst}-{attempt}.png")
            sender.stop()
        stop_studio(proc)

        # 2. The page is opened first; frames start after.
        udp = free_port(socket.SOCK_DGRAM)
        proc, url, _ = start_studio(binary, ["--project", tempfile.mkdtemp(prefix="studio-plot-"), "--port", "0", "--input", f"udp:{udp}"])
        procs.append(proc)
        driver.get(url)
        WebDriverWait(driver, 10).until(live)
        time.sleep(1.0)
        state = driver.execute_script(PLOT_STATE)
        check(state["channels"] == 0, f"before any frame the page waits with no lane ({state['channels']} channels)")
        sender = Sender(udp, 3, 50)
        expect_drawn(driver, 3, "page opened first, frames started after: the plot draws", "plot-opened-first.png")

        # 3. The channel count changes under the open page: the studio restarts with 6 channels.
        sender.stop(); sender = Sender(udp, 3, 200)   # more than a screenful (1000 frames) first
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return window.studio.last") > 1200)
        port = int(re.search(r":(\d+)/", url).group(1))
        sender.stop(); stop_studio(proc)
        proc, url, _ = start_studio(binary, ["--project", tempfile.mkdtemp(prefix="studio-plot-"), "--port", str(port), "--input", f"udp:{udp}"])
        procs.append(proc)
        sender = Sender(udp, 6, 50)
        WebDriverWait(driver, 15).until(lambda d: live(d) and d.execute_script("return window.studio.channels.length") == 6)
        expect_drawn(driver, 6, "after the studio restarts with 6 channels instead of 3, the open page draws both lanes", "plot-after-channel-change.png", sender=sender)
        sender.stop(); sender = Sender(udp, 6, 200)
        WebDriverWait(driver, 20).until(lambda d: d.execute_script("return window.studio.last") > 1200)
        driver.execute_script("window.__restarted = false; window.studio.ws.addEventListener('close', () => { window.__restarted = true; })")
        sender.stop(); stop_studio(proc)
        proc, url, _ = start_studio(binary, ["--project", tempfile.mkdtemp(prefix="studio-plot-"), "--port", str(port), "--input", f"udp:{udp}"])
        procs.append(proc)
        sender = Sender(udp, 6, 50)
        WebDriverWait(driver, 15).until(lambda d: d.execute_script("return window.__restarted") and live(d))
        expect_drawn(driver, 6, "after the studio restarts with the same 6 channels, its frames counted from 0 again, the open page draws", "plot-after-restart.png", sender=sender)
        sender.stop()
    finally:
        driver.quit()
        for p in procs:
            if p.poll() is None: stop_studio(p)
    finish("studio-plot-test")

if __name__ == "__main__":
    main()
