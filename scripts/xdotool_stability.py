"""Driven by scripts/xdotool-stability.sh inside Xvfb: starts the window on
$WS at $SIZE with a layout log, clicks and hovers with xdotool, and checks
that nothing drawn moved. Prints one line per check; exit 1 on a failure."""

import json
import os
import subprocess
import sys
import tempfile
import time

TABS = {"Fragments": "Fragments", "Prompt": "Prompt", "Cache": "Cache",
        "Test run": "Run", "Traffic": "Traffic", "Diff": "Diff"}
failures = []


def xdo(*args):
    return subprocess.run(["xdotool", *map(str, args)], check=True,
                          capture_output=True, text=True).stdout.strip()


def lines(log):
    try:
        with open(log) as f:
            return [json.loads(l) for l in f if l.strip()]
    except FileNotFoundError:
        return []


def wait(log, cond, what, secs=20):
    end = time.time() + secs
    while time.time() < end:
        got = lines(log)
        if got and cond(got[-1]):
            return got[-1]
        time.sleep(0.1)
    fail(f"waited {secs} s for {what}")
    return lines(log)[-1] if lines(log) else None


def fail(msg):
    print("FAIL", msg)
    failures.append(msg)


def tab_name(label):
    return TABS.get(label, "Problems" if label.startswith("Problems") else label)


def same(a, b, tol=0.5):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def click(wid, rect, scale):
    x = (rect[0] + rect[2]) / 2 / scale
    y = (rect[1] + rect[3]) / 2 / scale
    xdo("mousemove", "--window", wid, int(x), int(y))
    time.sleep(0.15)
    xdo("click", "1")


def hover(wid, rect, scale):
    xdo("mousemove", "--window", wid, int((rect[0] + rect[2]) / 2 / scale),
        int((rect[1] + rect[3]) / 2 / scale))


def main():
    size = os.environ["SIZE"]
    tmp = tempfile.mkdtemp()
    log = os.path.join(tmp, "layout.jsonl")
    env = dict(os.environ, PROMPT_INSPECTOR_LAYOUT_LOG=log,
               PROMPT_INSPECTOR_WINDOW_SIZE=size,
               XDG_CONFIG_HOME=tempfile.mkdtemp(), XDG_DATA_HOME=tempfile.mkdtemp())
    app = subprocess.Popen([os.environ["BIN"], os.environ["WS"]], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run(log, size)
    finally:
        app.terminate()
        try:
            app.wait(10)
        except subprocess.TimeoutExpired:
            app.kill()
    if failures:
        sys.exit(1)


def run(log, size):
    first = wait(log, lambda l: len(l["tabs"]) == 7 and l["rows"], "the loaded window", 90)
    if not first:
        return
    wid = xdo("search", "--sync", "--onlyvisible", "--name", "prompt-inspector").split()[0]
    scale = 1.0 / first["points_per_pixel"]
    # Let the first frames settle (fonts, panel sizes), then take the base.
    time.sleep(1.0)
    xdo("mousemove", "--window", wid, 1, 1)
    time.sleep(0.3)
    base = lines(log)[-1]
    tabs = {label: rect for label, rect in base["tabs"]}
    bar = base["status_bar"]
    order = list(tabs) + list(reversed(list(tabs))) + [l for l in tabs for _ in (0, 1)]
    moved = 0
    for label in order:
        click(wid, tabs[label], scale)
        want = tab_name(label)
        got = wait(log, lambda l: l["tab"] == want, f"{label} chosen by a click on it")
        if not got:
            continue
        for (l, r) in got["tabs"]:
            if l in tabs and not same(r, tabs[l]):
                moved += 1
                fail(f"{size}: after a click on {label}, the tab {l} moved: {tabs[l]} -> {r}")
        if got["status_bar"] and bar and not same(got["status_bar"], bar):
            fail(f"{size}: after a click on {label}, the status bar moved: {bar} -> {got['status_bar']}")
    print(f"ok {size}: {len(order)} clicks on tabs, each chose the tab under the pointer"
          if not moved else f"{size}: {moved} tab moves")
    # A fragment selected: the rows and the tabs stay.
    click(wid, tabs["Fragments"], scale)
    before = wait(log, lambda l: l["tab"] == "Fragments" and l["rows"], "the fragment table")
    if not before:
        return
    rows = {i: r for i, r in before["rows"]}
    target, rect = before["rows"][min(2, len(before["rows"]) - 1)]
    click(wid, rect, scale)
    after = wait(log, lambda l: l["selected"] == target, f"{target} selected by a click on its row")
    # The frames after it (a detail panel opens beside a narrow table).
    time.sleep(0.6)
    after = after and lines(log)[-1]
    if after:
        for i, r in after["rows"]:
            if i in rows and not (abs(r[1] - rows[i][1]) <= 0.5 and abs(r[3] - rows[i][3]) <= 0.5):
                fail(f"{size}: selecting {target} moved the row {i}: {rows[i]} -> {r}")
        for (l, r) in after["tabs"]:
            if not same(r, tabs[l]):
                fail(f"{size}: selecting {target} moved the tab {l}")
        print(f"ok {size}: a click on the row of {target} selected it; no row or tab moved")
    # Hovering changes nothing that is drawn where the pointer aims.
    still = lines(log)[-1]
    for label in tabs:
        hover(wid, tabs[label], scale)
        time.sleep(0.1)
    for i, r in list(rows.items())[:8]:
        hover(wid, r, scale)
        time.sleep(0.1)
    time.sleep(0.3)
    now = lines(log)[-1]
    changed = [k for k in ("tabs", "rows", "status_bar", "panels") if now[k] != still[k]]
    if changed:
        def what(k):
            if k == "status_bar":
                return f"status bar {still[k]} -> {now[k]}"
            a, b = dict(map(tuple, [(n, tuple(r)) for n, r in still[k]])), dict(
                (n, tuple(r)) for n, r in now[k])
            moved = [f"{n} {a.get(n)} -> {b.get(n)}" for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n)]
            return f"{k}: " + "; ".join(moved[:4])
        fail(f"{size}: hovering the tabs and rows moved " + " | ".join(map(what, changed)))
    else:
        print(f"ok {size}: hovering {len(tabs)} tabs and {min(8, len(rows))} rows moved nothing")


main()
