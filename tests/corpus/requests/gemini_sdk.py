"""Runs google-genai (python) against the loopback server; writes each
request body it sent, byte for byte, to OUT/<scenario>.json."""
import base64, json, os, struct, sys, zlib
sys.path.insert(0, os.path.dirname(__file__))
import server
from google import genai
from google.genai import types
from pydantic import BaseModel

OUT = sys.argv[1]
srv, port = server.start()
BASE = f"http://127.0.0.1:{port}"

def png(w=2, h=2, rgb=(250, 251, 63)):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")

PNG = png()
assert "-" in base64.urlsafe_b64encode(PNG).decode() or "_" in base64.urlsafe_b64encode(PNG).decode(), base64.b64encode(PNG)
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
WAV = b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8) + b"data" + struct.pack("<I", 0)

client = genai.Client(api_key="loopback-key", http_options=types.HttpOptions(base_url=BASE))
M = "gemini-2.5-flash"
NO_AFC = types.AutomaticFunctionCallingConfig(disable=True)

def take(name):
    rec = server.RECORDS.pop()
    assert not server.RECORDS, server.RECORDS
    with open(os.path.join(OUT, name + ".json"), "wb") as f:
        f.write(rec["body"])
    with open(os.path.join(OUT, name + ".url"), "w") as f:
        f.write(rec["path"] + "\n")

weather = types.FunctionDeclaration(
    name="get_current_weather",
    description="Get the current weather in a given location",
    parameters=types.Schema(
        type="OBJECT",
        properties={"location": types.Schema(type="STRING", description="The city and state, e.g. San Francisco, CA"),
                    "unit": types.Schema(type="STRING", enum=["celsius", "fahrenheit"])},
        required=["location"],
    ),
)

# 1. A plain string.
client.models.generate_content(model=M, contents="Why is the sky blue?")
take("sdk-python-text")

# 2. System instruction and sampling settings.
client.models.generate_content(
    model=M, contents="Write a haiku about the sea.",
    config=types.GenerateContentConfig(
        system_instruction="You are a poet who writes only haiku.", temperature=0.4, top_p=0.9, top_k=32,
        max_output_tokens=256, stop_sequences=["\n\n\n"], seed=42, candidate_count=1,
        presence_penalty=0.1, frequency_penalty=0.2))
take("sdk-python-system-and-settings")

# 3. Multi-turn contents.
client.models.generate_content(model=M, contents=[
    types.Content(role="user", parts=[types.Part(text="Hello, I have 2 dogs in my house.")]),
    types.Content(role="model", parts=[types.Part(text="Great to meet your dogs! What are their names?")]),
    types.Content(role="user", parts=[types.Part(text="How many paws are in my house?")]),
])
take("sdk-python-multi-turn")

# 4. A chat session: the second turn sends the history.
chat = client.chats.create(model=M, config=types.GenerateContentConfig(system_instruction="Answer briefly."))
chat.send_message("I have two cats.")
server.RECORDS.clear()
chat.send_message("How many paws do they have together?")
take("sdk-python-chat-history")

# 5. An image from bytes (URL-safe base64) with text.
client.models.generate_content(model=M, contents=[types.Part.from_bytes(data=PNG, mime_type="image/png"), "What color is this image?"])
take("sdk-python-image-bytes")

# 6. A PDF from bytes.
client.models.generate_content(model=M, contents=[types.Part.from_bytes(data=PDF, mime_type="application/pdf"), "Summarize this document."])
take("sdk-python-pdf-bytes")

# 7. Files by URI (an uploaded file, a YouTube video without MIME type).
client.models.generate_content(model=M, contents=[
    types.Part.from_uri(file_uri="https://generativelanguage.googleapis.com/v1beta/files/abc-123", mime_type="video/mp4"),
    types.Part(file_data=types.FileData(file_uri="https://www.youtube.com/watch?v=9hE5-98ZeCg")),
    "Compare these two videos."])
take("sdk-python-file-uri")

# 8. Function declarations and a forced function call.
client.models.generate_content(model=M, contents="What's the weather like in Boston?",
    config=types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[weather])], automatic_function_calling=NO_AFC,
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="ANY", allowed_function_names=["get_current_weather"]))))
take("sdk-python-function-declarations-any")

# 9. A function call answered (no ids), continued by the user.
client.models.generate_content(model=M, contents=[
    types.Content(role="user", parts=[types.Part(text="What's the weather like in Boston?")]),
    types.Content(role="model", parts=[types.Part.from_function_call(name="get_current_weather", args={"location": "Boston, MA"})]),
    types.Content(role="user", parts=[types.Part.from_function_response(name="get_current_weather", response={"temperature": 22, "unit": "celsius", "description": "Sunny"})]),
], config=types.GenerateContentConfig(tools=[types.Tool(function_declarations=[weather])], automatic_function_calling=NO_AFC))
take("sdk-python-function-response")

# 10. Parallel calls of one function, answered in order (paired by name and order).
client.models.generate_content(model=M, contents=[
    types.Content(role="user", parts=[types.Part(text="Weather in Paris and in Rome?")]),
    types.Content(role="model", parts=[
        types.Part.from_function_call(name="get_current_weather", args={"location": "Paris"}),
        types.Part.from_function_call(name="get_current_weather", args={"location": "Rome"})]),
    types.Content(role="user", parts=[
        types.Part.from_function_response(name="get_current_weather", response={"output": "18C, cloudy"}),
        types.Part.from_function_response(name="get_current_weather", response={"output": "25C, sunny"})]),
], config=types.GenerateContentConfig(tools=[types.Tool(function_declarations=[weather])], automatic_function_calling=NO_AFC))
take("sdk-python-parallel-calls")

# 11. Calls and responses with ids.
fc = types.FunctionCall(id="call-7f3a", name="get_current_weather", args={"location": "Oslo"})
fr = types.FunctionResponse(id="call-7f3a", name="get_current_weather", response={"error": "service unavailable"})
client.models.generate_content(model=M, contents=[
    types.Content(role="user", parts=[types.Part(text="Weather in Oslo?")]),
    types.Content(role="model", parts=[types.Part(function_call=fc)]),
    types.Content(role="user", parts=[types.Part(function_response=fr)]),
], config=types.GenerateContentConfig(tools=[types.Tool(function_declarations=[weather])], automatic_function_calling=NO_AFC))
take("sdk-python-call-ids-error")

# 12. A declaration with a JSON Schema, and one without parameters.
client.models.generate_content(model=M, contents="Book a table for two at 7pm.",
    config=types.GenerateContentConfig(automatic_function_calling=NO_AFC, tools=[types.Tool(function_declarations=[
        types.FunctionDeclaration(name="book_table", description="Books a restaurant table.",
            parameters_json_schema={"type": "object", "properties": {"party": {"type": "integer", "minimum": 1}, "time": {"type": "string", "format": "time"}}, "required": ["party", "time"], "additionalProperties": False}),
        types.FunctionDeclaration(name="list_restaurants", description="Lists nearby restaurants."),
    ])]))
take("sdk-python-parameters-json-schema")

# 13. Automatic function calling from a Python function (the SDK writes the declaration).
def get_exchange_rate(currency_from: str, currency_to: str) -> dict:
    """Returns the exchange rate between two currencies.

    Args:
        currency_from: The currency to convert from, e.g. USD.
        currency_to: The currency to convert to, e.g. EUR.
    """
    return {"rate": 0.92}
client.models.generate_content(model=M, contents="How many euros is 100 dollars?",
    config=types.GenerateContentConfig(tools=[get_exchange_rate]))
take("sdk-python-afc-python-function")

# 14. Structured output from a pydantic model (responseSchema) and a JSON Schema.
class Recipe(BaseModel):
    recipe_name: str
    ingredients: list[str]
client.models.generate_content(model=M, contents="List a few popular cookie recipes.",
    config=types.GenerateContentConfig(response_mime_type="application/json", response_schema=list[Recipe]))
take("sdk-python-response-schema")
client.models.generate_content(model=M, contents="Extract the city and the date: 'See you in Lyon on 3 May.'",
    config=types.GenerateContentConfig(response_mime_type="application/json",
        response_json_schema={"type": "object", "properties": {"city": {"type": "string"}, "date": {"type": "string"}}, "required": ["city", "date"]}))
take("sdk-python-response-json-schema")

# 15. Thinking settings.
client.models.generate_content(model=M, contents="Prove that there are infinitely many primes.",
    config=types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_budget=1024, include_thoughts=True)))
take("sdk-python-thinking-budget")
client.models.generate_content(model="gemini-3-pro-preview", contents="Plan a three-day trip to Kyoto.",
    config=types.GenerateContentConfig(thinking_config=types.ThinkingConfig(thinking_level="low")))
take("sdk-python-thinking-level")

# 16. History with a thought and signatures (a text part and a call part carry them).
SIG = bytes(range(250, 256)) + b"\xfb\xef\xbe" + b"signature-bytes-0123456789"
client.models.generate_content(model="gemini-3-pro-preview", contents=[
    types.Content(role="user", parts=[types.Part(text="What's the weather in Lisbon? Think first.")]),
    types.Content(role="model", parts=[
        types.Part(text="The user wants the weather; I should call the tool.", thought=True),
        types.Part(function_call=types.FunctionCall(name="get_current_weather", args={"location": "Lisbon"}), thought_signature=SIG)]),
    types.Content(role="user", parts=[types.Part.from_function_response(name="get_current_weather", response={"output": "21C"})]),
    types.Content(role="model", parts=[types.Part(text="It is 21C in Lisbon.", thought_signature=SIG[::-1])]),
    types.Content(role="user", parts=[types.Part(text="And tomorrow?")]),
], config=types.GenerateContentConfig(tools=[types.Tool(function_declarations=[weather])], automatic_function_calling=NO_AFC))
take("sdk-python-thought-signatures")

# 17. Server tools: Google Search, code execution, URL context.
client.models.generate_content(model=M, contents="Who won Euro 2024? Compute the sum of the first 50 primes. Summarize https://ai.google.dev/gemini-api/docs.",
    config=types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch()), types.Tool(code_execution=types.ToolCodeExecution()), types.Tool(url_context=types.UrlContext())]))
take("sdk-python-server-tools")

# 18. Code execution parts in history.
client.models.generate_content(model=M, contents=[
    types.Content(role="user", parts=[types.Part(text="What is the sum of the first 50 prime numbers?")]),
    types.Content(role="model", parts=[
        types.Part(text="I'll compute it."),
        types.Part(executable_code=types.ExecutableCode(language="PYTHON", code="import sympy\nprint(sum(sympy.prime(i) for i in range(1, 51)))")),
        types.Part(code_execution_result=types.CodeExecutionResult(outcome="OUTCOME_OK", output="5117\n")),
        types.Part(text="The sum is 5117.")]),
    types.Content(role="user", parts=[types.Part(text="And of the first 100?")]),
], config=types.GenerateContentConfig(tools=[types.Tool(code_execution=types.ToolCodeExecution())]))
take("sdk-python-code-execution-history")

# 19. Safety settings and a cached content.
client.models.generate_content(model=M, contents="Tell me about the transcript.",
    config=types.GenerateContentConfig(cached_content="cachedContents/abc123xyz",
        safety_settings=[types.SafetySetting(category="HARM_CATEGORY_HATE_SPEECH", threshold="BLOCK_ONLY_HIGH"),
                         types.SafetySetting(category="HARM_CATEGORY_DANGEROUS_CONTENT", threshold="BLOCK_LOW_AND_ABOVE")]))
take("sdk-python-safety-cached-content")

# 20. Audio bytes, media resolution and a clipped video.
client.models.generate_content(model=M, contents=[
    types.Part.from_bytes(data=WAV, mime_type="audio/wav"),
    types.Part(file_data=types.FileData(file_uri="https://generativelanguage.googleapis.com/v1beta/files/vid-9", mime_type="video/mp4"),
               video_metadata=types.VideoMetadata(start_offset="10s", end_offset="40s", fps=2)),
    "Transcribe the audio and describe the clip."],
    config=types.GenerateContentConfig(media_resolution="MEDIA_RESOLUTION_LOW"))
take("sdk-python-audio-video-metadata")

# 21. Image output settings.
client.models.generate_content(model="gemini-2.5-flash-image", contents="A watercolor of a lighthouse at dusk.",
    config=types.GenerateContentConfig(response_modalities=["TEXT", "IMAGE"], image_config=types.ImageConfig(aspect_ratio="16:9")))
take("sdk-python-image-output")

# 22. Function calling config modes AUTO/NONE and a tool with two declarations plus search.
client.models.generate_content(model=M, contents="Turn on the lights in the kitchen.",
    config=types.GenerateContentConfig(automatic_function_calling=NO_AFC,
        tools=[types.Tool(function_declarations=[
            types.FunctionDeclaration(name="turn_on_lights", description="Turns lights on.", parameters=types.Schema(type="OBJECT", properties={"room": types.Schema(type="STRING")})),
            types.FunctionDeclaration(name="turn_off_lights", description="Turns lights off.", parameters=types.Schema(type="OBJECT", properties={"room": types.Schema(type="STRING")}))]),
            types.Tool(function_declarations=[types.FunctionDeclaration(name="set_color", description="Sets the light color.", parameters=types.Schema(type="OBJECT", properties={"rgb_hex": types.Schema(type="STRING")}))])],
        tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode="AUTO"))))
take("sdk-python-two-tool-groups")

# 23. Streaming (the same body, another endpoint).
for _ in client.models.generate_content_stream(model=M, contents="Write a short story about a cat."):
    pass
take("sdk-python-stream")

print("written", len(os.listdir(OUT)) // 2)
