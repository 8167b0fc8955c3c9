"""Batch-file samples and one-request-per-file trace samples, made from the corpus.

    target/corpus-venv/official/bin/python tests/corpus/traces/make_batches.py

Writes crates/envelope/tests/fixtures/batch/:
  openai_batch.jsonl   OpenAI Batch input lines {custom_id, method, url, body}; the bodies are
                       the ones the openai SDK really sent in the corpus (streaming ones left out:
                       the Batch API does not stream), for /v1/chat/completions and /v1/responses
  anthropic_batch.json the Message Batches create request as the anthropic SDK really sent it
                       (client.messages.batches.create against the fake provider), params taken
                       from the corpus's non-streaming Anthropic bodies
  bodies.jsonl         plain request bodies, one per line (OpenAI chat, OpenAI responses,
                       Anthropic), as sent
  gemini_bodies.jsonl, bedrock_bodies.jsonl
                       plain Gemini generateContent / Bedrock Converse bodies, as sent (their model
                       is in the URL, not the body: each line here is the body alone)
and crates/envelope/tests/fixtures/traces/single/: a few traces each as ONE pretty-printed
ExportTraceServiceRequest (and its ExportLogsServiceRequest), the other form a Collector
file exporter writes.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIX = os.path.join(ROOT, "crates", "envelope", "tests", "fixtures")
sys.path.insert(0, HERE)


def sent(run):
    with open(os.path.join(FIX, "traces", run, "sent.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def openai_batch():
    lines = []
    for e in sent("openinference-openai"):
        b = e["body"]
        if b.get("stream") or e["path"] not in ("/v1/chat/completions", "/v1/responses"):
            continue
        if "previous_response_id" in b:
            continue  # refers to a stored response: not meaningful in a batch
        scen = e["scenario"].split("#")[0].replace(".", "-")
        lines.append({"custom_id": f"{scen}-{e['seq']}", "method": "POST", "url": e["path"], "body": b})
    with open(os.path.join(FIX, "batch", "openai_batch.jsonl"), "w", encoding="utf-8") as f:
        for line in lines:
            f.write(dumps(line) + "\n")
    return len(lines)


def anthropic_batch():
    import anthropic

    import fake_provider

    params = []
    for e in sent("anthropic-sdk-content"):
        b = e["body"]
        if b.get("stream"):
            continue
        params.append((e["scenario"].split("#")[0].replace(".", "-") + f"-{e['seq']}", b))
    tmp = os.path.join(FIX, "batch", ".anthropic_sent.jsonl")
    srv = fake_provider.serve(tmp)
    try:
        client = anthropic.Anthropic(api_key="sk-ant-test-corpus-0000", base_url=f"http://127.0.0.1:{srv.server_address[1]}", max_retries=0)
        client.messages.batches.create(requests=[{"custom_id": cid, "params": p} for cid, p in params])
    finally:
        srv.shutdown()
        srv.recorder.close()
    with open(tmp, encoding="utf-8") as f:
        recorded = [json.loads(line) for line in f]
    os.remove(tmp)
    (req,) = recorded
    assert req["path"] == "/v1/messages/batches", req["path"]
    with open(os.path.join(FIX, "batch", "anthropic_batch.json"), "w", encoding="utf-8") as f:
        json.dump(req["body"], f, ensure_ascii=False, indent=2)
        f.write("\n")
    return len(req["body"]["requests"])


def plain_bodies():
    n = {}
    picks = [("openinference-openai", ("/v1/chat/completions", "/v1/responses")), ("anthropic-sdk-content", ("/v1/messages",))]
    with open(os.path.join(FIX, "batch", "bodies.jsonl"), "w", encoding="utf-8") as f:
        for run, paths in picks:
            for e in sent(run):
                if e["path"] in paths:
                    f.write(dumps(e["body"]) + "\n")
                    n["bodies"] = n.get("bodies", 0) + 1
    for name, run in (("gemini_bodies.jsonl", "openinference-google-genai"), ("bedrock_bodies.jsonl", "openinference-bedrock")):
        with open(os.path.join(FIX, "batch", name), "w", encoding="utf-8") as f:
            for e in sent(run):
                if e["path"].endswith(("generateContent", "/converse", "/converse-stream")):
                    f.write(dumps(e["body"]) + "\n")
                    n[name] = n.get(name, 0) + 1
    return n


def merge_requests(path, trace_id, kind):
    """All records of one trace, merged into one Export*ServiceRequest (grouped by resource+scope)."""
    res_key, scope_key, rec_key = (
        ("resourceSpans", "scopeSpans", "spans") if kind == "traces" else ("resourceLogs", "scopeLogs", "logRecords")
    )
    groups = {}
    order = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            req = json.loads(line)
            for rs in req.get(res_key, []):
                for ss in rs.get(scope_key, []):
                    recs = [r for r in ss.get(rec_key, []) if r.get("traceId") == trace_id]
                    if not recs:
                        continue
                    k = (dumps(rs.get("resource", {})), dumps(ss.get("scope", {})), ss.get("schemaUrl", ""), rs.get("schemaUrl", ""))
                    if k not in groups:
                        groups[k] = []
                        order.append(k)
                    groups[k].extend(recs)
    by_res = {}
    for k in order:
        res, scope, sschema, rschema = k
        entry = by_res.setdefault((res, rschema), {"resource": json.loads(res), scope_key: []})
        if rschema:
            entry["schemaUrl"] = rschema
        sc = {"scope": json.loads(scope), rec_key: groups[k]}
        if sschema:
            sc["schemaUrl"] = sschema
        entry[scope_key].append(sc)
    return {res_key: list(by_res.values())}


def single_files():
    out = os.path.join(FIX, "traces", "single")
    os.makedirs(out, exist_ok=True)
    made = []
    for run, scenario in (
        ("openinference-openai", "chat.parallel_tools#0"),
        ("otel-openai-v2-latest-span-and-event", "chat.tools#0"),
        ("openllmetry-anthropic", "messages.tools#0"),
    ):
        e = next(x for x in sent(run) if x.get("scenario") == scenario)
        tid = e["traceId"]
        base = f"{run}.{scenario.split('#')[0].replace('.', '_')}"
        traces = merge_requests(os.path.join(FIX, "traces", run, "traces.jsonl"), tid, "traces")
        with open(os.path.join(out, base + ".traces.json"), "w", encoding="utf-8") as f:
            json.dump(traces, f, ensure_ascii=False, indent=2)
            f.write("\n")
        made.append(base + ".traces.json")
        lp = os.path.join(FIX, "traces", run, "logs.jsonl")
        if os.path.exists(lp):
            logs = merge_requests(lp, tid, "logs")
            if logs["resourceLogs"]:
                with open(os.path.join(out, base + ".logs.json"), "w", encoding="utf-8") as f:
                    json.dump(logs, f, ensure_ascii=False, indent=2)
                    f.write("\n")
                made.append(base + ".logs.json")
        with open(os.path.join(out, base + ".sent.jsonl"), "w", encoding="utf-8") as f:
            for x in sent(run):
                if x.get("traceId") == tid:
                    f.write(dumps(x) + "\n")
        made.append(base + ".sent.jsonl")
    return made


def main():
    os.makedirs(os.path.join(FIX, "batch"), exist_ok=True)
    print("openai_batch.jsonl lines:", openai_batch())
    print("anthropic_batch.json requests:", anthropic_batch())
    print("plain bodies:", plain_bodies())
    print("single-request trace files:", single_files())


if __name__ == "__main__":
    main()
