"""Loopback OTLP/HTTP receiver that writes what it receives the way a Collector `file` exporter does.

The SDK's own OTLP exporters (opentelemetry-exporter-otlp-proto-http) post protobuf to
/v1/traces and /v1/logs. Each request is decoded and appended as ONE LINE of OTLP/JSON
(ExportTraceServiceRequest / ExportLogsServiceRequest) to traces.jsonl / logs.jsonl:

  * lowerCamelCase keys, enums as integers, 64-bit integers as strings (protobuf JSON mapping);
  * traceId / spanId / parentSpanId as lowercase hex (the OTLP/JSON rule), not protobuf's base64;
  * AnyValue bytesValue stays base64, as the spec says.

Needs `opentelemetry-proto` (protobuf); nothing else.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def hexify_ids(node):
    """Turn protobuf-JSON base64 ids into OTLP/JSON hex ids, in place, everywhere they occur."""
    if isinstance(node, dict):
        for k, v in list(node.items()):
            if k in ID_KEYS and isinstance(v, str):
                node[k] = base64.b64decode(v).hex()
            else:
                hexify_ids(v)
    elif isinstance(node, list):
        for v in node:
            hexify_ids(v)
    return node


def to_otlp_json(msg) -> dict:
    d = MessageToDict(msg, use_integers_for_enums=True, preserving_proto_field_name=False)
    return hexify_ids(d)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        enc = (self.headers.get("Content-Encoding") or "").lower()
        if enc == "gzip":
            raw = gzip.decompress(raw)
        elif enc == "deflate":
            raw = zlib.decompress(raw)
        if self.path.startswith("/v1/traces"):
            req, resp, sink = ExportTraceServiceRequest(), ExportTraceServiceResponse(), "traces"
        elif self.path.startswith("/v1/logs"):
            req, resp, sink = ExportLogsServiceRequest(), ExportLogsServiceResponse(), "logs"
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        req.ParseFromString(raw)
        self.server.write(sink, to_otlp_json(req))
        out = resp.SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, out_dir: str):
        super().__init__(("127.0.0.1", 0), Handler)
        self.out_dir = out_dir
        self.lock = threading.Lock()
        self.counts = {"traces": 0, "logs": 0}

    def write(self, sink: str, obj: dict):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        with self.lock:
            with open(f"{self.out_dir}/{sink}.jsonl", "a", encoding="utf-8") as f:
                f.write(line + "\n")
            self.counts[sink] += 1


def serve(out_dir: str) -> Receiver:
    r = Receiver(out_dir)
    threading.Thread(target=r.serve_forever, daemon=True).start()
    return r
