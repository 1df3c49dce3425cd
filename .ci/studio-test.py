#!/usr/bin/env python3
"""End-to-end browser test of `gesture studio`: headless Chromium driven by Selenium.

1. Starts a studio (fresh project, frames from the page and from OSC on loopback), opens the page.
2. The phone path: turns on the page's motion sharing and dispatches DeviceMotion events in the
   page (its own `devicemotion` listener sends them over the WebSocket); records "shake", "tilt"
   and rest by holding the page's buttons; checks the examples list.
3. Trains kNN from the page, waits for the cross-validated accuracy and confusion matrix.
4. Live: performs shakes and tilts through the page and through OSC datagrams, and checks the
   detections the page draws (right label, rest silent). Latency: from a frame's arrival at the
   studio to the paint that shows its detection, measured in the page (median, p99).
5. Play back: clicks a tilt example's play button; its frames are drawn on the live plot and the
   model names it tilt; the recording is unchanged.
6. The phone path over TLS and memory: a second studio with --tls behind a token (--host 0.0.0.0):
   the served certificate is the one whose fingerprint it printed, requests verified against it
   (refused without the token, served with it), no plain HTTP on its port, the page a secure
   context over https/wss; then 200 frames/s of 6 channels over OSC for STUDIO_SOAK_SECONDS
   (default 60), the page's JS heap and the server's RSS sampled and flat.
Screenshots go to .ci/studio-shots/. Exits 1 on any failure.

Usage: .ci/studio-test.py GESTURE_BINARY
"""
import hashlib, json, os, re, shutil, socket, ssl, struct, subprocess, sys, tempfile, threading, time, math, statistics, urllib.request, urllib.error

from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import WebDriverWait

from studio_common import SHOTS, check, chromium, finish, free_port, start_studio

SOAK = float(os.environ.get("STUDIO_SOAK_SECONDS", "60"))

def osc_message(values, address="/wek/inputs"):
    def pad(b): return b + b"\0" * (4 - len(b) % 4)
    return pad(address.encode()) + pad(("," + "f" * len(values)).encode()) + b"".join(struct.pack(">f", v) for v in values)

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"): return int(l.split()[1])
    return 0

# Motion patterns, 9 values like the page's DeviceMotion frame: acceleration, with gravity, rotation.
def pattern(kind, t):
    if kind == "shake":
        a = [6 * math.sin(t * 25 + k) for k in range(3)]
        return a + [a[0], a[1], a[2] + 9.81] + [200 * math.sin(t * 25 + k) for k in range(3)]
    if kind == "tilt":
        return [0.1, 0.1, 0.1, 7.0, 0.2, 6.9] + [0.5 * math.sin(t), 0, 0]
    return [0.05 * math.sin(t * 7 + k) for k in range(3)] + [0, 0, 9.81] + [0.3 * math.sin(t * 3), 0, 0]

GENERATOR = """
window.__kind = arguments[0];
if (!window.__gen) {
  const P = {
    shake: t => { const a = [0,1,2].map(k => 6*Math.sin(t*25+k)); return [a, [a[0], a[1], a[2]+9.81], [0,1,2].map(k => 200*Math.sin(t*25+k))]; },
    tilt: t => [[0.1,0.1,0.1],[7.0,0.2,6.9],[0.5*Math.sin(t),0,0]],
    rest: t => [[0,1,2].map(k => 0.05*Math.sin(t*7+k)), [0,0,9.81], [0.3*Math.sin(t*3),0,0]],
  };
  window.__gen = setInterval(() => {
    const t = performance.now() / 1000, [a, g, r] = P[window.__kind](t);
    window.dispatchEvent(new DeviceMotionEvent('devicemotion', {
      acceleration: {x:a[0], y:a[1], z:a[2]}, accelerationIncludingGravity: {x:g[0], y:g[1], z:g[2]},
      rotationRate: {alpha:r[0], beta:r[1], gamma:r[2]}, interval: 20 }));
  }, 10);
}
"""

def main():
    binary = os.path.abspath(sys.argv[1])
    os.makedirs(SHOTS, exist_ok=True)
    project = tempfile.mkdtemp(prefix="studio-e2e-")
    osc_port = free_port(socket.SOCK_DGRAM)
    proc, url, _ = start_studio(binary, ["--project", project, "--port", "0", "--input", f"osc:{osc_port}"])
    print("studio at", url, "osc on", osc_port, flush=True)

    # --ignore-certificate-errors: the --tls studio's certificate is self-signed (a phone accepts it by hand).
    driver = chromium("--ignore-certificate-errors", "--enable-precise-memory-info")
    js = driver.execute_script
    try:
        driver.get(url)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "connText").text == "live")
        check(True, "page loads and its WebSocket connects")

        # --- the phone path: DeviceMotion events through the page ---
        driver.find_element(By.ID, "motionBtn").click()
        WebDriverWait(driver, 5).until(lambda d: js("return window.studio.motionOn"))
        js(GENERATOR, "rest")
        WebDriverWait(driver, 5).until(lambda d: js("return window.studio.channels.length") == 9)
        time.sleep(2.0)  # the counter covers the last second: let it fill
        fps = int(driver.find_element(By.ID, "fps").text)
        check(40 <= fps <= 60, f"the page streams its motion at the chosen 50 Hz and shows the frame rate ({fps} frames/s)")

        hold, rest_btn, cls = (driver.find_element(By.ID, i) for i in ("holdBtn", "restBtn", "cls"))
        def record(button, kind, seconds=1.2):
            js("window.__kind = arguments[0]", kind)
            time.sleep(0.15)
            ActionChains(driver).click_and_hold(button).perform()
            time.sleep(seconds)
            ActionChains(driver).release(button).perform()
            js("window.__kind = 'rest'")
            time.sleep(0.3)
        for rep in range(4):
            for label in ("shake", "tilt"):
                cls.clear(); cls.send_keys(label)
                record(hold, label)
            record(rest_btn, "rest")
        WebDriverWait(driver, 5).until(lambda d: len(js("return window.studio.examples")) == 12)
        ex = js("return window.studio.examples.map(e => [e.label, e.frames])")
        counts = {l: sum(1 for e in ex if e[0] == l) for l in ("shake", "tilt", "rest")}
        check(counts == {"shake": 4, "tilt": 4, "rest": 4}, f"12 examples recorded by holding the buttons: {counts}, frames {[e[1] for e in ex]}")
        with open(os.path.join(project, "recording.csv")) as f: header = f.readline().strip()
        check(header.startswith("session,label,accX"), f"recording.csv has the `gesture record` header ({header})")

        # delete one, then record it again
        first = js("return window.studio.examples[0].id")
        js("window.studio.send({t:'delete', id: arguments[0]})", first)
        WebDriverWait(driver, 5).until(lambda d: len(js("return window.studio.examples")) == 11)
        cls.clear(); cls.send_keys(ex[0][0]); record(hold if ex[0][0] != "rest" else rest_btn, ex[0][0])
        WebDriverWait(driver, 5).until(lambda d: len(js("return window.studio.examples")) == 12)
        check(True, "an example is deleted from the page and recorded again")
        tr = subprocess.run([binary, "train", os.path.join(project, "recording.csv"), "--classifier", "knn", "--window", "16,4",
                             "--rest", "rest", "-o", os.path.join(project, "cli.gesture")], capture_output=True, text=True)
        check(tr.returncode == 0, "gesture train reads the studio's recording: " + tr.stderr.strip().splitlines()[-1] if tr.stderr.strip() else str(tr.returncode))

        # --- train from the page ---
        driver.find_element(By.CSS_SELECTOR, "#clf option[value=knn]").click()
        for i, v in (("win", "16"), ("hop", "4")):
            e = driver.find_element(By.ID, i); e.clear(); e.send_keys(v)
        driver.find_element(By.ID, "trainBtn").click()
        WebDriverWait(driver, 120).until(lambda d: (js("return window.studio.lastTraining && window.studio.lastTraining.state") or "") in ("done", "failed"))
        t = js("return window.studio.lastTraining")
        check(t["state"] == "done" and t.get("accuracy", 0) >= 0.8, f"training in the background ends with cross-validated accuracy {t.get('accuracy')} ({t['message']})")
        check(len(driver.find_elements(By.CSS_SELECTOR, "table.cm tr")) == 4, "the confusion matrix is shown (3 classes)")

        # --- live recognition through the page ---
        js("window.__kind = 'rest'"); time.sleep(1.0)
        def labels_after(mark):
            return [d["label"] for d in js("return window.studio.dets.map(d => ({label: d.label, end: d.end}))") if d["end"] > mark]
        for kind in ("shake", "tilt", "shake"):
            mark = js("return window.studio.last")
            js("window.__kind = arguments[0]", kind); time.sleep(1.2)
            js("window.__kind = 'rest'"); time.sleep(1.0)
            seen = labels_after(mark)
            check(seen and seen[0] == kind and set(seen) <= {kind}, f"a {kind} from the page's motion is drawn as {kind}: {seen}")
        mark = js("return window.studio.last"); time.sleep(2.0)
        check(labels_after(mark + 20) == [], "rest is drawn as silence")
        driver.save_screenshot(os.path.join(SHOTS, "studio-phone.png"))

        # --- play back an example: a real click on its thumbnail; drawn, named by the model, nothing written ---
        csv = os.path.join(project, "recording.csv")
        with open(csv, "rb") as f: csv_before = f.read()
        tilt_id, tilt_frames = js("const e = window.studio.examples.find(e => e.label === 'tilt'); return [e.id, e.frames]")
        replays_before = js("return window.studio.replays.length")
        ActionChains(driver).move_to_element(driver.find_element(By.CSS_SELECTOR, f".thumb[data-id='{tilt_id}'] button.play")).click().perform()
        WebDriverWait(driver, 5).until(lambda d: (js("return window.studio.playing && window.studio.playing.id") or "") == tilt_id)
        check(len(driver.find_elements(By.CSS_SELECTOR, f".thumb.playing[data-id='{tilt_id}']")) == 1, "the playing example's thumbnail is marked")
        time.sleep(0.8 * tilt_frames / 50)  # most of the way through (it plays at the live 50 frames/s)
        driver.save_screenshot(os.path.join(SHOTS, "studio-replay.png"))
        WebDriverWait(driver, 15).until(lambda d: js("const r = window.studio.replays; return r.length > arguments[0] && r[r.length - 1].end != null", replays_before))
        r = js("return window.studio.replays[window.studio.replays.length - 1]")
        drawn = js("const r = arguments[0]; let n = 0; for (let i = r.start; i <= r.end; i++) if (window.studio.slots[i % 1000] === i) n++; return n", r)
        check(r["label"] == "tilt" and r["end"] - r["start"] + 1 == tilt_frames and drawn == tilt_frames,
              f"play draws the example's {tilt_frames} frames on the live plot ({drawn} drawn, frames {r['start']}-{r['end']})")
        named = [d["label"] for d in js("return window.studio.dets") if d["end"] >= r["start"] and d["start"] <= r["end"]]
        check(named and set(named) == {"tilt"}, f"the model names the replayed tilt on the timeline: {named}")
        with open(csv, "rb") as f: check(f.read() == csv_before, "play writes nothing to the recording")
        time.sleep(0.3)
        check(len(driver.find_elements(By.CSS_SELECTOR, ".thumb.playing")) == 0, "the mark goes when the replay ends")
        driver.save_screenshot(os.path.join(SHOTS, "studio-replayed.png"))

        # --- OSC frames (--input osc:PORT), 200 frames/s, and latency ---
        driver.find_element(By.ID, "motionBtn")  # page motion stays on; stop its generator so OSC is the only sensor
        js("clearInterval(window.__gen); window.__gen = 0")
        js("window.studio.latencies.length = 0; window.studio.frameLatencies.length = 0")
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        t0 = time.time(); n = 0
        def send_osc(kind, seconds, rate=200):
            nonlocal n
            end = time.time() + seconds
            while time.time() < end:
                sock.sendto(osc_message(pattern(kind, n / rate)), ("127.0.0.1", osc_port)); n += 1
                time.sleep(max(0, t0 + n / rate - time.time()))
        osc_hits = 0
        for rep in range(10):
            mark = js("return window.studio.last")
            send_osc("rest", 0.6); send_osc("shake" if rep % 2 == 0 else "tilt", 0.8); send_osc("rest", 0.6)
            seen = labels_after(mark)
            osc_hits += bool(seen) and seen[0] == ("shake" if rep % 2 == 0 else "tilt")
        check(osc_hits >= 9, f"gestures sent as OSC frames are drawn with the right label ({osc_hits}/10)")
        lat = sorted(js("return window.studio.latencies"))
        flat = sorted(js("return window.studio.frameLatencies"))
        if lat:
            med, p99 = statistics.median(lat), lat[min(len(lat) - 1, int(0.99 * len(lat)))]
            print(f"LATENCY detection: frame arrival -> detection painted: median {med:.1f} ms, p99 {p99:.1f} ms over {len(lat)} detections", flush=True)
            print(f"LATENCY frame: frame arrival -> painted: median {statistics.median(flat):.1f} ms, p99 {flat[int(0.99 * (len(flat) - 1))]:.1f} ms over {len(flat)} paints", flush=True)
            check(med <= 50, f"median detection latency {med:.1f} ms <= 50 ms")
        else:
            check(False, "latencies were measured")
        send_osc("shake", 0.4); time.sleep(0.1)
        driver.save_screenshot(os.path.join(SHOTS, "studio-live.png"))
        driver.set_window_size(1180, 860); send_osc("rest", 0.3); send_osc("shake", 0.5); time.sleep(0.1)
        driver.save_screenshot(os.path.join(SHOTS, "studio-readme.png"))
        driver.set_window_size(420, 900); time.sleep(0.5)
        driver.save_screenshot(os.path.join(SHOTS, "studio-narrow.png"))
        driver.set_window_size(1360, 1000)
        errors = js("return window.studio.errors")
        check(errors == [], f"no errors reported to the page ({errors[:3]})")
    finally:
        proc.terminate()
        try: proc.wait(10)
        except subprocess.TimeoutExpired: proc.kill()

    # --- memory: a token-protected studio under 200 frames/s of 6 channels ---
    project2 = tempfile.mkdtemp(prefix="studio-soak-")
    osc2 = free_port(socket.SOCK_DGRAM)
    # The phone path: --tls, so the page, its WebSocket and this whole soak run over HTTPS/WSS.
    proc2, url2, banner2 = start_studio(binary, ["--project", project2, "--port", "0", "--host", "0.0.0.0", "--tls", "--input", f"osc:{osc2}"])
    try:
        check(url2.startswith("https://") and "token=" in url2, f"--tls off loopback prints an https URL with a token ({re.sub('token=[0-9a-f]+', 'token=…', url2)})")
        port2 = int(re.search(r":(\d+)/", url2).group(1))
        # The certificate served is the one whose fingerprint was printed; trust exactly it from here on.
        der = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate(("127.0.0.1", port2)))
        served = ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())
        check(f"SHA-256 {served}" in banner2, "the served certificate is the one whose SHA-256 the studio printed")
        tls_ctx = ssl.create_default_context(cadata=der)
        bare = url2.split("?")[0].replace("0.0.0.0", "127.0.0.1")
        try:
            code = urllib.request.urlopen(bare, context=tls_ctx).status
        except urllib.error.HTTPError as e:
            code = e.code
        check(code == 401, f"a request without the token is refused ({code})")
        ok_url = url2.replace("0.0.0.0", "127.0.0.1")
        check(urllib.request.urlopen(ok_url, context=tls_ctx).status == 200, "with the token the page is served over TLS, verified against that certificate")
        try:
            urllib.request.urlopen(ok_url.replace("https://", "http://"), timeout=5); plain = "served"
        except Exception as e:
            plain = type(e).__name__
        check(plain != "served", f"no plain HTTP on the TLS port ({plain})")
        driver.get(ok_url)
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "connText").text == "live")
        sec = js("return [location.protocol, window.isSecureContext, typeof DeviceMotionEvent]")
        check(sec == ["https:", True, "function"], f"over --tls the page is a secure context with DeviceMotion, its WebSocket live over wss ({sec})")
        share = js("return window.studio.share")
        check(share is not None and "token=" in share["url"] and driver.find_element(By.ID, "qr").is_displayed(),
              f"the page shows the address to open on a phone with its QR code ({share and re.sub('token=[0-9a-f]+', 'token=…', share['url'])})")
        if share and shutil.which("zbarimg"):
            rows, q, k = share["qr"], 4, 4
            n = len(rows) + 2 * q
            pbm = os.path.join(SHOTS, "qr.pbm")
            with open(pbm, "w") as f:
                f.write(f"P1\n{n * k} {n * k}\n")
                for r in range(n):
                    line = " ".join("1" if 0 <= r - q < len(rows) and 0 <= c - q < len(rows) and rows[r - q][c - q] == "1" else "0"
                                    for c in range(n) for _ in range(k))
                    for _ in range(k): f.write(line + "\n")
            out = subprocess.run(["zbarimg", "-q", "--raw", pbm], capture_output=True, text=True).stdout.strip()
            check(out == share["url"] and out.startswith("https://"), f"zbarimg reads the QR code back as the https address ({'same' if out == share['url'] else repr(out)})")
        shown = driver.find_element(By.ID, "shareFp").text
        check(share and share.get("fingerprint") == served and served[:23] in shown,
              f"the page shows the start of the served certificate's SHA-256 to compare on the phone ({shown!r})")
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        stop = threading.Event(); sent = [0]
        def pump():
            t0 = time.time()
            while not stop.is_set():
                i = sent[0]
                sock.sendto(osc_message([math.sin(i / 20 + k) for k in range(6)]), ("127.0.0.1", osc2)); sent[0] += 1
                time.sleep(max(0, t0 + sent[0] / 200 - time.time()))
        th = threading.Thread(target=pump, daemon=True); th.start()
        samples = []
        start = time.time()
        while time.time() - start < SOAK:
            time.sleep(min(10, SOAK / 6))
            heap = js("return performance.memory ? performance.memory.usedJSHeapSize : 0")
            fps = int(driver.find_element(By.ID, "fps").text)
            samples.append((time.time() - start, heap / 2**20, rss_kib(proc2.pid) / 1024, fps))
            print(f"MEMORY t={samples[-1][0]:.0f}s page heap {samples[-1][1]:.1f} MiB, server RSS {samples[-1][2]:.1f} MiB, {fps} frames/s", flush=True)
        stop.set(); th.join()
        driver.save_screenshot(os.path.join(SHOTS, "studio-soak.png"))
        warm = samples[1] if len(samples) > 2 else samples[0]
        last = samples[-1]
        check(min(s[3] for s in samples) >= 170, f"the page keeps up with 200 frames/s of 6 channels (lowest {min(s[3] for s in samples)} frames/s)")
        check(last[1] - warm[1] < 16, f"page heap flat over {SOAK:.0f} s: {warm[1]:.1f} -> {last[1]:.1f} MiB")
        check(last[2] - warm[2] < 24, f"server RSS flat over {SOAK:.0f} s: {warm[2]:.1f} -> {last[2]:.1f} MiB")
    finally:
        driver.quit()
        proc2.terminate()
        try: proc2.wait(10)
        except subprocess.TimeoutExpired: proc2.kill()
    finish("studio-test")

if __name__ == "__main__":
    main()
