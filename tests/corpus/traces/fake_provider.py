"""Loopback fake LLM provider that records every request body it receives.

Speaks just enough of five wire formats for the official SDKs:

  POST /v1/chat/completions                      OpenAI Chat Completions (also stream=true SSE)
  POST /v1/responses                             OpenAI Responses (also stream=true SSE)
  POST /v1/messages                              Anthropic Messages (also stream=true SSE)
  POST /v1beta/models/{model}:generateContent    Gemini (google-genai SDK)
  POST /v1beta/models/{model}:streamGenerateContent?alt=sse
  POST /model/{modelId}/converse                 Amazon Bedrock Converse (boto3 bedrock-runtime)
  POST /model/{modelId}/converse-stream          (AWS event-stream framing)
  POST /model/{modelId}/invoke                   Bedrock InvokeModel with an Anthropic body

Every request is appended to `sent.jsonl` as it arrived (method, path, headers of interest, the body
parsed as JSON and, when the bytes are not JSON, the raw text) together with the trace/span id read
from the W3C `traceparent` header the scenario runner injects.

Replies are deterministic: a tool call when tools are declared and the conversation does not yet
carry a tool result, JSON when a JSON schema is asked for, plain text otherwise. Usage numbers are
derived from the body size so they vary realistically.

Only the standard library is used. Bind address is always 127.0.0.1.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import re
import struct
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLIES = [
    "Paris is the capital of France. It sits on the Seine and has about two million inhabitants.",
    "Here is a short answer: the function returns the sum of the two arguments.",
    "I looked at the image: it is a tiny red-and-blue checkerboard, two by two pixels.",
    "Sure. Step 1: preheat the oven to 200 °C. Step 2: bake for 12 minutes.",
    "The weather in Paris is mild today: 18 °C, light wind from the west, no rain expected.",
    "Bonjour ! Je peux vous aider à rédiger ce courriel.",
    "The answer is 42. (Your question contained the words \"life\", \"universe\" and \"everything\".)",
    "Done — I have summarised the document in three bullet points:\n- scope\n- risks\n- timeline",
]


THOUGHT = "The user wants a short factual answer. Check the question, recall the fact, answer in one sentence."


def _digest(data: bytes) -> int:
    return int.from_bytes(hashlib.sha256(data).digest()[:4], "big")


def pick_reply(raw: bytes) -> str:
    return REPLIES[_digest(raw) % len(REPLIES)]


def usage_for(raw: bytes, text: str) -> tuple[int, int]:
    return max(5, len(raw) // 4), max(1, len(text) // 4)


def sample_from_schema(schema, name: str = ""):
    """A value that fits a JSON schema well enough for a fake reply."""
    if not isinstance(schema, dict):
        return "value"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "anyOf" in schema and schema["anyOf"]:
        return sample_from_schema(schema["anyOf"][0], name)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    if isinstance(t, str):
        t = t.lower()
    if t == "object" or (t is None and "properties" in schema):
        props = schema.get("properties") or {}
        return {k: sample_from_schema(v, k) for k, v in props.items()}
    if t == "array":
        return [sample_from_schema(schema.get("items") or {"type": "string"}, name)]
    if t == "integer":
        return 3
    if t == "number":
        return 21.5
    if t == "boolean":
        return True
    lname = name.lower()
    if "city" in lname or "location" in lname:
        return "Paris, France"
    if "query" in lname or "q" == lname:
        return "capital of France"
    if "date" in lname:
        return "2025-05-01"
    if "unit" in lname:
        return "celsius"
    if "email" in lname or "to" == lname:
        return "ana@example.com"
    return f"sample {name or 'text'}"


class Recorder:
    """Numbers requests in arrival order; writes them, in that order, when closed."""

    def __init__(self, path: str):
        self.lock = threading.Lock()
        self.seq = 0
        self.path = path
        self.entries: list[dict] = []

    def arrived(self) -> int:
        with self.lock:
            self.seq += 1
            return self.seq

    def record(self, seq: int, entry: dict):
        with self.lock:
            self.entries.append({"seq": seq, **entry})

    def close(self):
        with self.lock:
            with open(self.path, "a", encoding="utf-8") as f:
                for e in sorted(self.entries, key=lambda e: e["seq"]):
                    f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.entries = []


# --------------------------------------------------------------------------------------------
# AWS event-stream framing (for converse-stream)
# --------------------------------------------------------------------------------------------


def _es_header(name: str, value: str) -> bytes:
    n = name.encode()
    v = value.encode()
    return struct.pack("B", len(n)) + n + b"\x07" + struct.pack(">H", len(v)) + v


def event_stream_message(event_type: str, payload: dict) -> bytes:
    headers = (
        _es_header(":event-type", event_type)
        + _es_header(":content-type", "application/json")
        + _es_header(":message-type", "event")
    )
    body = json.dumps(payload, separators=(",", ":")).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude_crc = struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    msg = prelude + prelude_crc + headers + body
    return msg + struct.pack(">I", binascii.crc32(msg) & 0xFFFFFFFF)


# --------------------------------------------------------------------------------------------
# Decisions shared by the formats
# --------------------------------------------------------------------------------------------


class Plan:
    """What to answer: text, JSON, or tool calls."""

    def __init__(self, kind: str, text: str = "", calls: list | None = None):
        self.kind = kind
        self.text = text
        self.calls = calls or []  # [(name, args_dict)]


def plan_reply(raw: bytes, tools: list, has_tool_result: bool, json_schema, tool_choice_none=False,
               forced: str | None = None) -> Plan:
    """tools: [(name, schema)]."""
    if tools and not has_tool_result and not tool_choice_none:
        # Two parallel calls when asked to (scenario sets header), otherwise the first tool.
        chosen = tools[:2] if forced == "parallel" and len(tools) > 1 else tools[:1]
        return Plan("tools", calls=[(n, sample_from_schema(s)) for n, s in chosen])
    if json_schema is not None:
        obj = sample_from_schema(json_schema)
        return Plan("json", text=json.dumps(obj, ensure_ascii=False))
    if has_tool_result:
        return Plan("text", text="The weather in Paris is 18 °C and sunny, according to the tool result.")
    return Plan("text", text=pick_reply(raw))


def call_id(prefix: str, raw: bytes, i: int, n: int = 24) -> str:
    h = hashlib.sha256(raw + bytes([i])).hexdigest()
    return prefix + h[:n]


# --------------------------------------------------------------------------------------------
# Handlers
# --------------------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    server_version = "corpus-fake-provider/1"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    # -- plumbing --------------------------------------------------------------------------
    def _send_json(self, obj, status=200, extra_headers=None):
        data = json.dumps(obj, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self, ctype="text/event-stream"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-amzn-RequestId", "00000000-0000-4000-8000-000000000000")
        self.end_headers()

    def _chunk(self, data: bytes):
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _sse(self, obj, event: str | None = None):
        s = ""
        if event:
            s += f"event: {event}\n"
        s += "data: " + (obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)) + "\n\n"
        self._chunk(s.encode())

    def do_GET(self):
        self._send_json({"error": {"message": "not found"}}, 404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self._read_chunked()
        parsed_url = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parsed_url.path)
        seq = self.seq = self.server.recorder.arrived()
        entry = {"method": "POST", "path": path}
        if parsed_url.query:
            entry["query"] = parsed_url.query
        tp = self.headers.get("traceparent")
        if tp:
            parts = tp.split("-")
            if len(parts) == 4:
                entry["traceId"] = parts[1]
                entry["spanId"] = parts[2]
        scen = self.headers.get("x-corpus-scenario")
        if scen:
            entry["scenario"] = scen
        try:
            body = json.loads(raw.decode("utf-8")) if raw else None
            entry["body"] = body
            # The parsed body is what matters to a reader; keep the exact bytes as well whenever
            # no usual serialisation of the parsed body gives them back.
            # First match wins; for an all-ASCII body several match, and this order names the form
            # the SDKs use (openai/anthropic: compact UTF-8; google-genai/boto3: Python's default).
            forms = {
                "compact": dict(ensure_ascii=False, separators=(",", ":")),
                "spaced-ascii": dict(ensure_ascii=True, separators=(", ", ": ")),
                "compact-ascii": dict(ensure_ascii=True, separators=(",", ":")),
                "spaced": dict(ensure_ascii=False, separators=(", ", ": ")),
            }
            form = next((k for k, kw in forms.items() if raw and json.dumps(body, **kw).encode() == raw), None)
            if form:
                entry["bodyForm"] = form
            elif raw:
                entry["raw"] = raw.decode("utf-8")
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = None
            entry["raw"] = raw.decode("utf-8", "replace")
        entry["timeUnixNano"] = str(time.time_ns())
        forced = self.headers.get("x-corpus-reply")
        self.plan = None
        try:
            self._dispatch(path, raw, body, forced)
        finally:
            # Recorded once answered, with what the reply carried (the output a trace should show).
            if self.plan is not None:
                reply = {"kind": self.plan.kind}
                if self.plan.text:
                    reply["text"] = self.plan.text
                if getattr(self.plan, "thought", None):
                    reply["reasoning"] = self.plan.thought
                if self.plan.calls:
                    reply["toolCalls"] = [{"name": n, "arguments": a} for n, a in self.plan.calls]
                entry["reply"] = reply
            self.server.recorder.record(seq, entry)

    def _id(self, prefix: str, raw: bytes, i: int, n: int = 24) -> str:
        """An id unique to this request (real providers never repeat one), stable for a run."""
        return call_id(prefix, b"%d:" % self.seq + raw, i, n)

    def _plan(self, *args, **kwargs) -> Plan:
        self.plan = plan_reply(*args, **kwargs)
        return self.plan

    def _dispatch(self, path, raw, body, forced):
        try:
            if path == "/v1/chat/completions":
                return self.openai_chat(raw, body or {}, forced)
            if path == "/v1/responses":
                return self.openai_responses(raw, body or {}, forced)
            if path == "/v1/messages/batches":
                return self.anthropic_batch(raw, body or {})
            if path == "/v1/messages":
                return self.anthropic(raw, body or {}, forced)
            m = re.match(r"^/v1(?:beta|alpha|)/models/([^:]+):(generateContent|streamGenerateContent)$", path)
            if m:
                return self.gemini(raw, body or {}, m.group(1), m.group(2) == "streamGenerateContent", forced)
            m = re.match(r"^/model/(.+)/(converse|converse-stream|invoke|invoke-with-response-stream)$", path)
            if m:
                if m.group(2) == "converse":
                    return self.bedrock_converse(raw, body or {}, m.group(1), False, forced)
                if m.group(2) == "converse-stream":
                    return self.bedrock_converse(raw, body or {}, m.group(1), True, forced)
                return self.bedrock_invoke(raw, body or {}, m.group(1), forced)
        except (BrokenPipeError, ConnectionResetError):
            return
        self._send_json({"error": {"message": f"no route for {path}"}}, 404)

    def _read_chunked(self) -> bytes:
        out = b""
        while True:
            line = self.rfile.readline().strip()
            size = int(line.split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    # -- OpenAI Chat Completions -----------------------------------------------------------
    def openai_chat(self, raw, body, forced):
        msgs = body.get("messages") or []
        tools = [
            (t.get("function", {}).get("name", "tool"), t.get("function", {}).get("parameters") or {})
            for t in body.get("tools") or []
            if t.get("type") == "function"
        ]
        has_result = bool(msgs) and msgs[-1].get("role") == "tool"
        rf = body.get("response_format") or {}
        schema = None
        if rf.get("type") == "json_schema":
            schema = (rf.get("json_schema") or {}).get("schema") or {}
        elif rf.get("type") == "json_object":
            schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
        plan = self._plan(raw, tools, has_result, schema, body.get("tool_choice") == "none", forced)
        model = body.get("model", "gpt-4o-mini")
        created = 1746000000 + _digest(raw) % 100000
        cid = self._id("chatcmpl-", raw, 0, 29)
        pt, ct = usage_for(raw, plan.text or json.dumps(plan.calls))
        n = int(body.get("n") or 1)
        tool_calls = [
            {
                "id": self._id("call_", raw, i),
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
            for i, (name, args) in enumerate(plan.calls)
        ]
        finish = "tool_calls" if plan.kind == "tools" else "stop"
        usage = {
            "prompt_tokens": pt,
            "completion_tokens": ct * n,
            "total_tokens": pt + ct * n,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }
        if body.get("stream"):
            self._start_stream()
            base = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_corpus01",
                "service_tier": "default",
            }
            for idx in range(n):
                self._sse({**base, "choices": [{"index": idx, "delta": {"role": "assistant", "content": "", "refusal": None}, "logprobs": None, "finish_reason": None}]})
                if plan.kind == "tools":
                    for i, tc in enumerate(tool_calls):
                        self._sse({**base, "choices": [{"index": idx, "delta": {"tool_calls": [{"index": i, "id": tc["id"], "type": "function", "function": {"name": tc["function"]["name"], "arguments": ""}}]}, "logprobs": None, "finish_reason": None}]})
                        args = tc["function"]["arguments"]
                        for k in range(0, len(args), 12):
                            self._sse({**base, "choices": [{"index": idx, "delta": {"tool_calls": [{"index": i, "function": {"arguments": args[k:k + 12]}}]}, "logprobs": None, "finish_reason": None}]})
                else:
                    words = re.findall(r"\S+\s*", plan.text)
                    for k in range(0, len(words), 3):
                        self._sse({**base, "choices": [{"index": idx, "delta": {"content": "".join(words[k:k + 3])}, "logprobs": None, "finish_reason": None}]})
                self._sse({**base, "choices": [{"index": idx, "delta": {}, "logprobs": None, "finish_reason": finish}]})
            if (body.get("stream_options") or {}).get("include_usage"):
                self._sse({**base, "choices": [], "usage": usage})
            self._sse("[DONE]")
            return self._end_stream()
        message = {"role": "assistant", "content": None if plan.kind == "tools" else plan.text, "refusal": None, "annotations": []}
        if plan.kind == "tools":
            message["tool_calls"] = tool_calls
        choices = [
            {"index": i, "message": message, "logprobs": None, "finish_reason": finish} for i in range(n)
        ]
        self._send_json(
            {
                "id": cid,
                "object": "chat.completion",
                "created": created,
                "model": model + ("" if re.search(r"\d{4}-\d\d-\d\d$", model) else "-2024-07-18"),
                "choices": choices,
                "usage": usage,
                "service_tier": "default",
                "system_fingerprint": "fp_corpus01",
            }
        )

    # -- OpenAI Responses ------------------------------------------------------------------
    def openai_responses(self, raw, body, forced):
        inp = body.get("input")
        tools = [(t.get("name", "tool"), t.get("parameters") or {}) for t in body.get("tools") or [] if t.get("type") == "function"]
        has_result = isinstance(inp, list) and bool(inp) and isinstance(inp[-1], dict) and inp[-1].get("type") == "function_call_output"
        fmt = ((body.get("text") or {}).get("format") or {})
        schema = fmt.get("schema") if fmt.get("type") == "json_schema" else None
        plan = self._plan(raw, tools, has_result, schema, body.get("tool_choice") == "none", forced)
        model = body.get("model", "gpt-4.1-mini")
        rid = self._id("resp_", raw, 0, 48)
        pt, ct = usage_for(raw, plan.text or json.dumps(plan.calls))
        output = []
        if (body.get("reasoning") or {}).get("summary"):
            output.append({"type": "reasoning", "id": self._id("rs_", raw, 0, 48), "summary": [{"type": "summary_text", "text": THOUGHT}]})
            self.plan.thought = THOUGHT
        if plan.kind == "tools":
            for i, (name, args) in enumerate(plan.calls):
                output.append({
                    "type": "function_call",
                    "id": self._id("fc_", raw, i, 48),
                    "call_id": self._id("call_", raw, i),
                    "name": name,
                    "arguments": json.dumps(args, ensure_ascii=False),
                    "status": "completed",
                })
        else:
            output.append({
                "type": "message",
                "id": self._id("msg_", raw, 0, 48),
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": plan.text, "annotations": [], "logprobs": []}],
            })
        resp = {
            "id": rid,
            "object": "response",
            "created_at": 1746000000 + _digest(raw) % 100000,
            "status": "completed",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": model + "-2025-04-14" if not re.search(r"\d{4}-\d\d-\d\d$", model) else model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": body.get("previous_response_id"),
            "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
            "service_tier": "default",
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text") or {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": body.get("top_p", 1.0),
            "truncation": "disabled",
            "usage": {
                "input_tokens": pt,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": ct,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": pt + ct,
            },
            "user": None,
            "metadata": body.get("metadata") or {},
        }
        if body.get("stream"):
            self._start_stream()
            seq = 0

            def ev(kind, **kw):
                nonlocal seq
                self._sse({"type": kind, "sequence_number": seq, **kw}, event=kind)
                seq += 1

            ev("response.created", response={**resp, "status": "in_progress", "output": [], "usage": None})
            ev("response.in_progress", response={**resp, "status": "in_progress", "output": [], "usage": None})
            for oi, item in enumerate(output):
                if item["type"] == "reasoning":
                    ev("response.output_item.added", output_index=oi, item={**item, "summary": []})
                elif item["type"] == "message":
                    ev("response.output_item.added", output_index=oi, item={**item, "status": "in_progress", "content": []})
                    ev("response.content_part.added", item_id=item["id"], output_index=oi, content_index=0, part={"type": "output_text", "text": "", "annotations": []})
                    words = re.findall(r"\S+\s*", plan.text)
                    for k in range(0, len(words), 3):
                        ev("response.output_text.delta", item_id=item["id"], output_index=oi, content_index=0, delta="".join(words[k:k + 3]), logprobs=[])
                    ev("response.output_text.done", item_id=item["id"], output_index=oi, content_index=0, text=plan.text, logprobs=[])
                    ev("response.content_part.done", item_id=item["id"], output_index=oi, content_index=0, part=item["content"][0])
                else:
                    ev("response.output_item.added", output_index=oi, item={**item, "status": "in_progress", "arguments": ""})
                    ev("response.function_call_arguments.delta", item_id=item["id"], output_index=oi, delta=item["arguments"])
                    ev("response.function_call_arguments.done", item_id=item["id"], output_index=oi, arguments=item["arguments"])
                ev("response.output_item.done", output_index=oi, item=item)
            ev("response.completed", response=resp)
            return self._end_stream()
        self._send_json(resp)

    # -- Anthropic Messages ----------------------------------------------------------------
    def anthropic(self, raw, body, forced):
        msgs = body.get("messages") or []
        tools = [(t.get("name", "tool"), t.get("input_schema") or {}) for t in body.get("tools") or [] if "input_schema" in t]
        has_result = False
        if msgs and isinstance(msgs[-1].get("content"), list):
            has_result = any(isinstance(b, dict) and b.get("type") == "tool_result" for b in msgs[-1]["content"])
        tc = body.get("tool_choice") or {}
        plan = self._plan(raw, tools, has_result, None, tc.get("type") == "none", forced)
        return self._anthropic_reply(raw, body, plan, body.get("model", "claude-sonnet-4-5"))

    def _anthropic_message(self, raw, plan, model, thinking=False):
        content = []
        if thinking:
            content.append({"type": "thinking", "thinking": THOUGHT, "signature": "EqQBCkgIARABGAIiQL" + self._id("", raw, 0, 40)})
            self.plan.thought = THOUGHT
        if plan.kind == "tools":
            content.append({"type": "text", "text": "I'll look that up."})
            for i, (name, args) in enumerate(plan.calls):
                content.append({"type": "tool_use", "id": self._id("toolu_01", raw, i), "name": name, "input": args})
        else:
            content.append({"type": "text", "text": plan.text})
        pt, ct = usage_for(raw, plan.text or json.dumps(plan.calls))
        return {
            "id": self._id("msg_01", raw, 0),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "tool_use" if plan.kind == "tools" else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": pt,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": ct,
                "service_tier": "standard",
            },
        }

    def _anthropic_reply(self, raw, body, plan, model):
        thinking = (body.get("thinking") or {}).get("type") in ("enabled", "adaptive")
        msg = self._anthropic_message(raw, plan, model, thinking)
        if not body.get("stream"):
            return self._send_json(msg, extra_headers={"request-id": "req_" + msg["id"][6:]})
        self._start_stream()
        start = {**msg, "content": [], "stop_reason": None, "usage": {**msg["usage"], "output_tokens": 1}}
        self._sse({"type": "message_start", "message": start}, "message_start")
        for i, block in enumerate(msg["content"]):
            if block["type"] == "thinking":
                self._sse({"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}, "content_block_start")
                self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": block["thinking"]}}, "content_block_delta")
                self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": block["signature"]}}, "content_block_delta")
            elif block["type"] == "text":
                self._sse({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}, "content_block_start")
                words = re.findall(r"\S+\s*", block["text"])
                for k in range(0, len(words), 3):
                    self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": "".join(words[k:k + 3])}}, "content_block_delta")
            else:
                self._sse({"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}}, "content_block_start")
                self._sse({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}, "content_block_delta")
            self._sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        self._sse({"type": "message_delta", "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None}, "usage": {"output_tokens": msg["usage"]["output_tokens"]}}, "message_delta")
        self._sse({"type": "message_stop"}, "message_stop")
        self._end_stream()

    def anthropic_batch(self, raw, body):
        n = len(body.get("requests") or [])
        self._send_json({
            "id": self._id("msgbatch_01", raw, 0),
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {"processing": n, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
            "ended_at": None,
            "created_at": "2025-05-01T12:00:00Z",
            "expires_at": "2025-05-02T12:00:00Z",
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
        })

    # -- Gemini ----------------------------------------------------------------------------
    def gemini(self, raw, body, model, stream, forced):
        contents = body.get("contents") or []
        tools = []
        for t in body.get("tools") or []:
            for fd in t.get("functionDeclarations") or t.get("function_declarations") or []:
                tools.append((fd.get("name", "tool"), fd.get("parameters") or fd.get("parametersJsonSchema") or fd.get("parameters_json_schema") or {}))
        has_result = False
        if contents:
            parts = contents[-1].get("parts") or []
            has_result = any("functionResponse" in p or "function_response" in p for p in parts)
        gc = body.get("generationConfig") or body.get("generation_config") or {}
        schema = gc.get("responseSchema") or gc.get("responseJsonSchema") or gc.get("response_schema")
        if schema is None and gc.get("responseMimeType") == "application/json":
            schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
        mode = (((body.get("toolConfig") or {}).get("functionCallingConfig") or {}).get("mode"))
        plan = self._plan(raw, tools, has_result, schema, mode == "NONE", forced)
        pt, ct = usage_for(raw, plan.text or json.dumps(plan.calls))
        if plan.kind == "tools":
            parts = [{"functionCall": {"name": n, "args": a}} for n, a in plan.calls]
        else:
            parts = [{"text": plan.text}]
        tcfg = gc.get("thinkingConfig") or gc.get("thinking_config") or {}
        if tcfg.get("includeThoughts") or tcfg.get("include_thoughts"):
            parts = [{"text": THOUGHT, "thought": True}] + parts
            self.plan.thought = THOUGHT
        resp = {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "avgLogprobs": -0.12, "index": 0}],
            "usageMetadata": {
                "promptTokenCount": pt,
                "candidatesTokenCount": ct,
                "totalTokenCount": pt + ct,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": pt}],
                "candidatesTokensDetails": [{"modality": "TEXT", "tokenCount": ct}],
            },
            "modelVersion": model.removeprefix("models/"),
            "responseId": self._id("", raw, 0, 22),
        }
        if not stream:
            return self._send_json(resp)
        self._start_stream()
        if plan.kind == "tools":
            self._chunk(b"data: " + json.dumps(resp).encode() + b"\r\n\r\n")
        else:
            words = re.findall(r"\S+\s*", plan.text)
            pieces = ["".join(words[k:k + 4]) for k in range(0, len(words), 4)] or [""]
            for k, piece in enumerate(pieces):
                last = k == len(pieces) - 1
                c = {"content": {"parts": [{"text": piece}], "role": "model"}, "index": 0}
                if last:
                    c["finishReason"] = "STOP"
                chunk = {"candidates": [c], "usageMetadata": resp["usageMetadata"] if last else {"promptTokenCount": pt, "totalTokenCount": pt}, "modelVersion": resp["modelVersion"], "responseId": resp["responseId"]}
                self._chunk(b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\r\n\r\n")
        self._end_stream()

    # -- Bedrock -----------------------------------------------------------------------------
    def bedrock_converse(self, raw, body, model_id, stream, forced):
        msgs = body.get("messages") or []
        tools = [
            (t["toolSpec"].get("name", "tool"), (t["toolSpec"].get("inputSchema") or {}).get("json") or {})
            for t in (body.get("toolConfig") or {}).get("tools") or []
            if "toolSpec" in t
        ]
        has_result = bool(msgs) and any("toolResult" in b for b in msgs[-1].get("content") or [])
        plan = self._plan(raw, tools, has_result, None, False, forced)
        pt, ct = usage_for(raw, plan.text or json.dumps(plan.calls))
        content = []
        if plan.kind == "tools":
            for i, (name, args) in enumerate(plan.calls):
                content.append({"toolUse": {"toolUseId": self._id("tooluse_", raw, i, 22), "name": name, "input": args}})
        else:
            content.append({"text": plan.text})
        stop = "tool_use" if plan.kind == "tools" else "end_turn"
        usage = {"inputTokens": pt, "outputTokens": ct, "totalTokens": pt + ct}
        if not stream:
            return self._send_json(
                {"output": {"message": {"role": "assistant", "content": content}}, "stopReason": stop, "usage": usage, "metrics": {"latencyMs": 321}},
                extra_headers={"x-amzn-RequestId": "5c1f7a1e-0000-4000-8000-" + self._id("", raw, 0, 12)},
            )
        self._start_stream("application/vnd.amazon.eventstream")
        self._chunk(event_stream_message("messageStart", {"role": "assistant"}))
        for i, block in enumerate(content):
            if "text" in block:
                words = re.findall(r"\S+\s*", block["text"])
                for k in range(0, len(words), 3):
                    self._chunk(event_stream_message("contentBlockDelta", {"contentBlockIndex": i, "delta": {"text": "".join(words[k:k + 3])}}))
            else:
                tu = block["toolUse"]
                self._chunk(event_stream_message("contentBlockStart", {"contentBlockIndex": i, "start": {"toolUse": {"toolUseId": tu["toolUseId"], "name": tu["name"]}}}))
                self._chunk(event_stream_message("contentBlockDelta", {"contentBlockIndex": i, "delta": {"toolUse": {"input": json.dumps(tu["input"])}}}))
            self._chunk(event_stream_message("contentBlockStop", {"contentBlockIndex": i}))
        self._chunk(event_stream_message("messageStop", {"stopReason": stop}))
        self._chunk(event_stream_message("metadata", {"usage": usage, "metrics": {"latencyMs": 321}}))
        self._end_stream()

    def bedrock_invoke(self, raw, body, model_id, forced):
        if "anthropic_version" in body or "claude" in model_id:
            msgs = body.get("messages") or []
            tools = [(t.get("name", "tool"), t.get("input_schema") or {}) for t in body.get("tools") or []]
            has_result = bool(msgs) and isinstance(msgs[-1].get("content"), list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in msgs[-1]["content"]
            )
            plan = self._plan(raw, tools, has_result, None, False, forced)
            msg = self._anthropic_message(raw, plan, model_id.split(".", 1)[-1].split(":")[0])
            return self._send_json(msg, extra_headers={
                "x-amzn-bedrock-input-token-count": str(msg["usage"]["input_tokens"]),
                "x-amzn-bedrock-output-token-count": str(msg["usage"]["output_tokens"]),
            })
        # Amazon Nova / Titan style
        plan = self._plan(raw, [], False, None)
        pt, ct = usage_for(raw, plan.text)
        if "nova" in model_id:
            return self._send_json({
                "output": {"message": {"role": "assistant", "content": [{"text": plan.text}]}},
                "stopReason": "end_turn",
                "usage": {"inputTokens": pt, "outputTokens": ct, "totalTokens": pt + ct},
            })
        return self._send_json({
            "inputTextTokenCount": pt,
            "results": [{"tokenCount": ct, "outputText": plan.text, "completionReason": "FINISH"}],
        })


def serve(sent_path: str, port: int = 0):
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    httpd.recorder = Recorder(sent_path)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    return httpd


if __name__ == "__main__":
    import sys

    srv = serve(sys.argv[1] if len(sys.argv) > 1 else "sent.jsonl")
    print(json.dumps({"port": srv.server_address[1]}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.shutdown()
        srv.recorder.close()
