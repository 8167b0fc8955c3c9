"""Checks Gemini generateContent and Bedrock Converse request bodies against
the providers' own Python SDKs (crates/envelope/tests/provider_types_gemini_bedrock.rs,
docs/DECISIONS.md D172).

    python3 check.py bedrock|gemini BODIES.json REQUIREMENTS.txt

BODIES.json is a list of {"name": str, "model": str, "body": object} (the
wire body, as sent). The SDKs come from PYTHONPATH (.tools/python, installed
by scripts/setup.sh); their versions must equal REQUIREMENTS.txt's pins.

Prints one line per error, "<name>: <where>: <message>", and a last line
"checked N bodies, E errors". Exit status: 0 no error, 1 errors, 2 the check
itself could not run.
"""

import base64
import binascii
import importlib.metadata
import json
import re
import sys
import warnings


def fail(message):
    print(f"check.py: {message}")
    sys.exit(2)


def pinned(requirements, package):
    for line in open(requirements, encoding="utf-8"):
        m = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)==(\S+)\s*", line.split("#")[0])
        if m and m.group(1).lower().replace("_", "-") == package:
            return m.group(2)
    fail(f"{requirements} does not pin {package}")


def require(requirements, package):
    want = pinned(requirements, package)
    try:
        have = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        fail(f"{package} is not installed: run scripts/setup.sh")
    if have != want:
        fail(f"{package} {have} is installed, {want} is pinned: run scripts/setup.sh")


# --- Bedrock Converse: botocore's own validator -------------------------------


def bedrock_checker():
    import botocore.session
    import botocore.validate

    shape = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse").input_shape
    validator = botocore.validate.ParamValidator()

    def check(name, model, body):
        errors = []
        if not isinstance(body, dict):
            return [f"{name}: the body is not an object"]
        if "modelId" in body:
            errors.append(f"{name}: modelId: the model belongs in the URL, not the body")
        params = dict(body)
        params["modelId"] = model
        report = validator.validate(params, shape)
        if report.has_errors():
            for line in report.generate_report().splitlines():
                errors.append(f"{name}: {line.strip()}")
        # What the service checks and boto3 does not: an enum's value, and a
        # blob's wire form (base64; boto3 takes bytes and encodes them itself,
        # its validator accepts any str).
        errors += [f"{name}: {e}" for e in wire_checks(params, shape, "")]
        return errors

    return check


def wire_checks(value, shape, at):
    out = []
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        for k, v in value.items():
            if k in shape.members:
                out += wire_checks(v, shape.members[k], f"{at}.{k}" if at else k)
    elif kind == "list" and isinstance(value, list):
        for i, v in enumerate(value):
            out += wire_checks(v, shape.member, f"{at}[{i}]")
    elif kind == "map" and isinstance(value, dict):
        for k, v in value.items():
            out += wire_checks(v, shape.value, f"{at}.{k}")
    elif kind == "string" and isinstance(value, str) and shape.enum and value not in shape.enum:
        out.append(f"{at}: {value!r} is not one of {shape.enum}")
    elif kind == "blob" and isinstance(value, str):
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as e:
            out.append(f"{at}: a blob on the wire is base64, this is not ({e})")
    return out


# --- Gemini generateContent: google-genai's pydantic types -------------------


def gemini_checker():
    from google.genai import types
    from pydantic import TypeAdapter, ValidationError

    # The REST GenerateContentRequest's body fields (`model` is in the URL),
    # as google-genai writes them (models._GenerateContentParameters_to_mldev
    # and _GenerateContentConfig_to_mldev), with the type that describes each.
    fields = {
        "contents": TypeAdapter(list[types.Content]),
        "systemInstruction": TypeAdapter(types.Content),
        "tools": TypeAdapter(list[types.Tool]),
        "toolConfig": TypeAdapter(types.ToolConfig),
        "safetySettings": TypeAdapter(list[types.SafetySetting]),
        "generationConfig": TypeAdapter(types.GenerationConfig),
        "cachedContent": TypeAdapter(str),
        "serviceTier": TypeAdapter(types.ServiceTier),
    }
    part_data = {
        "text", "inlineData", "fileData", "functionCall", "functionResponse",
        "executableCode", "codeExecutionResult", "toolCall", "toolResponse",
    }

    def check(name, model, body):
        if not isinstance(body, dict):
            return [f"{name}: the body is not an object"]
        errors = []
        if "contents" not in body:
            errors.append(f"{name}: contents: missing (required)")
        for key, value in body.items():
            adapter = fields.get(key)
            if adapter is None:
                errors.append(f"{name}: {key}: not a field of GenerateContentRequest")
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    # Wire names only (camelCase aliases): by_name=False.
                    adapter.validate_json(json.dumps(value), by_alias=True, by_name=False)
                except ValidationError as e:
                    for err in e.errors():
                        where = ".".join([key] + [str(p) for p in err["loc"]])
                        errors.append(f"{name}: {where}: {err['msg']} (input: {json.dumps(err.get('input'))[:80]})")
                except Exception as e:  # the SDK's own code failing on a value it did not expect
                    errors.append(f"{name}: {key}: {type(e).__name__}: {e} (input: {json.dumps(value)[:80]})")
            # google-genai accepts an unknown enum value with a warning
            # (forward compatibility); the API does not.
            for w in caught:
                errors.append(f"{name}: {key}: {w.message}")
        # What the API documents and the types leave open: a Content's role
        # (optional), and a Part's one datum (the proto's `data` oneof).
        turns = body.get("contents") if isinstance(body.get("contents"), list) else []
        for i, c in enumerate(turns):
            if isinstance(c, dict) and c.get("role", "user") not in ("user", "model"):
                errors.append(f"{name}: contents.{i}.role: {c.get('role')!r} is neither 'user' nor 'model'")
        located = [(f"contents.{i}", c) for i, c in enumerate(turns)]
        if isinstance(body.get("systemInstruction"), dict):
            located.append(("systemInstruction", body["systemInstruction"]))
        for at, c in located:
            parts = c.get("parts") if isinstance(c, dict) else None
            for j, p in enumerate(parts if isinstance(parts, list) else []):
                if isinstance(p, dict):
                    data = sorted(part_data & p.keys())
                    if len(data) != 1:
                        errors.append(f"{name}: {at}.parts.{j}: a part holds exactly one datum, this one {data}")
        return errors

    return check


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("bedrock", "gemini"):
        fail("usage: check.py bedrock|gemini BODIES.json REQUIREMENTS.txt")
    target, bodies_file, requirements = sys.argv[1:]
    require(requirements, "botocore" if target == "bedrock" else "google-genai")
    check = bedrock_checker() if target == "bedrock" else gemini_checker()
    bodies = json.load(open(bodies_file, encoding="utf-8"))
    errors = []
    for b in bodies:
        errors += check(b["name"], b["model"], b["body"])
    for e in errors:
        print(e)
    print(f"checked {len(bodies)} bodies, {len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
