"""Runs boto3's bedrock-runtime client (Converse, ConverseStream) against the
loopback server; writes each request body it sent to OUT/<scenario>.json."""
import os, struct, sys, zlib
sys.path.insert(0, os.path.dirname(__file__))
import server
import boto3
from botocore.config import Config

OUT = sys.argv[1]
srv, port = server.start()
client = boto3.client("bedrock-runtime", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1",
                      aws_access_key_id="AKIDLOOPBACK", aws_secret_access_key="loopback-secret",
                      config=Config(retries={"max_attempts": 1}))

def png(w=2, h=2, rgb=(12, 200, 90)):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
PNG = png()
JPEG = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffd9")
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
MP4 = struct.pack(">I", 24) + b"ftypisom" + b"\x00\x00\x02\x00" + b"isomiso2"
WAV = b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8) + b"data" + struct.pack("<I", 0)
CLAUDE = "anthropic.claude-3-5-sonnet-20240620-v1:0"
NOVA = "amazon.nova-lite-v1:0"

def take(name):
    rec = server.RECORDS.pop()
    assert not server.RECORDS
    with open(os.path.join(OUT, name + ".json"), "wb") as f:
        f.write(rec["body"])
    with open(os.path.join(OUT, name + ".url"), "w") as f:
        f.write(rec["path"] + "\n")

weather_tool = {"toolSpec": {"name": "top_song", "description": "Get the most popular song played on a radio station.",
    "inputSchema": {"json": {"type": "object", "properties": {"sign": {"type": "string", "description": "The call sign for the radio station for which you want the most popular song. Example calls signs are WZPZ and WKRP."}}, "required": ["sign"]}}}}

# 1. Text with inference settings (the SDK examples' basic call).
client.converse(modelId=NOVA, messages=[{"role": "user", "content": [{"text": "Describe the purpose of a 'hello world' program in one line."}]}],
                inferenceConfig={"maxTokens": 512, "temperature": 0.5, "topP": 0.9})
take("sdk-boto3-text-inference-config")

# 2. System prompts and a model-specific field.
client.converse(modelId=CLAUDE, system=[{"text": "You are an app that creates playlists for a radio station that plays rock and pop music. Only return song names and the artist."}],
                messages=[{"role": "user", "content": [{"text": "Create a list of 3 pop songs."}]}],
                inferenceConfig={"temperature": 0.5}, additionalModelRequestFields={"top_k": 200})
take("sdk-boto3-system-additional-fields")

# 3. A conversation.
client.converse(modelId=CLAUDE, messages=[
    {"role": "user", "content": [{"text": "Create a list of 3 pop songs."}]},
    {"role": "assistant", "content": [{"text": "Here is a list of 3 pop songs by artists from the United Kingdom:\n\n1. \"Bad Guy\" by Billie Eilish\n2. \"Shape of You\" by Ed Sheeran\n3. \"Blinding Lights\" by The Weeknd"}]},
    {"role": "user", "content": [{"text": "Make sure the songs are by artists from the United Kingdom."}]}],
    inferenceConfig={"maxTokens": 300, "stopSequences": ["\n\nHuman:"]})
take("sdk-boto3-multi-turn-stop-sequences")

# 4. An image from bytes.
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "What's in this image?"}, {"image": {"format": "png", "source": {"bytes": PNG}}}]}])
take("sdk-boto3-image-bytes")

# 5. Documents from bytes, with a text block (Bedrock requires one).
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [
    {"text": "Briefly compare the two documents."},
    {"document": {"format": "pdf", "name": "Report Q1", "source": {"bytes": PDF}}},
    {"document": {"format": "md", "name": "notes", "source": {"bytes": b"# Notes\n\n- revenue up 4%\n- costs flat\n"}}}]}])
take("sdk-boto3-documents-bytes")

# 6. Documents by text and by content blocks, with citations and context.
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [
    {"document": {"format": "txt", "name": "policy", "source": {"text": "Employees may work remotely up to three days a week."}, "citations": {"enabled": True}}},
    {"document": {"format": "txt", "name": "faq", "source": {"content": [{"text": "Q: Is parking free? A: Yes, for staff."}]}, "context": "Internal FAQ, 2025 edition", "citations": {"enabled": True}}},
    {"text": "How many remote days are allowed, and is parking free?"}]}])
take("sdk-boto3-documents-text-content-citations")

# 7. Files in S3, a video and an audio clip.
client.converse(modelId=NOVA, messages=[{"role": "user", "content": [
    {"video": {"format": "mp4", "source": {"s3Location": {"uri": "s3://my-bucket/clips/launch.mp4", "bucketOwner": "111122223333"}}}},
    {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://my-bucket/images/poster.jpg"}}}},
    {"text": "Does the poster match the video?"}]}])
take("sdk-boto3-s3-locations")
client.converse(modelId=NOVA, messages=[{"role": "user", "content": [
    {"video": {"format": "mp4", "source": {"bytes": MP4}}},
    {"audio": {"format": "wav", "source": {"bytes": WAV}}},
    {"text": "Describe the video and transcribe the audio."}]}])
take("sdk-boto3-video-audio-bytes")

# 8. Tools and each tool choice.
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
                toolConfig={"tools": [weather_tool]})
take("sdk-boto3-tool-config")
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
                toolConfig={"tools": [weather_tool], "toolChoice": {"tool": {"name": "top_song"}}})
take("sdk-boto3-tool-choice-tool")
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]}],
                toolConfig={"tools": [weather_tool], "toolChoice": {"any": {}}})
take("sdk-boto3-tool-choice-any")

# 9. A tool round trip: toolUse, then a JSON toolResult, then text.
use = {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "top_song", "input": {"sign": "WZPZ"}}}
client.converse(modelId=CLAUDE, messages=[
    {"role": "user", "content": [{"text": "What is the most popular song on WZPZ?"}]},
    {"role": "assistant", "content": [{"text": "I'll look up the most popular song on WZPZ."}, use]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "content": [{"json": {"song": "Elemental Hotel", "artist": "8 Storey Hike"}}]}}]}],
    toolConfig={"tools": [weather_tool], "toolChoice": {"auto": {}}})
take("sdk-boto3-tool-result-json")

# 10. An error result (text), status given, and a result with an image.
client.converse(modelId=CLAUDE, messages=[
    {"role": "user", "content": [{"text": "What is the most popular song on WKRP?"}]},
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "top_song", "input": {"sign": "WKRP"}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "Station WKRP not found."}], "status": "error"}}]},
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_2", "name": "top_song", "input": {"sign": "WZPZ"}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "tooluse_2", "content": [{"text": "Cover art:"}, {"image": {"format": "jpeg", "source": {"bytes": JPEG}}}], "status": "success"}},
                                 {"text": "Show me the cover too."}]}],
    toolConfig={"tools": [weather_tool]})
take("sdk-boto3-tool-result-error-image")

# 11. Reasoning in the history (text with a signature, and redacted).
client.converse(modelId="us.anthropic.claude-3-7-sonnet-20250219-v1:0", messages=[
    {"role": "user", "content": [{"text": "What is 27 * 453?"}]},
    {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "27 * 453 = 27 * 400 + 27 * 53 = 10800 + 1431 = 12231.", "signature": "ErUBCkYIBBgCIkB0dGhpcyBpcyBhIHNpZ25hdHVyZQ=="}}},
        {"reasoningContent": {"redactedContent": b"\x00\x01opaque-redacted-thinking\xff"}},
        {"text": "27 × 453 = 12,231."}]},
    {"role": "user", "content": [{"text": "And 27 * 454?"}]}],
    additionalModelRequestFields={"thinking": {"type": "enabled", "budget_tokens": 2048}}, inferenceConfig={"maxTokens": 4096})
take("sdk-boto3-reasoning-history")

# 12. Cache points in the system prompt, a message and the tools.
client.converse(modelId=CLAUDE,
    system=[{"text": "You are a helpful assistant for the ACME support team. " * 20}, {"cachePoint": {"type": "default"}}],
    messages=[{"role": "user", "content": [{"text": "Here is the product manual: ..." }, {"cachePoint": {"type": "default", "ttl": "1h"}}, {"text": "How do I reset the device?"}]}],
    toolConfig={"tools": [weather_tool, {"cachePoint": {"type": "default"}}]})
take("sdk-boto3-cache-points")

# 13. Guardrails: guard content and the guardrail configuration.
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [
    {"guardContent": {"text": {"text": "Is the AB503 Product a better investment than the S&P 500?", "qualifiers": ["guard_content"]}}},
    {"text": "Answer as a financial analyst."}]}],
    guardrailConfig={"guardrailIdentifier": "gr-abc123def456", "guardrailVersion": "1", "trace": "enabled"},
    system=[{"text": "Do not give investment advice."}, {"guardContent": {"text": {"text": "Policy: no advice on securities."}}}])
take("sdk-boto3-guardrails")

# 14. Request metadata, latency-optimized inference, response field paths, service tier.
client.converse(modelId="us.anthropic.claude-3-5-haiku-20241022-v1:0", messages=[{"role": "user", "content": [{"text": "Summarize the quarterly results."}]}],
    requestMetadata={"team": "finance", "project": "q3-report"}, performanceConfig={"latency": "optimized"},
    additionalModelResponseFieldPaths=["/stop_sequence"], serviceTier={"type": "priority"})
take("sdk-boto3-metadata-latency-tier")

# 15. A prompt from Prompt management, with variables.
client.converse(modelId="arn:aws:bedrock:us-east-1:111122223333:prompt/PROMPT12345:1",
    promptVariables={"genre": {"text": "pop"}, "number": {"text": "3"}})
take("sdk-boto3-prompt-variables")

# 16. Nova with its own top-k and a system tool.
client.converse(modelId="us.amazon.nova-premier-v1:0", messages=[{"role": "user", "content": [{"text": "What happened in the news today?"}]}],
    toolConfig={"tools": [{"systemTool": {"name": "nova_grounding"}}]}, additionalModelRequestFields={"inferenceConfig": {"topK": 20}})
take("sdk-boto3-nova-system-tool")

# 17. Structured output and effort (outputConfig).
client.converse(modelId=CLAUDE, messages=[{"role": "user", "content": [{"text": "Extract the name and age: 'Ada, 36'."}]}],
    outputConfig={"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"}},\"required\":[\"name\",\"age\"]}", "name": "person"}}}})
take("sdk-boto3-output-config")

# 18. ConverseStream (another endpoint, the same body).
client.converse_stream(modelId=NOVA, messages=[{"role": "user", "content": [{"text": "Write a limerick about streams."}]}], inferenceConfig={"maxTokens": 200})
take("sdk-boto3-converse-stream")

# 19. Strict tool spec, several tools, a parallel tool use answered together.
t2 = {"toolSpec": {"name": "get_weather", "description": "Weather for a city.", "strict": True, "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}}}}
client.converse(modelId=CLAUDE, messages=[
    {"role": "user", "content": [{"text": "Weather in Paris and Rome?"}]},
    {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t-1", "name": "get_weather", "input": {"city": "Paris"}}}, {"toolUse": {"toolUseId": "t-2", "name": "get_weather", "input": {"city": "Rome"}}}]},
    {"role": "user", "content": [{"toolResult": {"toolUseId": "t-1", "content": [{"text": "18C"}]}}, {"toolResult": {"toolUseId": "t-2", "content": [{"text": "25C"}]}}]}],
    toolConfig={"tools": [weather_tool, t2]})
take("sdk-boto3-parallel-tool-use-strict")

print("written", len([f for f in os.listdir(OUT) if f.endswith('.json')]))
