"""Write crates/envelope/tests/fixtures/traces/SOURCES.md from configs.py, requirements/*.txt,
verify.py's findings and the hand-written notes in notes.md (the drops table).

    python3 tests/corpus/traces/sources.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
FIX = os.path.join(ROOT, "crates", "envelope", "tests", "fixtures", "traces")
sys.path.insert(0, HERE)

import configs  # noqa: E402

INSTRUMENTATION_PACKAGE = {
    "openai_v2": "opentelemetry-instrumentation-openai-v2",
    "google_genai": "opentelemetry-instrumentation-google-genai",
    "botocore": "opentelemetry-instrumentation-botocore",
    "ll_openai": "opentelemetry-instrumentation-openai",
    "ll_anthropic": "opentelemetry-instrumentation-anthropic",
    "ll_bedrock": "opentelemetry-instrumentation-bedrock",
    "ll_google": "opentelemetry-instrumentation-google-generativeai",
    "oi_openai": "openinference-instrumentation-openai",
    "oi_anthropic": "openinference-instrumentation-anthropic",
    "oi_bedrock": "openinference-instrumentation-bedrock",
    "oi_google": "openinference-instrumentation-google-genai",
}
SDK_PACKAGE = {"openai_chat": "openai", "openai_responses": "openai", "anthropic": "anthropic", "gemini": "google-genai", "bedrock": "boto3"}


def versions(venv):
    out = {}
    for line in open(os.path.join(HERE, "requirements", f"{venv}.txt")):
        if "==" in line:
            k, v = line.strip().split("==", 1)
            out[k.lower()] = v
    return out


def main():
    found = json.loads(subprocess.run([sys.executable, os.path.join(HERE, "verify.py"), FIX, "--json"], capture_output=True, text=True).stdout)
    found = {i["dir"]: i for i in found}
    lines = [
        "# Trace corpus: sources",
        "",
        "Made by `tests/corpus/traces/` (see its README.md to regenerate): the real provider SDKs,",
        "instrumented by the real packages below, run against a loopback fake provider that recorded",
        "what each SDK really sent. Written by `tests/corpus/traces/sources.py`; do not edit by hand",
        "(the notes come from `tests/corpus/traces/notes.md`).",
        "",
        "Each directory is one run: `traces.jsonl` (one OTLP/JSON `ExportTraceServiceRequest` per line),",
        "`logs.jsonl` when the run emitted log records (one `ExportLogsServiceRequest` per line),",
        "`sent.jsonl` (one request per line: `seq`, `method`, `path`, `query` when there was one,",
        "`traceId`/`spanId` of the span active when the SDK sent it — read from the `traceparent` header —,",
        "`scenario` (`name#variant`), `body` (the JSON body as parsed, key order kept), `bodyForm` (which",
        "serialisation of `body` gives back the exact bytes sent: `compact` = `json.dumps(body,",
        "separators=(\",\", \":\"), ensure_ascii=False)`, `compact-ascii`, `spaced` = `\", \"`/`\": \"`,",
        "`spaced-ascii`), or `raw` (the exact bytes as text, when none does), `timeUnixNano` (when the",
        "request arrived), `reply` (what the fake provider answered: `kind`, `text`, `toolCalls`, `reasoning`).",
        "",
        "Every scenario runs under a root span `corpus.scenario` (scope `corpus.scenarios`), which is not",
        "an LLM call. The exporters used simple (unbatched) processors, so each line holds one span or one",
        "log record.",
        "",
        "## Runs",
        "",
        "| run | instrumentation | SDK | environment | mode | requests sent | LLM-call spans | log records |",
        "| --- | --- | --- | --- | --- | ---: | ---: | ---: |",
    ]
    totals = [0, 0, 0]
    for name, c in configs.RUNS.items():
        vv = versions(c["venv"])
        inst = ", ".join(f"{INSTRUMENTATION_PACKAGE[i]} {vv.get(INSTRUMENTATION_PACKAGE[i], '?')}" for i in c["instrument"])
        inst = inst or f"none (anthropic {vv.get('anthropic')} built-in tracing)"
        sdks = ", ".join(sorted({f"{SDK_PACKAGE[p]} {vv.get(SDK_PACKAGE[p], '?')}" for p in c["providers"]}))
        env = " ".join(f"{k}={v}" for k, v in c["env"].items())
        i = found.get(name, {})
        totals[0] += i.get("requests_sent", 0)
        totals[1] += i.get("llm_spans", 0)
        totals[2] += i.get("log_records", 0)
        lines.append(
            f"| `{name}` | {inst} | {sdks} | {('`' + env + '`') if env else '(none)'} | {c.get('note', '')} | {i.get('requests_sent', '-')} | "
            f"{i.get('llm_spans', '-')} | {i.get('log_records', 0)} |"
        )
    lines.append(f"| **total** | | | | | {totals[0]} | {totals[1]} | {totals[2]} |")
    lines += [
        "",
        "An LLM-call span here is a span with `gen_ai.request.model`, `gen_ai.operation.name` (not",
        "`execute_tool`), `llm.model_name` or `llm.provider` (`verify.py`). Under OpenLLMetry and",
        "OpenInference the Anthropic runs have two per call: the instrumentation's and the anthropic SDK's",
        "own span (see below). The google-genai automatic-function-calling scenario has one span for two",
        "requests. `small` runs (content off) run one variant; the others two.",
    ]
    lines += [
        "",
        "Common to all: opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http as pinned in",
        "`tests/corpus/traces/requirements/<venv>.txt` (1.45.2, except the `official-openai-legacy` venv: 1.37.0).",
        "",
        "Scenarios per provider (the same in every run of that provider; `--variants N` repeats them",
        "with other models and texts): "
        + "; ".join(
            f"**{p}**: {', '.join(n for n in names)}"
            for p, names in {
                "openai_chat": ["simple (system+user, temperature/max_tokens/top_p/stop/seed/penalties/user)", "multiturn", "tools (2 calls)", "parallel_tools (2 calls)", "image (base64 + URL)", "json_schema", "stream", "n_choices (developer role, n=2)", "document (file part, PDF data URL)"],
                "openai_responses": ["simple (instructions)", "image (input_image base64 + URL)", "tools (2 calls)", "json_schema", "stream", "chained (previous_response_id, 2 calls)", "reasoning (o4-mini, reasoning summary, input_file PDF)"],
                "anthropic": ["simple (system, stop_sequences, metadata)", "multiturn_cache (system blocks, cache_control)", "tools (2 calls)", "parallel_tools (2 calls)", "image (base64 + URL)", "stream (messages.stream)", "stream_create (stream=True)", "thinking (reply has a thinking block)", "document (PDF base64)"],
                "gemini": ["simple (system_instruction, temperature/top_p/top_k/max_output_tokens/stop/seed)", "multiturn", "tools (2 calls)", "afc (automatic function calling: 2 HTTP requests in one SDK call)", "image (inline bytes + file URI)", "json_schema", "stream", "thinking (include_thoughts: reply has a thought part)", "document (inline PDF)"],
                "bedrock": ["simple converse (system, inferenceConfig, additionalModelRequestFields)", "multiturn", "tools (2 calls)", "parallel_tools (2 calls)", "image (bytes + s3Location)", "converse_stream", "invoke_model Claude body", "invoke_model Nova body", "document (PDF bytes)"],
            }.items()
        )
        + ".",
        "",
    ]
    notes = os.path.join(HERE, "notes.md")
    if os.path.exists(notes):
        table = subprocess.run([sys.executable, os.path.join(HERE, "analyse.py"), FIX, "--markdown"], capture_output=True, text=True, check=True).stdout.rstrip()
        lines.append(open(notes, encoding="utf-8").read().rstrip().replace("{{TABLE}}", table))
        lines.append("")
    lines += ["## Attribute keys and events seen on LLM-call spans, per run", "", "Indexes folded to `{i}`; the count is how many LLM-call spans carry the key.", ""]
    for name in configs.RUNS:
        i = found.get(name)
        if not i:
            continue
        lines.append(f"- **{name}** — spans by scope: " + "; ".join(f"`{s}`: " + ", ".join(f"{sn} ×{c}" for sn, c in names.items()) for s, names in i["scopes"].items()))
        for scope, ks in i["llm_attribute_keys"].items():
            lines.append(f"  - `{scope}` keys: " + ", ".join(f"`{k}` {n}" for k, n in ks.items()))
        if i.get("log_events"):
            lines.append("  - log events: " + ", ".join(f"`{e}` ×{c}" for e, c in i["log_events"].items()))
    with open(os.path.join(FIX, "SOURCES.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
