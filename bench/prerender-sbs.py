#!/usr/bin/env python3
"""EXPERIMENT (session 6): the side-by-side anchor's "small" measurement
(/work/shared/anchors/side-by-side/measure.py: its probe, its server, its
browser flags, fresh context per load, 1280x800) over several dists and both
`/` and `/demo/f`, interleaved in one run, against the React stand-in's `/`.
Also reports when the live app started (Trunk's TrunkApplicationStarted: main()
has returned), when its own first frame was painted (the same rAF + setTimeout(0)
after that event) and, for a pre-rendered copy, when its static overlay was
removed (performance mark `pep-prerender-gone`, bench/prerender-probe.mjs).

usage: prerender-sbs.py --anchor DIR [--runs 9] NAME=DIST ...
"""
import argparse, json, os, sys

sys.path.insert(0, "/work/shared/anchors/side-by-side")
import measure  # noqa: E402  (the anchor's own probe, server and flags)
from playwright.sync_api import sync_playwright  # noqa: E402

EXTRA = r"""
addEventListener('TrunkApplicationStarted', () => {
  const P = window.__probe;
  P.started = performance.now();
  // The live app's own first frame painted (measure.py's definition).
  requestAnimationFrame(() => setTimeout(() => { P.live = performance.now(); }, 0));
});
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--anchor", required=True)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--paths", default="/,/demo/f")
    ap.add_argument("dists", nargs="+", help="NAME=DIST")
    a = ap.parse_args()
    cases = [("react", measure.serve(os.path.join(a.anchor, "dist")), "/", "[data-segment]")]
    for nd in a.dists:
        name, d = nd.split("=", 1)
        url = measure.serve(d)
        for p in a.paths.split(","):
            cases.append((name, url, p, "[data-kind]"))
    res = {f"{n} {p}": [] for n, _, p, _ in cases}
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=measure.ARGS)
        for i in range(a.runs + 1):
            for name, url, path, sel in cases:
                ctx = b.new_context(viewport={"width": 1280, "height": 800})
                ctx.add_init_script(measure.PROBE + EXTRA + f"\n__probe.watch({json.dumps(sel)}, 'seg');")
                pg = ctx.new_page()
                pg.goto(url + path, wait_until="load")
                pg.wait_for_function("() => __probe.seg !== undefined", timeout=60000)
                if sel == "[data-kind]":
                    pg.wait_for_function("() => __probe.live !== undefined && !document.getElementById('pep-prerender')", timeout=60000)
                r = pg.evaluate("""() => ({ seg: __probe.seg, started: __probe.started, live: __probe.live,
                    gone: (performance.getEntriesByName('pep-prerender-gone')[0] || {}).startTime })""")
                if i:
                    res[f"{name} {path}"].append(r)
                ctx.close()
            print(f"round {i}/{a.runs}", file=sys.stderr)
        b.close()
    print(json.dumps(res))
    react = measure.med([r["seg"] for r in res["react /"]])
    for k, rows in res.items():
        seg = measure.med([r["seg"] for r in rows])
        started = measure.med([r["started"] for r in rows])
        live = measure.med([r.get("live") for r in rows])
        gone = measure.med([r["gone"] for r in rows])
        print(f"{k:22} painted {seg:>7} ms  stand-in/ours {react / seg:.2f}x  app started {started}  overlay gone {gone}  live app painted {live}  "
              f"samples {[round(r['seg']) for r in rows]}")


if __name__ == "__main__":
    main()
