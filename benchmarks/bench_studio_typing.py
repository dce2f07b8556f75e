"""The studio's page while a designer types: long tasks (over 50 ms on the page's main thread) per 100
keystrokes, and the work the keystrokes cause (text sent to the server, checks shown, charts asked and drawn).

    python benchmarks/bench_studio_typing.py [--ruleset dml] [--keys 200] [--delay 60] [--runs 3] [--profile]

Starts `rulecraft studio` on a temporary folder holding a copy of the ruleset, and types KEYS characters (one every
DELAY ms, Playwright's keyboard, as a quick typist) at the end of a step's label, in Debian's Chromium. Long tasks
are the page's own PerformanceObserver('longtask'): their count and total are what a designer feels as a stutter.
`--profile` records Chromium's CPU profile (CDP Profiler) during the typing and prints the functions with the most
self time. Figures in docs/performance.md under "s15-studio2".
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from rulecraft.bundled import resolve

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
WAIT = 120_000
WHERE = {"dml": "label: Only the players with the highest total stay in the roll-off",
         "pig": "label: Roll again, or stop and bank the turn total?"}
WORDS = " and then the next player says so out loud before anyone rolls"

# before the page's own script: the long tasks, and every message the page sends on its websocket, by method
PROBE = """
window.probe = {long: [], sent: {}, bytes: 0}
new PerformanceObserver(list => { for (const e of list.getEntries()) window.probe.long.push(e.duration) })
  .observe({type: "longtask", buffered: true})
const send = WebSocket.prototype.send
WebSocket.prototype.send = function (data) {
  let method = "?"
  try { method = JSON.parse(data).method || "(answer)" } catch (e) {}
  window.probe.sent[method] = (window.probe.sent[method] || 0) + 1
  window.probe.bytes += data.length
  return send.call(this, data)
}
"""


def measure(page, label: str, keys: int, delay: int, cdp=None, trace=None) -> dict:
    page.evaluate("""(text) => {
        const view = window.studio.view, doc = view.state.doc
        for (let n = 1; n <= doc.lines; n++) {
            const line = doc.line(n), at = line.text.indexOf(text)
            if (at >= 0) { view.dispatch({selection: {anchor: line.from + at + text.length}, scrollIntoView: true}); view.focus(); return }
        }
    }""", label)
    page.wait_for_timeout(1500)
    page.evaluate("() => { window.probe.long = []; window.probe.sent = {}; window.probe.bytes = 0; window.probe.drawn0 = window.studio.chart.drawn;"
                  " window.probe.asked0 = window.studio.chart.asked;"
                  " window.probe.shown0 = window.studio.diagnosticsShown || 0 }")
    text = (WORDS * (keys // len(WORDS) + 1))[:keys]
    if trace:
        page.context.browser.start_tracing(page=page, path=trace, categories=["devtools.timeline", "v8.execute", "toplevel"])
    if cdp:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
    page.keyboard.type(text, delay=delay)
    page.wait_for_timeout(2000)  # the last check and chart come
    profile = cdp.send("Profiler.stop")["profile"] if cdp else None
    if trace:
        page.context.browser.stop_tracing()
    got = page.evaluate("() => ({long: window.probe.long, sent: window.probe.sent, bytes: window.probe.bytes,"
                        " drawn: window.studio.chart.drawn - window.probe.drawn0,"
                        " asked: window.studio.chart.asked - window.probe.asked0,"
                        " shown: (window.studio.diagnosticsShown || 0) - window.probe.shown0})")
    got["profile"] = profile
    return got


def hot(profile: dict, top: int | None = 25) -> list[tuple[float, str]]:
    """Self time (ms) per function of a CDP CPU profile, most first."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    self_us: collections.Counter = collections.Counter()
    for node_id, dt in zip(profile["samples"], profile["timeDeltas"]):
        f = nodes[node_id]["callFrame"]
        name = f"{f['functionName'] or '(anon)'} {os.path.basename(f['url'])}:{f['lineNumber'] + 1}:{f['columnNumber'] + 1}"
        self_us[name] += dt
    return [(us / 1000, name) for name, us in self_us.most_common(top)]


def main() -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="dml", choices=sorted(WHERE))
    ap.add_argument("--keys", type=int, default=200)
    ap.add_argument("--delay", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--trace", action="store_true", help="Chromium's trace of the typing, beside the profile")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-typing-")
    name = os.path.basename(resolve(args.ruleset))
    shutil.copy(resolve(args.ruleset), os.path.join(folder, name))
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", "studio", folder],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proc.stdout.readline().strip()
    for _ in range(600):  # the port is bound when the URL is printed; it answers once uvicorn is up
        try:
            urllib.request.urlopen(url, timeout=5).close()
            break
        except OSError:
            time.sleep(0.1)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 950})
            page.add_init_script(PROBE)
            page.goto(url.replace("/?", f"/?path={name}&"))
            page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
            page.wait_for_selector("#chart[data-drawn] svg", timeout=WAIT)
            cdp = page.context.new_cdp_session(page) if args.profile else None
            for run in range(args.runs):
                got = measure(page, WHERE[args.ruleset], args.keys, args.delay, cdp,
                              os.path.join(tempfile.gettempdir(), f"studio-typing-{args.ruleset}-{run + 1}.trace.json")
                              if args.trace else None)
                per = 100 / args.keys
                long = got["long"]
                print(f"run {run + 1}: {args.keys} keys every {args.delay} ms: long tasks {len(long)} "
                      f"({len(long) * per:.1f} per 100 keys), total {sum(long):.0f} ms "
                      f"({sum(long) * per:.0f} ms per 100 keys), longest {max(long, default=0):.0f} ms; "
                      f"sent {got['bytes'] / 1000:.0f} kB {json.dumps(got['sent'], sort_keys=True)}; charts asked {got['asked']}, drawn {got['drawn']}; "
                      f"problems redrawn {got['shown']}")
                if got["profile"]:
                    busy = sum(ms for ms, fn in hot(got["profile"], top=None) if not fn.startswith("(idle)"))
                    print(f"    main thread busy (CPU profile, idle left out): {busy * per:.0f} ms per 100 keys")
                    with open(os.path.join(tempfile.gettempdir(), f"studio-typing-{args.ruleset}-{run + 1}.cpuprofile"), "w") as fh:
                        json.dump(got["profile"], fh)  # for Chromium's DevTools (Performance: load profile)
                    for ms, fn in hot(got["profile"]):
                        print(f"    {ms:8.1f} ms  {fn}")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
