"""What each instrumentation records of what the SDK sent: a feature matrix per run.

    python3 tests/corpus/traces/analyse.py [FIXTURES_DIR] [--markdown]

For every request in sent.jsonl, takes the span it joins (its traceparent) and that span's
ancestors below the scenario root, plus the log records of those spans, and collects every string
they hold (JSON-string attributes are parsed and searched inside). Then, for each feature the
request HAS, checks whether the telemetry has it too:

  system, user_text, assistant_history, tool_call_history, tool_result, tool_definitions,
  tool_schema, image_base64, image_url, document_base64, temperature, max_tokens, top_p, stop, seed,
  response_schema, stream, n, output_text, output_reasoning, output_tool_calls

Prints per run: feature -> recorded/present (e.g. 3/5). Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


IMAGE_URLS = ("https://example.com/images/checkerboard.png", "s3://corpus-bucket/images/checkerboard.png")


NESTED_KEYS: set = set()  # object keys met inside values (kvlist keys, keys of parsed JSON)


def leaves(v, out):
    """Every string / key / number in an AnyValue or JSON value, parsing JSON strings."""
    if isinstance(v, dict):
        if set(v) <= {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"} and v:
            for k, x in v.items():
                if k == "stringValue":
                    leaves_str(x, out)
                elif k == "arrayValue":
                    for y in x.get("values", []):
                        leaves(y, out)
                elif k == "kvlistValue":
                    for kv in x.get("values", []):
                        out.add(kv["key"])
                        NESTED_KEYS.add(kv["key"])
                        leaves(kv.get("value", {}), out)
                else:
                    out.add(str(x))
            return
        for k, x in v.items():
            out.add(str(k))
            NESTED_KEYS.add(str(k))
            leaves(x, out)
    elif isinstance(v, list):
        for x in v:
            leaves(x, out)
    elif isinstance(v, str):
        leaves_str(v, out)
    elif v is not None:
        out.add(str(v))


def leaves_str(s, out):
    out.add(s)
    t = s.strip()
    if t[:1] in "[{" and t[-1:] in "]}":
        try:
            leaves(json.loads(t), out)
        except ValueError:
            pass


def load_run(d):
    spans = {}
    for line in open(os.path.join(d, "traces.jsonl"), encoding="utf-8"):
        for rs in json.loads(line).get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                for s in ss.get("spans", []):
                    spans[s["spanId"]] = s
    logs = {}
    lp = os.path.join(d, "logs.jsonl")
    if os.path.exists(lp):
        for line in open(lp, encoding="utf-8"):
            for rl in json.loads(line).get("resourceLogs", []):
                for sl in rl.get("scopeLogs", []):
                    for r in sl.get("logRecords", []):
                        logs.setdefault(r.get("spanId"), []).append(r)
    sent = [json.loads(line) for line in open(os.path.join(d, "sent.jsonl"), encoding="utf-8")]
    return spans, logs, sent


def related_spans(e, spans):
    """The span the request's traceparent names and its ancestors below the scenario root, plus
    every other span of the trace (not the root) whose time covers the request: some
    instrumentations do not make their span current (the request then names the root, or the
    SDK's own span)."""
    out = []
    sid = e.get("spanId")
    while sid and sid in spans and spans[sid]["name"] != "corpus.scenario":
        out.append(sid)
        sid = spans[sid].get("parentSpanId")
    t = int(e.get("timeUnixNano", 0))
    for sid, s in spans.items():
        if sid in out or s["traceId"] != e.get("traceId") or s["name"] == "corpus.scenario":
            continue
        if int(s["startTimeUnixNano"]) <= t <= int(s["endTimeUnixNano"]):
            out.append(sid)
    return out


def telemetry_strings(e, spans, logs):
    """(every string, every key: attribute keys and the object keys inside values)."""
    out = set()
    keys = set()
    NESTED_KEYS.clear()
    for sid in related_spans(e, spans):
        s = spans[sid]
        keys.add(s["name"])  # a span name can tell a streamed call ("GenerateContentStream")
        for a in s.get("attributes", []):
            keys.add(a["key"])
            out.add(a["key"])
            leaves(a["value"], out)
        for ev in s.get("events", []):
            out.add(ev.get("name", ""))
            for a in ev.get("attributes", []):
                keys.add(a["key"])
                leaves(a["value"], out)
        for r in logs.get(sid, []):
            leaves(r.get("body", {}), out)
            for a in r.get("attributes", []):
                keys.add(a["key"])
                leaves(a["value"], out)
    return out, keys | NESTED_KEYS


def has(strings, needle):
    return any(needle in s for s in strings)


def texts_of_role(body, path):
    """(system texts, user texts, assistant texts, tool-call ids, tool result markers) of a request."""
    sys_t, user_t, asst_t, call_ids, results = [], [], [], [], []

    def content_texts(c):
        if isinstance(c, str):
            return [c]
        out = []
        for p in c or []:
            if isinstance(p, dict):
                for k in ("text",):
                    if isinstance(p.get(k), str):
                        out.append(p[k])
        return out

    if path.endswith("/chat/completions"):
        for m in body.get("messages", []):
            r = m.get("role")
            if r in ("system", "developer"):
                sys_t += content_texts(m.get("content"))
            elif r == "user":
                user_t += content_texts(m.get("content"))
            elif r == "assistant":
                asst_t += content_texts(m.get("content"))
                call_ids += [tc["id"] for tc in m.get("tool_calls") or []]
            elif r == "tool":
                results.append(m.get("content"))
    elif path.endswith("/responses"):
        if body.get("instructions"):
            sys_t.append(body["instructions"])
        inp = body.get("input")
        if isinstance(inp, str):
            user_t.append(inp)
        for it in inp if isinstance(inp, list) else []:
            if it.get("type") == "function_call":
                call_ids.append(it["call_id"])
            elif it.get("type") == "function_call_output":
                results.append(it["output"])
            elif it.get("role") in ("system", "developer"):
                sys_t += [p.get("text") for p in it["content"]] if isinstance(it["content"], list) else [it["content"]]
            elif it.get("role") == "user":
                user_t += [p["text"] for p in it["content"] if "text" in p] if isinstance(it["content"], list) else [it["content"]]
    elif path.endswith("/messages") or path.endswith("/invoke"):
        s = body.get("system")
        if isinstance(s, str):
            sys_t.append(s)
        elif isinstance(s, list):
            sys_t += [b.get("text") for b in s if b.get("text")]
        for m in body.get("messages", []):
            c = m.get("content")
            if m.get("role") == "user":
                user_t += content_texts(c)
                for b in c if isinstance(c, list) else []:
                    if b.get("type") == "tool_result":
                        results.append(b.get("content"))
                    if "toolResult" in b:
                        results.append(json.dumps(b["toolResult"]))
            else:
                asst_t += content_texts(c)
                for b in c if isinstance(c, list) else []:
                    if b.get("type") == "tool_use":
                        call_ids.append(b["id"])
    elif "generateContent" in path or "GenerateContent" in path:
        si = body.get("systemInstruction") or body.get("system_instruction")
        if si:
            sys_t += [p.get("text") for p in si.get("parts", []) if p.get("text")]
        for c in body.get("contents", []):
            for p in c.get("parts", []):
                if "text" in p:
                    (user_t if c.get("role") == "user" else asst_t).append(p["text"])
                if "functionResponse" in p:
                    results.append(json.dumps(p["functionResponse"].get("response")))
                if "functionCall" in p:
                    call_ids.append(p["functionCall"]["name"])
    elif "/converse" in path:
        sys_t += [b["text"] for b in body.get("system", []) if "text" in b]
        for m in body.get("messages", []):
            for b in m.get("content", []):
                if "text" in b:
                    (user_t if m["role"] == "user" else asst_t).append(b["text"])
                if "toolResult" in b:
                    results.append(json.dumps(b["toolResult"]["content"]))
                if "toolUse" in b:
                    call_ids.append(b["toolUse"]["toolUseId"])
    return sys_t, user_t, asst_t, call_ids, results


def features(e):
    """The features a request has, each with a predicate over (strings, keys)."""
    body = e.get("body") or {}
    path = e["path"]
    raw = json.dumps(body)
    sys_t, user_t, asst_t, call_ids, results = texts_of_role(body, path)
    f = {}
    if sys_t:
        f["system"] = lambda s, k, t=sys_t: all(has(s, x[:40]) for x in t if x)
    if user_t:
        f["user_text"] = lambda s, k, t=user_t: all(has(s, x[:40]) for x in t if x)
    if asst_t:
        f["assistant_history"] = lambda s, k, t=asst_t: all(has(s, x[:30]) for x in t if x)
    if call_ids:
        f["tool_call_history"] = lambda s, k, t=call_ids: all(has(s, x) for x in t)
    if results:
        f["tool_result"] = lambda s, k: has(s, "temperature_c") or has(s, "A-1042") and has(s, "shipped")
    if "Get the current weather" in raw:
        f["tool_definitions"] = lambda s, k: has(s, "Get the current weather")
        f["tool_schema"] = lambda s, k: "properties" in s and "city" in s
    m = re.search(r"iVBORw0KGgo[A-Za-z0-9+/_=-]{20}", raw)
    if m:
        f["image_base64"] = lambda s, k, n=m.group(0)[:30]: has(s, n)
    m = re.search(r"JVBERi0xLj[A-Za-z0-9+/_=-]{20}", raw)
    if m:
        f["document_base64"] = lambda s, k, n=m.group(0)[:30]: has(s, n)
    for u in IMAGE_URLS:
        if u in raw:
            f["image_url"] = lambda s, k, u=u: has(s, u)
    for name, pats in {
        "temperature": ["temperature"],
        "max_tokens": ["max_tokens", "maxTokens", "max_output_tokens", "maxOutputTokens", "max_completion_tokens"],
        "top_p": ["top_p", "topP"],
        "stop": ["stop", "stop_sequences", "stopSequences"],
        "seed": ["seed"],
    }.items():
        present = _param_present(body, pats)
        if present:
            # a key naming the parameter (values are not looked at: "stop" is also a finish reason)
            f[name] = lambda s, k, p=pats, name=name: any(_key_mentions(x, name, p) or x in p for x in k)
    if "vegetarian" in raw:
        # the schema itself, not the reply (whose JSON also has a "vegetarian" key)
        f["response_schema"] = lambda s, k: "vegetarian" in s and ("properties" in s or "required" in s)
    if body.get("stream") or "stream" in path.lower():
        f["stream"] = lambda s, k: any("stream" in x.lower() for x in k)
    if body.get("n", 1) != 1:
        f["n"] = lambda s, k: any("choice.count" in x or x == "n" or x.endswith(".n") for x in k)
    reply = e.get("reply") or {}
    if reply.get("text"):
        f["output_text"] = lambda s, k, t=reply["text"]: has(s, t[:40]) or has(s, t[-30:])
    if reply.get("reasoning"):
        f["output_reasoning"] = lambda s, k, t=reply["reasoning"]: has(s, t[:40])
    if reply.get("toolCalls"):
        f["output_tool_calls"] = lambda s, k: has(s, "Paris, France") or has(s, "sample order_id")
    return f


def _param_present(body, pats):
    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in pats:
                    return True
                if k in ("messages", "contents", "input", "tools", "system"):
                    continue
                if walk(x):
                    return True
        return False

    return walk(body)


def _key_mentions(key, name, pats):
    k = key.lower()
    if name == "stop":
        return "stop_sequences" in k or k.endswith(".stop")
    if name == "max_tokens":
        return "max_tokens" in k or "max_output_tokens" in k or "max_completion_tokens" in k
    return any(p.lower() in k for p in pats)


ORDER = ["system", "user_text", "assistant_history", "tool_call_history", "tool_result", "tool_definitions", "tool_schema",
         "image_base64", "image_url", "document_base64", "temperature", "max_tokens", "top_p", "stop", "seed", "response_schema", "stream", "n", "output_text", "output_reasoning", "output_tool_calls"]


MISSES = {}


def analyse(d):
    spans, logs, sent = load_run(d)
    res = {}
    for e in sent:
        strings, keys = telemetry_strings(e, spans, logs)
        for name, pred in features(e).items():
            hit, tot = res.get(name, (0, 0))
            ok = pred(strings, keys)
            res[name] = (hit + (1 if ok else 0), tot + 1)
            if not ok:
                MISSES.setdefault((os.path.basename(d), name), []).append(e.get("scenario", str(e["seq"])))
    return res


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.join(HERE, "..", "..", "..", "crates", "envelope", "tests", "fixtures", "traces")
    runs = sorted(n for n in os.listdir(root) if os.path.exists(os.path.join(root, n, "sent.jsonl")))
    table = {r: analyse(os.path.join(root, r)) for r in runs}
    if "--misses" in sys.argv:
        for (r, f), scen in sorted(MISSES.items()):
            print(f"{r:40} {f:18} {', '.join(scen)}")
        return
    if "--json" in sys.argv:
        print(json.dumps(table, indent=1))
        return
    if "--markdown" in sys.argv:
        print("| run | " + " | ".join(ORDER) + " |")
        print("| --- |" + " :---: |" * len(ORDER))
        for r in runs:
            cells = []
            for f in ORDER:
                if f not in table[r]:
                    cells.append("")
                else:
                    h, t = table[r][f]
                    cells.append("✓" if h == t else ("✗" if h == 0 else f"{h}/{t}"))
            print(f"| `{r}` | " + " | ".join(cells) + " |")
        return
    for r in runs:
        print(r)
        print("   " + ", ".join(f"{f} {table[r][f][0]}/{table[r][f][1]}" for f in ORDER if f in table[r]))


if __name__ == "__main__":
    main()
