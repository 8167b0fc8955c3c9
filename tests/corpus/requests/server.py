"""A loopback HTTP server that records each request body and answers like
Gemini generateContent or Bedrock Converse would (a plausible minimal reply)."""
import json, sys, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

RECORDS = []

GEMINI_REPLY = {
    "candidates": [{"content": {"role": "model", "parts": [{"text": "OK."}]}, "finishReason": "STOP", "index": 0}],
    "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "loopback-1",
}
BEDROCK_REPLY = {
    "output": {"message": {"role": "assistant", "content": [{"text": "OK."}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 5, "outputTokens": 2, "totalTokens": 7},
    "metrics": {"latencyMs": 1},
}

class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n)
        RECORDS.append({"path": self.path, "headers": dict(self.headers), "body": body})
        reply = BEDROCK_REPLY if "/model/" in self.path else GEMINI_REPLY
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

def start():
    srv = HTTPServer(("127.0.0.1", 0), H)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv, srv.server_address[1]
