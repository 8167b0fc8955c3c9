"""Check and summarise the corpus (standard library only).

    python3 tests/corpus/traces/verify.py [FIXTURES_DIR] [--json]

For every run directory: ids are lowercase hex of the right length; every log record's
traceId/spanId names a span of the same run; every sent.jsonl line's traceId/spanId names a span;
counts LLM-call spans (a span carrying gen_ai.* or llm.* request attributes) against requests
sent; lists the span attribute keys (indexes folded to {i}) and log event names seen.
Exits non-zero on any failed check.
"""

from __future__ import annotations

import json
import os
import re
import sys

HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")
LLM_MARKERS = ("gen_ai.request.model", "llm.model_name", "gen_ai.operation.name", "llm.provider")


def spans_of(path):
    for line in open(path, encoding="utf-8"):
        req = json.loads(line)
        for rs in req.get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    yield ss.get("scope", {}), s


def logs_of(path):
    for line in open(path, encoding="utf-8"):
        req = json.loads(line)
        for rl in req.get("resourceLogs", []):
            for sl in rl.get("scopeLogs", []):
                for r in sl.get("logRecords", []):
                    yield sl.get("scope", {}), r


def attr_map(s):
    return {a["key"]: a["value"] for a in s.get("attributes", [])}


def is_llm_call(s):
    a = attr_map(s)
    if a.get("gen_ai.operation.name", {}).get("stringValue") in ("execute_tool", "invoke_agent", "embeddings", "create_agent"):
        return False
    if a.get("openinference.span.kind", {}).get("stringValue") not in (None, "LLM"):
        return False
    return any(k in a for k in LLM_MARKERS)


def fold(key):
    return re.sub(r"\.\d+(?=\.|$)", ".{i}", key)


def check_run(d):
    errors = []
    info = {"dir": os.path.basename(d)}
    tpath, lpath, spath = (os.path.join(d, f) for f in ("traces.jsonl", "logs.jsonl", "sent.jsonl"))
    spans = {}
    scopes = {}
    keys = {}
    llm = 0
    for scope, s in spans_of(tpath):
        for k in ("traceId", "spanId"):
            pat = HEX32 if k == "traceId" else HEX16
            if not pat.match(s.get(k, "")):
                errors.append(f"span {s.get('name')}: {k}={s.get(k)!r} is not lowercase hex")
        if "parentSpanId" in s and not HEX16.match(s["parentSpanId"]):
            errors.append(f"span {s.get('name')}: parentSpanId={s['parentSpanId']!r}")
        spans[s["spanId"]] = s
        name = scope.get("name", "?")
        scopes.setdefault(name, {}).setdefault(s["name"], 0)
        scopes[name][s["name"]] += 1
        if is_llm_call(s):
            llm += 1
            per = keys.setdefault(name, {})
            for k in attr_map(s):
                per[fold(k)] = per.get(fold(k), 0) + 1
    info["spans"] = len(spans)
    info["llm_spans"] = llm
    info["scopes"] = scopes
    info["llm_attribute_keys"] = {sc: dict(sorted(v.items())) for sc, v in keys.items()}
    events = {}
    if os.path.exists(lpath):
        n = 0
        for scope, r in logs_of(lpath):
            n += 1
            name = r.get("eventName") or attr_map(r).get("event.name", {}).get("stringValue", "?")
            events[name] = events.get(name, 0) + 1
            tid, sid = r.get("traceId"), r.get("spanId")
            if not (tid and HEX32.match(tid) and sid and HEX16.match(sid)):
                errors.append(f"log {name}: ids not hex: {tid!r} {sid!r}")
            elif sid not in spans or spans[sid]["traceId"] != tid:
                errors.append(f"log {name}: span {tid}/{sid} not in traces.jsonl")
        info["log_records"] = n
    info["log_events"] = events
    sent = 0
    joined = 0
    for line in open(spath, encoding="utf-8"):
        e = json.loads(line)
        sent += 1
        sid = e.get("spanId")
        if sid in spans and spans[sid]["traceId"] == e.get("traceId"):
            joined += 1
    info["requests_sent"] = sent
    info["requests_joined_to_a_span"] = joined
    if sent != joined:
        errors.append(f"{sent - joined} of {sent} requests do not join a span")
    info["errors"] = errors
    return info


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..", "..", "crates", "envelope", "tests", "fixtures", "traces")
    out = []
    bad = 0
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.isdir(d) or not os.path.exists(os.path.join(d, "traces.jsonl")):
            continue
        info = check_run(d)
        out.append(info)
        bad += len(info["errors"])
    if "--json" in sys.argv:
        print(json.dumps(out, indent=1))
    else:
        for i in out:
            print(f"{i['dir']:40} spans={i['spans']:4} llm={i['llm_spans']:4} sent={i['requests_sent']:4} "
                  f"joined={i['requests_joined_to_a_span']:4} logs={i.get('log_records', 0):4} errors={len(i['errors'])}")
            for e in i["errors"][:5]:
                print("    !", e)
    print(f"{len(out)} runs, {sum(i['llm_spans'] for i in out)} LLM-call spans, {sum(i['requests_sent'] for i in out)} requests, {bad} errors", file=sys.stderr if "--json" in sys.argv else sys.stdout)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
