"""The runs that make the corpus: one fixture directory per run.

Each run: which venv (package set), which instrumentors, which environment, which providers'
scenarios. `generate.py` runs each in its own process, so environment variables read at import
or instrument time take effect.
"""

CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN"
LATEST = "gen_ai_latest_experimental"

ALL_OPENAI = ["openai_chat", "openai_responses"]

RUNS = {
    # ---- official OpenTelemetry (opentelemetry-python-contrib) ---------------------------
    "otel-openai-v2-events": dict(
        venv="official-openai-legacy", instrument=["openai_v2"], env={CAPTURE: "true"},
        providers=["openai_chat"],
        note="default mode: semantic conventions v1.30 log events (gen_ai.*.message, gen_ai.choice)",
    ),
    "otel-openai-v2-events-no-content": dict(
        venv="official-openai-legacy", instrument=["openai_v2"], env={},
        providers=["openai_chat"], small=True,
        note="v1.30 events, content capture OFF (the default): events carry no content",
    ),
    "otel-openai-v2-latest-span": dict(
        venv="official-openai", instrument=["openai_v2"], env={OPT_IN: LATEST, CAPTURE: "SPAN_ONLY"},
        providers=["openai_chat"],
        note="latest experimental conventions, content on the span",
    ),
    "otel-openai-v2-latest-event": dict(
        venv="official-openai", instrument=["openai_v2"], env={OPT_IN: LATEST, CAPTURE: "EVENT_ONLY"},
        providers=["openai_chat"],
        note="latest experimental conventions, content on the gen_ai.client.inference.operation.details event",
    ),
    "otel-openai-v2-latest-span-and-event": dict(
        venv="official-openai", instrument=["openai_v2"], env={OPT_IN: LATEST, CAPTURE: "SPAN_AND_EVENT"},
        providers=["openai_chat"],
        note="latest experimental conventions, content on both",
    ),
    "otel-openai-v2-no-content": dict(
        venv="official-openai", instrument=["openai_v2"], env={},
        providers=["openai_chat"], small=True,
        note="content capture OFF (the default)",
    ),
    "otel-google-genai-span": dict(
        venv="official", instrument=["google_genai"], env={OPT_IN: LATEST, CAPTURE: "SPAN_ONLY"},
        providers=["gemini"],
        note="google-genai instrumentation, content on the span",
    ),
    "otel-google-genai-span-and-event": dict(
        venv="official", instrument=["google_genai"], env={OPT_IN: LATEST, CAPTURE: "SPAN_AND_EVENT"},
        providers=["gemini"],
        note="google-genai instrumentation, content on span and event",
    ),
    "otel-google-genai-no-content": dict(
        venv="official", instrument=["google_genai"], env={OPT_IN: LATEST},
        providers=["gemini"], small=True,
        note="content capture OFF",
    ),
    "otel-botocore-bedrock": dict(
        venv="official", instrument=["botocore"], env={CAPTURE: "true"},
        providers=["bedrock"],
        note="botocore instrumentation, bedrock-runtime: v1.30-style log events",
    ),
    "otel-botocore-bedrock-no-content": dict(
        venv="official", instrument=["botocore"], env={},
        providers=["bedrock"], small=True,
        note="content capture OFF",
    ),
    # ---- the Anthropic SDK's own tracing (anthropic >= 2.x, scope com.anthropic.sdk.python) ----
    "anthropic-sdk-content": dict(
        venv="official", instrument=[], env={"ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE": "content"},
        providers=["anthropic"], note="no instrumentation package: the SDK's built-in spans, content mode",
    ),
    "anthropic-sdk-metadata": dict(
        venv="official", instrument=[], env={},
        providers=["anthropic"], small=True, note="the SDK's built-in spans, default metadata_only mode",
    ),
    # ---- OpenLLMetry (traceloop) -----------------------------------------------------------
    "openllmetry-openai": dict(
        venv="openllmetry", instrument=["ll_openai"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=ALL_OPENAI, note="0.62: gen_ai.input.messages / gen_ai.output.messages JSON strings (no longer indexed)",
    ),
    "openllmetry-openai-no-content": dict(
        venv="openllmetry", instrument=["ll_openai"], env={"TRACELOOP_TRACE_CONTENT": "false"},
        providers=ALL_OPENAI, small=True, note="TRACELOOP_TRACE_CONTENT=false",
    ),
    "openllmetry-anthropic": dict(
        venv="openllmetry", instrument=["ll_anthropic"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["anthropic"], note="indexed attributes",
    ),
    "openllmetry-bedrock": dict(
        venv="openllmetry", instrument=["ll_bedrock"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["bedrock"], note="indexed attributes",
    ),
    "openllmetry-google-genai": dict(
        venv="openllmetry", instrument=["ll_google"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["gemini"], note="opentelemetry-instrumentation-google-generativeai (wraps google.genai)",
    ),
    # ---- OpenLLMetry 0.52.6: the last release with the indexed gen_ai.prompt.{i}.* attributes ----
    "openllmetry-legacy-openai": dict(
        venv="openllmetry-legacy", instrument=["ll_openai"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=ALL_OPENAI, note="indexed gen_ai.prompt.{i}.* / gen_ai.completion.{i}.* attributes",
    ),
    "openllmetry-legacy-openai-no-content": dict(
        venv="openllmetry-legacy", instrument=["ll_openai"], env={"TRACELOOP_TRACE_CONTENT": "false"},
        providers=ALL_OPENAI, small=True, note="TRACELOOP_TRACE_CONTENT=false",
    ),
    "openllmetry-legacy-anthropic": dict(
        venv="openllmetry-legacy", instrument=["ll_anthropic"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["anthropic"], note="indexed attributes",
    ),
    "openllmetry-legacy-bedrock": dict(
        venv="openllmetry-legacy", instrument=["ll_bedrock"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["bedrock"], note="indexed attributes",
    ),
    "openllmetry-legacy-google-genai": dict(
        venv="openllmetry-legacy", instrument=["ll_google"], env={"TRACELOOP_TRACE_CONTENT": "true"},
        providers=["gemini"], note="indexed attributes",
    ),
    # ---- OpenInference (Arize) ---------------------------------------------------------------
    "openinference-openai": dict(
        venv="openinference", instrument=["oi_openai"], env={},
        providers=ALL_OPENAI, note="llm.input_messages.{i}.message.* etc.",
    ),
    "openinference-openai-hidden": dict(
        venv="openinference", instrument=["oi_openai"],
        env={"OPENINFERENCE_HIDE_INPUTS": "true", "OPENINFERENCE_HIDE_OUTPUTS": "true"},
        providers=ALL_OPENAI, small=True, note="OPENINFERENCE_HIDE_INPUTS/OUTPUTS=true",
    ),
    "openinference-anthropic": dict(
        venv="openinference", instrument=["oi_anthropic"], env={}, providers=["anthropic"], note="",
    ),
    "openinference-bedrock": dict(
        venv="openinference", instrument=["oi_bedrock"], env={}, providers=["bedrock"], note="",
    ),
    "openinference-google-genai": dict(
        venv="openinference", instrument=["oi_google"], env={}, providers=["gemini"], note="",
    ),
}
