"""The studio as a designer feels it, on DML: page load, keystroke -> problems shown, keystroke -> chart redrawn,
and the server's memory with DML open.

    python benchmarks/bench_studio.py [--ruleset dml] [--repeat 5]

Starts `rulecraft studio` on a temporary folder holding a copy of the ruleset, and drives the page in Debian's
Chromium with Playwright (as tests/test_studio_browser.py does). Times are wall-clock from the keystroke (sent by
Playwright) to the moment the page shows the result (a problem in the list, a chart drawn again), so they hold
the page's own waits (40 ms before the text goes to the server, 400 ms after the check before a chart is asked for), the check of
the whole ruleset, and for the chart Graphviz. Prints the median and the worst of the repeats. Aims (issue 33):
problems <= 300 ms, chart <= 1.5 s. The server's memory is its resident set (VmRSS) with the ruleset open.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_validate import machine  # noqa: E402
from rulecraft.bundled import resolve  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync"]
WAIT = 120_000


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_s(pid: int) -> float:
    """The CPU seconds (user + system) the process and the children it waited for (dot) have used: a figure
    that other processes on the machine do not stretch."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # its own and its children's (Graphviz)


def place(page, text: str, offset: int) -> None:
    """The cursor `offset` characters into the first line holding `text`."""
    page.evaluate("""([text, offset]) => {
        const view = window.studio.view, doc = view.state.doc
        for (let n = 1; n <= doc.lines; n++) {
            const line = doc.line(n), at = line.text.indexOf(text)
            if (at >= 0) { view.dispatch({selection: {anchor: line.from + at + offset}, scrollIntoView: true}); view.focus(); return }
        }
    }""", [text, offset])


def errors_shown(page) -> int:
    return page.evaluate("() => document.querySelectorAll('#problems li.error').length")


def main() -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="dml")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-studio-")
    name = os.path.basename(resolve(args.ruleset))
    shutil.copy(resolve(args.ruleset), os.path.join(folder, name))
    proc = subprocess.Popen([sys.executable, "-m", "rulecraft.tools.cli.main", "studio", folder],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proc.stdout.readline().strip()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 950})
            t0 = time.perf_counter()
            page.goto(url.replace("/?", f"/?path={name}&"))
            page.wait_for_selector("body[data-ready='1']", timeout=WAIT)
            ready = time.perf_counter() - t0
            page.wait_for_selector("#chart[data-drawn] svg", timeout=WAIT)
            first_chart = time.perf_counter() - t0
            page.wait_for_timeout(500)
            memory = rss_mb(proc.pid)

            problems, cleared, charts = [], [], []
            cpu0 = cpu_s(proc.pid)
            for _ in range(args.repeat):
                place(page, "if: \"count(contenders) == 1\"", len('if: "'))
                t0 = time.perf_counter()
                page.keyboard.type("q")
                page.wait_for_function("() => document.querySelectorAll('#problems li.error').length > 0", timeout=WAIT)
                problems.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                page.keyboard.press("Backspace")
                page.wait_for_function("() => document.querySelectorAll('#problems li.error').length === 0", timeout=WAIT)
                cleared.append(time.perf_counter() - t0)
                page.wait_for_timeout(400)  # the chart asked for after the fix, drawn
            cpu_checks = (cpu_s(proc.pid) - cpu0) / (2 * args.repeat)
            label = "label: Only the players with the highest total stay in the roll-off"  # a step of the roll-off
            place(page, label, len(label))
            page.wait_for_timeout(1500)  # the chart of this sequence drawn and settled
            cpu0 = cpu_s(proc.pid)
            for i in range(args.repeat):
                drawn = int(page.get_attribute("#chart", "data-drawn") or 0)
                t0 = time.perf_counter()
                page.keyboard.type(str(i % 10))
                page.wait_for_function(
                    f"() => Number(document.querySelector('#chart').dataset.drawn) > {drawn}", timeout=WAIT)
                charts.append(time.perf_counter() - t0)
            cpu_charts = (cpu_s(proc.pid) - cpu0) / args.repeat
            memory_after = rss_mb(proc.pid)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)

    def ms(xs):
        return f"median {statistics.median(xs) * 1000:.0f} ms, worst {max(xs) * 1000:.0f} ms ({len(xs)} runs)"

    m = machine()
    print(f"machine: {m}")
    print(f"ruleset: {args.ruleset} ({name})")
    print(f"page load: ready {ready * 1000:.0f} ms, first chart {first_chart * 1000:.0f} ms")
    print(f"keystroke -> problem shown: {ms(problems)}  (aim <= 300 ms)")
    print(f"keystroke -> problem gone:  {ms(cleared)}")
    print(f"keystroke -> chart redrawn: {ms(charts)}  (aim <= 1500 ms)")
    print(f"server CPU per keystroke: {cpu_checks * 1000:.0f} ms checking (an error made or fixed), "
          f"{cpu_charts * 1000:.0f} ms checking and drawing the chart (a label edited)")
    print(f"server memory (VmRSS): {memory:.0f} MB with {name} open, {memory_after:.0f} MB after the runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
