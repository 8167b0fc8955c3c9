"""Regenerate the trace corpus: every run of configs.RUNS, each in its own venv and process.

    python3 tests/corpus/traces/generate.py [--venvs DIR] [--out DIR] [--variants N] [RUN ...]

Defaults: venvs under target/corpus-venv/<venv name>, output under
crates/envelope/tests/fixtures/traces/<run>/. See README.md for making the venvs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

import configs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venvs", default=os.path.join(ROOT, "target", "corpus-venv"))
    ap.add_argument("--out", default=os.path.join(ROOT, "crates", "envelope", "tests", "fixtures", "traces"))
    ap.add_argument("--variants", type=int, default=1)
    ap.add_argument("runs", nargs="*")
    args = ap.parse_args()
    runs = args.runs or list(configs.RUNS)
    failed = []
    for run in runs:
        cfg = configs.RUNS[run]
        py = os.path.join(args.venvs, cfg["venv"], "bin", "python")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "TRACELOOP_", "OPENINFERENCE_"))}
        env["PYTHONWARNINGS"] = "ignore"
        cmd = [py, os.path.join(HERE, "scenarios.py"), "--run", run, "--out", os.path.join(args.out, run), "--variants", str(args.variants)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
        summary = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
        print(summary or f"{run}: no summary (exit {p.returncode})", flush=True)
        errs = [ln for ln in p.stderr.splitlines() if "FAILED" in ln or "Error" in ln]
        for ln in errs[:10]:
            print("   ", ln, flush=True)
        try:
            if p.returncode != 0 or json.loads(summary).get("scenarios_failed"):
                failed.append(run)
        except json.JSONDecodeError:
            failed.append(run)
    if failed:
        print("runs with failures:", ", ".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
