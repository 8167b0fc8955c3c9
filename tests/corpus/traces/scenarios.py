"""Run the real provider SDKs, instrumented, against the loopback fake provider.

    python scenarios.py --run NAME --out DIR [--variants N]

Starts, in this process, the fake provider (fake_provider.py) and the OTLP receiver
(otlp_receiver.py), sets up the OpenTelemetry SDK with the OTLP/HTTP protobuf exporters behind
*simple* (unbatched) processors, instruments per configs.RUNS[NAME], runs the scenarios of each
provider, and leaves in DIR: sent.jsonl (what the SDK really sent), traces.jsonl, logs.jsonl.

Each scenario runs under one root span ("corpus.scenario", not an LLM call) so the calls of a
tool loop share a trace. Every outgoing HTTP request gets the W3C `traceparent` of the span
active when it is sent (the instrumentation's LLM span), so sent.jsonl lines join the spans.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import struct
import sys
import warnings
import zlib

warnings.filterwarnings("ignore")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import configs  # noqa: E402
import fake_provider  # noqa: E402
import otlp_receiver  # noqa: E402

CTX = {"scenario": "", "reply": None}

# --------------------------------------------------------------------------------------------
# Test material
# --------------------------------------------------------------------------------------------


def tiny_png() -> bytes:
    """A real 2x2 RGB PNG (red, blue / blue, red)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"\x00\xff\x00\x00\x00\x00\xff" + b"\x00\x00\x00\xff\xff\x00\x00"
    ihdr = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def tiny_pdf() -> bytes:
    """A real one-page PDF saying "Invoice 1042: 3 croissants, 4.50 EUR" (xref offsets computed)."""
    text = b"BT /F1 12 Tf 20 50 Td (Invoice 1042: 3 croissants, 4.50 EUR) Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(text) + text + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return out


PDF = tiny_pdf()
PDF_B64 = base64.b64encode(PDF).decode()
PNG = tiny_png()
PNG_B64 = base64.b64encode(PNG).decode()
IMAGE_URL = "https://example.com/images/checkerboard.png"

SYSTEMS = [
    "You are a concise assistant. Answer in at most two sentences.",
    "You are a helpful travel agent for Ana's Travel Co. Always answer politely and mention the booking reference when you have one.",
    "Tu es un assistant qui répond en français, avec des phrases courtes.",
    "You are a senior Rust reviewer. Point out bugs first, style last. Never invent APIs.",
    "You are a support bot for ACME Cloud. Do not reveal internal ticket numbers. Use the tools when the user asks about the weather or an order.",
]
USERS = [
    "What is the capital of France?",
    "Summarise this in one line: the meeting moved from Tuesday to Thursday at 3 pm because the room was double-booked.",
    "Écris un haïku sur la pluie à Paris.",
    "Is `let v: Vec<u8> = Vec::with_capacity(10); v[0]` going to panic?",
    "What's the weather like in Paris today, and should I take an umbrella?",
    "Translate to German: \"The train leaves at 7 o'clock.\"",
    "Give me three names for a bakery that sells only croissants. 🥐",
    "Explain the difference between TCP and UDP to a ten-year-old.",
    "I have <b>HTML</b> & \"quotes\" and a tab\tin here; repeat it back exactly.",
    "List two prime numbers above 100.",
]

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
ORDER_SCHEMA = {
    "type": "object",
    "properties": {"order_id": {"type": "string", "description": "The order number"}},
    "required": ["order_id"],
}
RECIPE_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "minutes": {"type": "integer"},
        "ingredients": {"type": "array", "items": {"type": "string"}},
        "vegetarian": {"type": "boolean"},
    },
    "required": ["title", "minutes", "ingredients", "vegetarian"],
    "additionalProperties": False,
}
TOOL_RESULT = {"city": "Paris", "temperature_c": 18, "conditions": "sunny", "wind_kmh": 12}
ORDER_RESULT = {"order_id": "A-1042", "status": "shipped", "eta": "2025-05-03"}


def pick(seq, v, k=0):
    return seq[(v + k) % len(seq)]


# --------------------------------------------------------------------------------------------
# OpenAI Chat Completions
# --------------------------------------------------------------------------------------------

OA_TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": WEATHER_SCHEMA, "strict": True}},
    {"type": "function", "function": {"name": "get_order", "description": "Look up an order by its number.", "parameters": ORDER_SCHEMA}},
]


def oa_chat_scenarios(c, v):
    model = pick(["gpt-4o-mini", "gpt-4.1-mini", "gpt-4o"], v)

    def simple():
        c.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": pick(SYSTEMS, v)}, {"role": "user", "content": pick(USERS, v)}],
            temperature=0.2, max_tokens=256, top_p=0.9, stop=["\n\nUser:"], seed=7, frequency_penalty=0.1,
            presence_penalty=0.0, user="corpus-user-1",
        )

    def multiturn():
        c.chat.completions.create(
            model=model,
            messages=[
                {"role": "system", "content": pick(SYSTEMS, v, 1)},
                {"role": "user", "content": pick(USERS, v, 2)},
                {"role": "assistant", "content": "Sure — could you tell me which city you mean?"},
                {"role": "user", "content": "Paris, please. And keep it short."},
            ],
            max_completion_tokens=300,
        )

    def tools(parallel=False):
        messages = [
            {"role": "system", "content": SYSTEMS[4]},
            {"role": "user", "content": "What's the weather in Paris? Also where is my order A-1042?" if parallel else pick(USERS, 4)},
        ]
        CTX["reply"] = "parallel" if parallel else None
        r = c.chat.completions.create(model=model, messages=messages, tools=OA_TOOLS, tool_choice="auto", parallel_tool_calls=parallel)
        CTX["reply"] = None
        msg = r.choices[0].message
        messages.append(msg.model_dump(exclude_none=True, exclude={"annotations", "refusal"}))
        for tc in msg.tool_calls or []:
            result = TOOL_RESULT if tc.function.name == "get_weather" else ORDER_RESULT
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": json.dumps(result)})
        c.chat.completions.create(model=model, messages=messages, tools=OA_TOOLS)

    def image():
        c.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": "Describe images precisely."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is in these two images? Compare them."},
                        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}", "detail": "low"}},
                        {"type": "image_url", "image_url": {"url": IMAGE_URL}},
                    ],
                },
            ],
            max_tokens=200,
        )

    def json_schema():
        c.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": "Extract a recipe as JSON."}, {"role": "user", "content": "Pancakes: flour, milk, eggs. 20 minutes. No meat."}],
            response_format={"type": "json_schema", "json_schema": {"name": "recipe", "schema": RECIPE_SCHEMA, "strict": True}},
            temperature=0,
        )

    def stream():
        s = c.chat.completions.create(
            model=model,
            messages=[{"role": "system", "content": pick(SYSTEMS, v, 3)}, {"role": "user", "content": pick(USERS, v, 5)}],
            stream=True, stream_options={"include_usage": True}, temperature=0.7,
        )
        for _ in s:
            pass

    def n_choices():
        c.chat.completions.create(
            model=model,
            messages=[{"role": "developer", "content": "Answer with one word."}, {"role": "user", "content": pick(USERS, v, 6)}],
            n=2, logprobs=False, max_completion_tokens=50,
        )

    def document():
        c.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": [
                {"type": "file", "file": {"filename": "invoice-1042.pdf", "file_data": f"data:application/pdf;base64,{PDF_B64}"}},
                {"type": "text", "text": "What is the total of this invoice?"},
            ]}],
        )

    return [
        ("chat.document", document),
        ("chat.simple", simple), ("chat.multiturn", multiturn), ("chat.tools", tools),
        ("chat.parallel_tools", lambda: tools(True)), ("chat.image", image), ("chat.json_schema", json_schema),
        ("chat.stream", stream), ("chat.n_choices", n_choices),
    ]


# --------------------------------------------------------------------------------------------
# OpenAI Responses
# --------------------------------------------------------------------------------------------

RESP_TOOLS = [
    {"type": "function", "name": "get_weather", "description": "Get the current weather for a city.", "parameters": WEATHER_SCHEMA, "strict": True},
]


def oa_responses_scenarios(c, v):
    model = pick(["gpt-4.1-mini", "gpt-4o-mini", "o4-mini"], v)

    def simple():
        c.responses.create(model=model, instructions=pick(SYSTEMS, v), input=pick(USERS, v, 1), temperature=0.3, max_output_tokens=200)

    def messages_image():
        c.responses.create(
            model="gpt-4.1",
            input=[
                {"role": "developer", "content": "Describe images precisely."},
                {"role": "user", "content": [
                    {"type": "input_text", "text": "What do these images show?"},
                    {"type": "input_image", "image_url": f"data:image/png;base64,{PNG_B64}", "detail": "auto"},
                    {"type": "input_image", "image_url": IMAGE_URL},
                ]},
            ],
        )

    def tools():
        inp = [{"role": "user", "content": pick(USERS, 4)}]
        r = c.responses.create(model=model, input=inp, tools=RESP_TOOLS, instructions=SYSTEMS[4])
        for item in r.output:
            if item.type == "function_call":
                inp.append({"type": "function_call", "call_id": item.call_id, "name": item.name, "arguments": item.arguments})
                inp.append({"type": "function_call_output", "call_id": item.call_id, "output": json.dumps(TOOL_RESULT)})
        c.responses.create(model=model, input=inp, tools=RESP_TOOLS, instructions=SYSTEMS[4])

    def json_schema():
        c.responses.create(
            model=model, input="Pancakes: flour, milk, eggs. 20 minutes. No meat.", instructions="Extract a recipe as JSON.",
            text={"format": {"type": "json_schema", "name": "recipe", "schema": RECIPE_SCHEMA, "strict": True}},
        )

    def stream():
        s = c.responses.create(model=model, input=pick(USERS, v, 7), stream=True)
        for _ in s:
            pass

    def chained():
        r = c.responses.create(model=model, input=pick(USERS, v, 8), store=True)
        c.responses.create(model=model, input="And now in one word?", previous_response_id=r.id)

    def reasoning():
        c.responses.create(
            model="o4-mini", input=[{"role": "user", "content": [
                {"type": "input_text", "text": "How many croissants are on this invoice?"},
                {"type": "input_file", "filename": "invoice-1042.pdf", "file_data": f"data:application/pdf;base64,{PDF_B64}"},
            ]}],
            reasoning={"effort": "low", "summary": "auto"}, max_output_tokens=800,
        )

    return [
        ("responses.reasoning", reasoning),
        ("responses.simple", simple), ("responses.image", messages_image), ("responses.tools", tools),
        ("responses.json_schema", json_schema), ("responses.stream", stream), ("responses.chained", chained),
    ]


# --------------------------------------------------------------------------------------------
# Anthropic Messages
# --------------------------------------------------------------------------------------------

AN_TOOLS = [
    {"name": "get_weather", "description": "Get the current weather for a city.", "input_schema": WEATHER_SCHEMA},
    {"name": "get_order", "description": "Look up an order by its number.", "input_schema": ORDER_SCHEMA},
]


def anthropic_scenarios(c, v):
    model = pick(["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1"], v)

    def simple():
        c.messages.create(
            model=model, max_tokens=512, system=pick(SYSTEMS, v),
            messages=[{"role": "user", "content": pick(USERS, v)}],
            stop_sequences=["\n\nHuman:"], metadata={"user_id": "corpus-user-1"},
        )

    def multiturn_cache():
        c.messages.create(
            model=model, max_tokens=400,
            system=[{"type": "text", "text": pick(SYSTEMS, v, 1) + " " + "Policy text. " * 40, "cache_control": {"type": "ephemeral"}}],
            messages=[
                {"role": "user", "content": pick(USERS, v, 2)},
                {"role": "assistant", "content": [{"type": "text", "text": "Sure — which city do you mean?"}]},
                {"role": "user", "content": [{"type": "text", "text": "Paris, please.", "cache_control": {"type": "ephemeral"}}]},
            ],
        )

    def tools(parallel=False):
        messages = [{"role": "user", "content": "What's the weather in Paris? Also where is my order A-1042?" if parallel else pick(USERS, 4)}]
        CTX["reply"] = "parallel" if parallel else None
        r = c.messages.create(model=model, max_tokens=600, system=SYSTEMS[4], tools=AN_TOOLS, tool_choice={"type": "auto"}, messages=messages)
        CTX["reply"] = None
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]})
        results = []
        for b in r.content:
            if b.type == "tool_use":
                result = TOOL_RESULT if b.name == "get_weather" else ORDER_RESULT
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": json.dumps(result)})
        messages.append({"role": "user", "content": results})
        c.messages.create(model=model, max_tokens=600, system=SYSTEMS[4], tools=AN_TOOLS, messages=messages)

    def image():
        c.messages.create(
            model=model, max_tokens=300,
            messages=[{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
                {"type": "image", "source": {"type": "url", "url": IMAGE_URL}},
                {"type": "text", "text": "What is in these two images?"},
            ]}],
        )

    def stream():
        with c.messages.stream(model=model, max_tokens=300, system=pick(SYSTEMS, v, 3), messages=[{"role": "user", "content": pick(USERS, v, 5)}]) as s:
            for _ in s.text_stream:
                pass

    def stream_create():
        s = c.messages.create(model=model, max_tokens=300, messages=[{"role": "user", "content": pick(USERS, v, 6)}], stream=True)
        for _ in s:
            pass

    def thinking():
        c.messages.create(
            model="claude-sonnet-4-5", max_tokens=2048, thinking={"type": "enabled", "budget_tokens": 1024},
            messages=[{"role": "user", "content": pick(USERS, v, 9)}],
        )

    def document():
        c.messages.create(
            model=model, max_tokens=300,
            messages=[{"role": "user", "content": [
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64}, "title": "Invoice 1042"},
                {"type": "text", "text": "What is the total of this invoice?"},
            ]}],
        )

    return [
        ("messages.document", document),
        ("messages.simple", simple), ("messages.multiturn_cache", multiturn_cache), ("messages.tools", tools),
        ("messages.parallel_tools", lambda: tools(True)), ("messages.image", image), ("messages.stream", stream),
        ("messages.stream_create", stream_create), ("messages.thinking", thinking),
    ]


# --------------------------------------------------------------------------------------------
# Gemini (google-genai)
# --------------------------------------------------------------------------------------------


def gemini_scenarios(c, v):
    from google.genai import types

    model = pick(["gemini-2.5-flash", "gemini-2.0-flash", "gemini-2.5-pro"], v)
    weather_fn = types.FunctionDeclaration(
        name="get_weather", description="Get the current weather for a city.",
        parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING", description="City name"), "unit": types.Schema(type="STRING", enum=["celsius", "fahrenheit"])}, required=["city"]),
    )
    no_afc = types.AutomaticFunctionCallingConfig(disable=True)

    def simple():
        c.models.generate_content(
            model=model, contents=pick(USERS, v),
            config=types.GenerateContentConfig(
                system_instruction=pick(SYSTEMS, v), temperature=0.2, max_output_tokens=256, top_p=0.9, top_k=32,
                stop_sequences=["\n\nUser:"], seed=7, candidate_count=1,
            ),
        )

    def multiturn():
        c.models.generate_content(
            model=model,
            contents=[
                types.Content(role="user", parts=[types.Part(text=pick(USERS, v, 2))]),
                types.Content(role="model", parts=[types.Part(text="Sure — which city do you mean?")]),
                types.Content(role="user", parts=[types.Part(text="Paris, please.")]),
            ],
            config=types.GenerateContentConfig(system_instruction=pick(SYSTEMS, v, 1)),
        )

    def tools():
        contents = [types.Content(role="user", parts=[types.Part(text=pick(USERS, 4))])]
        cfg = types.GenerateContentConfig(system_instruction=SYSTEMS[4], tools=[types.Tool(function_declarations=[weather_fn])], automatic_function_calling=no_afc)
        r = c.models.generate_content(model=model, contents=contents, config=cfg)
        contents.append(r.candidates[0].content)
        for fc in r.function_calls or []:
            contents.append(types.Content(role="user", parts=[types.Part.from_function_response(name=fc.name, response=TOOL_RESULT)]))
        c.models.generate_content(model=model, contents=contents, config=cfg)

    def afc():
        def get_weather(city: str, unit: str = "celsius") -> dict:
            """Get the current weather for a city."""
            return TOOL_RESULT

        c.models.generate_content(
            model=model, contents="What's the weather in Paris right now?",
            config=types.GenerateContentConfig(tools=[get_weather], temperature=0),
        )

    def image():
        c.models.generate_content(
            model=model,
            contents=[
                "What is in these two images?",
                types.Part.from_bytes(data=PNG, mime_type="image/png"),
                types.Part.from_uri(file_uri=IMAGE_URL, mime_type="image/png"),
            ],
        )

    def json_schema():
        c.models.generate_content(
            model=model, contents="Pancakes: flour, milk, eggs. 20 minutes. No meat.",
            config=types.GenerateContentConfig(system_instruction="Extract a recipe as JSON.", response_mime_type="application/json", response_schema=RECIPE_SCHEMA, temperature=0),
        )

    def stream():
        for _ in c.models.generate_content_stream(model=model, contents=pick(USERS, v, 5), config=types.GenerateContentConfig(temperature=0.7)):
            pass

    def thinking():
        c.models.generate_content(
            model="gemini-2.5-pro", contents=pick(USERS, v, 9),
            config=types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=512)),
        )

    def document():
        c.models.generate_content(
            model=model,
            contents=[types.Part.from_bytes(data=PDF, mime_type="application/pdf"), "What is the total of this invoice?"],
        )

    return [
        ("gemini.thinking", thinking),
        ("gemini.document", document),
        ("gemini.simple", simple), ("gemini.multiturn", multiturn), ("gemini.tools", tools), ("gemini.afc", afc),
        ("gemini.image", image), ("gemini.json_schema", json_schema), ("gemini.stream", stream),
    ]


# --------------------------------------------------------------------------------------------
# Amazon Bedrock (boto3 bedrock-runtime)
# --------------------------------------------------------------------------------------------

BR_TOOLS = {"tools": [
    {"toolSpec": {"name": "get_weather", "description": "Get the current weather for a city.", "inputSchema": {"json": WEATHER_SCHEMA}}},
    {"toolSpec": {"name": "get_order", "description": "Look up an order by its number.", "inputSchema": {"json": ORDER_SCHEMA}}},
]}


def bedrock_scenarios(c, v):
    model = pick(["anthropic.claude-3-5-sonnet-20240620-v1:0", "amazon.nova-lite-v1:0", "us.anthropic.claude-3-7-sonnet-20250219-v1:0"], v)

    def simple():
        c.converse(
            modelId=model, system=[{"text": pick(SYSTEMS, v)}],
            messages=[{"role": "user", "content": [{"text": pick(USERS, v)}]}],
            inferenceConfig={"maxTokens": 256, "temperature": 0.2, "topP": 0.9, "stopSequences": ["\n\nUser:"]},
            additionalModelRequestFields={"top_k": 40},
        )

    def multiturn():
        c.converse(
            modelId=model, system=[{"text": pick(SYSTEMS, v, 1)}],
            messages=[
                {"role": "user", "content": [{"text": pick(USERS, v, 2)}]},
                {"role": "assistant", "content": [{"text": "Sure — which city do you mean?"}]},
                {"role": "user", "content": [{"text": "Paris, please."}]},
            ],
        )

    def tools(parallel=False):
        messages = [{"role": "user", "content": [{"text": "What's the weather in Paris? Also where is my order A-1042?" if parallel else pick(USERS, 4)}]}]
        CTX["reply"] = "parallel" if parallel else None
        r = c.converse(modelId=model, system=[{"text": SYSTEMS[4]}], messages=messages, toolConfig=BR_TOOLS)
        CTX["reply"] = None
        out = r["output"]["message"]
        messages.append(out)
        results = []
        for b in out["content"]:
            if "toolUse" in b:
                result = TOOL_RESULT if b["toolUse"]["name"] == "get_weather" else ORDER_RESULT
                results.append({"toolResult": {"toolUseId": b["toolUse"]["toolUseId"], "content": [{"json": result}], "status": "success"}})
        messages.append({"role": "user", "content": results})
        c.converse(modelId=model, system=[{"text": SYSTEMS[4]}], messages=messages, toolConfig=BR_TOOLS)

    def image():
        c.converse(
            modelId=model,
            messages=[{"role": "user", "content": [
                {"text": "What is in these two images?"},
                {"image": {"format": "png", "source": {"bytes": PNG}}},
                {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://corpus-bucket/images/checkerboard.png"}}}},
            ]}],
            inferenceConfig={"maxTokens": 200},
        )

    def stream():
        r = c.converse_stream(modelId=model, messages=[{"role": "user", "content": [{"text": pick(USERS, v, 5)}]}], inferenceConfig={"temperature": 0.7})
        for _ in r["stream"]:
            pass

    def invoke_claude():
        body = {
            "anthropic_version": "bedrock-2023-05-31", "max_tokens": 300, "system": pick(SYSTEMS, v, 2), "temperature": 0.5,
            "messages": [{"role": "user", "content": [{"type": "text", "text": pick(USERS, v, 3)}]}],
        }
        r = c.invoke_model(modelId="anthropic.claude-3-haiku-20240307-v1:0", body=json.dumps(body), contentType="application/json", accept="application/json")
        r["body"].read()

    def invoke_nova():
        body = {
            "schemaVersion": "messages-v1", "system": [{"text": pick(SYSTEMS, v, 3)}],
            "messages": [{"role": "user", "content": [{"text": pick(USERS, v, 4)}]}],
            "inferenceConfig": {"maxTokens": 200, "temperature": 0.4},
        }
        r = c.invoke_model(modelId="amazon.nova-micro-v1:0", body=json.dumps(body))
        r["body"].read()

    def document():
        c.converse(
            modelId=model,
            messages=[{"role": "user", "content": [
                {"document": {"format": "pdf", "name": "invoice-1042", "source": {"bytes": PDF}}},
                {"text": "What is the total of this invoice?"},
            ]}],
        )

    return [
        ("bedrock.document", document),
        ("bedrock.simple", simple), ("bedrock.multiturn", multiturn), ("bedrock.tools", tools),
        ("bedrock.parallel_tools", lambda: tools(True)), ("bedrock.image", image), ("bedrock.stream", stream),
        ("bedrock.invoke_claude", invoke_claude), ("bedrock.invoke_nova", invoke_nova),
    ]


# --------------------------------------------------------------------------------------------
# Telemetry and instrumentation set-up
# --------------------------------------------------------------------------------------------


def setup_telemetry(run: str, otlp_port: int):
    from opentelemetry import trace
    from opentelemetry._logs import set_logger_provider
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    resource = Resource.create({"service.name": "corpus-" + run, "deployment.environment": "corpus"})
    tp = TracerProvider(resource=resource)
    tp.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{otlp_port}/v1/traces")))
    trace.set_tracer_provider(tp)
    lp = LoggerProvider(resource=resource)
    lp.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"http://127.0.0.1:{otlp_port}/v1/logs")))
    set_logger_provider(lp)
    try:  # older instrumentations emit through the (deprecated) Events API
        from opentelemetry._events import set_event_logger_provider
        from opentelemetry.sdk._events import EventLoggerProvider

        set_event_logger_provider(EventLoggerProvider(lp))
    except ImportError:
        pass
    return tp, lp


def instrument(names, tp, lp):
    for n in names:
        if n == "openai_v2":
            from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tp, logger_provider=lp)
        elif n == "google_genai":
            from opentelemetry.instrumentation.google_genai import GoogleGenAiSdkInstrumentor

            GoogleGenAiSdkInstrumentor().instrument(tracer_provider=tp, logger_provider=lp)
        elif n == "botocore":
            from opentelemetry.instrumentation.botocore import BotocoreInstrumentor

            BotocoreInstrumentor().instrument(tracer_provider=tp, logger_provider=lp)
        elif n == "ll_openai":
            from opentelemetry.instrumentation.openai import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tp)
        elif n == "ll_anthropic":
            from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor

            AnthropicInstrumentor().instrument(tracer_provider=tp)
        elif n == "ll_bedrock":
            from opentelemetry.instrumentation.bedrock import BedrockInstrumentor

            BedrockInstrumentor().instrument(tracer_provider=tp)
        elif n == "ll_google":
            from opentelemetry.instrumentation.google_generativeai import GoogleGenerativeAiInstrumentor

            GoogleGenerativeAiInstrumentor().instrument(tracer_provider=tp)
        elif n == "oi_openai":
            from openinference.instrumentation.openai import OpenAIInstrumentor

            OpenAIInstrumentor().instrument(tracer_provider=tp)
        elif n == "oi_anthropic":
            from openinference.instrumentation.anthropic import AnthropicInstrumentor

            AnthropicInstrumentor().instrument(tracer_provider=tp)
        elif n == "oi_bedrock":
            from openinference.instrumentation.bedrock import BedrockInstrumentor

            BedrockInstrumentor().instrument(tracer_provider=tp)
        elif n == "oi_google":
            from openinference.instrumentation.google_genai import GoogleGenAIInstrumentor

            GoogleGenAIInstrumentor().instrument(tracer_provider=tp)
        else:
            raise SystemExit(f"unknown instrumentor {n}")


def patch_transport():
    """Stamp every outgoing SDK request with the active span's traceparent and the scenario."""
    import importlib

    from opentelemetry import propagate

    def stamp(headers):
        if "traceparent" not in headers:
            propagate.inject(headers)
        headers["x-corpus-scenario"] = CTX["scenario"]
        if CTX["reply"]:
            headers["x-corpus-reply"] = CTX["reply"]

    # The SDKs of this generation ship on `httpx2`; older ones on `httpx`. Patch whichever exist.
    for mod in ("httpx2", "httpx"):
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue
        orig = m.Client.send

        def send(self, request, *a, _orig=orig, **kw):
            stamp(request.headers)
            return _orig(self, request, *a, **kw)

        m.Client.send = send
    return stamp


def make_clients(port: int, stamp):
    base = f"http://127.0.0.1:{port}"
    out = {}

    def openai_client():
        import openai

        return openai.OpenAI(api_key="sk-test-corpus-0000000000000000", base_url=base + "/v1", max_retries=0)

    def anthropic_client():
        import anthropic

        return anthropic.Anthropic(api_key="sk-ant-test-corpus-0000", base_url=base, max_retries=0)

    def gemini_client():
        from google import genai
        from google.genai import types

        return genai.Client(api_key="AIza-test-corpus-0000", http_options=types.HttpOptions(base_url=base, api_version="v1beta"))

    def bedrock_client():
        import boto3

        session = boto3.session.Session(aws_access_key_id="AKIATESTCORPUS000000", aws_secret_access_key="test-secret-corpus", region_name="us-east-1")
        client = session.client("bedrock-runtime", endpoint_url=base)

        def before_send(request, **_):
            stamp(request.headers)

        client.meta.events.register("before-send.bedrock-runtime.*", before_send)
        return client

    out["openai_chat"] = (openai_client, oa_chat_scenarios)
    out["openai_responses"] = (openai_client, oa_responses_scenarios)
    out["anthropic"] = (anthropic_client, anthropic_scenarios)
    out["gemini"] = (gemini_client, gemini_scenarios)
    out["bedrock"] = (bedrock_client, bedrock_scenarios)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--variants", type=int, default=1, help="how many passes over the scenarios (each pass varies models and texts)")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    args = ap.parse_args()
    cfg = configs.RUNS[args.run]
    for k, val in cfg["env"].items():
        os.environ[k] = val
    os.makedirs(args.out, exist_ok=True)
    for f in ("sent.jsonl", "traces.jsonl", "logs.jsonl"):
        p = os.path.join(args.out, f)
        if os.path.exists(p):
            os.remove(p)

    provider = fake_provider.serve(os.path.join(args.out, "sent.jsonl"))
    receiver = otlp_receiver.serve(args.out)
    tp, lp = setup_telemetry(args.run, receiver.server_address[1])
    instrument(cfg["instrument"], tp, lp)
    stamp = patch_transport()

    from opentelemetry import trace

    tracer = trace.get_tracer("corpus.scenarios")
    clients = make_clients(provider.server_address[1], stamp)
    only = set(filter(None, args.only.split(",")))
    variants = 1 if cfg.get("small") else args.variants
    ok = failed = 0
    for v in range(variants):
        for prov in cfg["providers"]:
            make, scen = clients[prov]
            client = make()
            for name, fn in scen(client, v):
                if only and name not in only:
                    continue
                CTX["scenario"] = f"{name}#{v}"
                with tracer.start_as_current_span("corpus.scenario", attributes={"corpus.scenario": name, "corpus.variant": v}):
                    try:
                        fn()
                        ok += 1
                    except Exception as e:  # keep going; report at the end
                        failed += 1
                        print(f"[{args.run}] {name}#{v} FAILED: {type(e).__name__}: {e}", file=sys.stderr)
                        if os.environ.get("CORPUS_TRACEBACK"):
                            import traceback

                            traceback.print_exc()
    tp.force_flush()
    lp.force_flush()
    tp.shutdown()
    lp.shutdown()
    provider.shutdown()
    provider.recorder.close()
    receiver.shutdown()
    print(json.dumps({"run": args.run, "scenarios_ok": ok, "scenarios_failed": failed, "requests": provider.recorder.seq, **receiver.counts}))
    if os.path.exists(os.path.join(args.out, "logs.jsonl")) and os.path.getsize(os.path.join(args.out, "logs.jsonl")) == 0:
        os.remove(os.path.join(args.out, "logs.jsonl"))


if __name__ == "__main__":
    main()
