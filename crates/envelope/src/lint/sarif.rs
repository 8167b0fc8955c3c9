//! `--format sarif`: SARIF 2.1.0, as GitHub code scanning reads it (upload
//! it with `github/codeql-action/upload-sarif`). One run; the driver lists
//! every rule with its default level; each result names its rule, level,
//! message, the file (a relative URI) and the region, with the JSON pointer
//! as a logical location. Columns are Unicode code points.

use serde_json::{json, Value};

use super::FileReport;
use crate::diag::{Rule, Severity};

/// The schema of the SARIF version written (OASIS, 2.1.0 with errata 01).
pub const SCHEMA: &str = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A file name as a URI reference: relative paths stay relative (`./` and
/// `\` normalised), absolute ones become `file://` URIs; every byte outside
/// RFC 3986's unreserved set and `/` is percent-encoded.
pub fn uri(file: &str) -> String {
    let path = file.replace('\\', "/");
    let absolute = path.starts_with('/');
    let mut rel = path.as_str();
    while let Some(r) = rel.strip_prefix("./") {
        rel = r;
    }
    let mut out = String::new();
    for b in rel.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if absolute {
        format!("file://{out}")
    } else {
        out
    }
}

fn rule_json(r: Rule) -> Value {
    json!({
        "id": r.code(),
        "shortDescription": {"text": r.summary()},
        "fullDescription": {"text": r.summary()},
        "help": {"text": format!("{} Example: {}", r.summary(), r.example())},
        "defaultConfiguration": {"level": level(r.default_severity())},
        "properties": {"tags": [r.area().as_str()]},
    })
}

/// The SARIF log of `reports`; `version` is pep's.
pub fn render(reports: &[FileReport], version: &str) -> Value {
    let mut results = Vec::new();
    for r in reports {
        for f in &r.findings {
            let d = &f.diagnostic;
            let idx = Rule::ALL.iter().position(|&x| x == d.rule).unwrap_or(0);
            let l = &f.location;
            let mut region = json!({
                "startLine": l.line.unwrap_or(1),
                "startColumn": l.column.unwrap_or(1),
            });
            if let (Some(el), Some(ec)) = (l.end_line, l.end_column) {
                if (el, ec) > (l.line.unwrap_or(1), l.column.unwrap_or(1)) {
                    region["endLine"] = el.into();
                    region["endColumn"] = ec.into();
                }
            }
            let mut location = json!({
                "physicalLocation": {"artifactLocation": {"uri": uri(&r.file)}, "region": region},
            });
            if !l.pointer.is_empty() {
                location["logicalLocations"] = json!([{"fullyQualifiedName": d.path, "kind": "member"}]);
            }
            let mut props = json!({"path": d.path, "pointer": l.pointer});
            if let Some(h) = &d.hint {
                props["hint"] = h.as_str().into();
            }
            if let Some(id) = &l.message_id {
                props["messageId"] = id.as_str().into();
            }
            let text = match &d.hint {
                Some(h) => format!("{} (help: {h})", d.message),
                None => d.message.clone(),
            };
            results.push(json!({
                "ruleId": d.code(),
                "ruleIndex": idx,
                "level": level(d.severity),
                "message": {"text": text},
                "locations": [location],
                "properties": props,
            }));
        }
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "pep",
                "fullName": "pep lint (Prompt Envelope)",
                "semanticVersion": version,
                "rules": Rule::ALL.iter().map(|&r| rule_json(r)).collect::<Vec<_>>(),
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(uri("./demos/a.json"), "demos/a.json");
        assert_eq!(uri("prompts\\my file#1.json"), "prompts/my%20file%231.json");
        assert_eq!(uri("/abs/é.json"), "file:///abs/%C3%A9.json");
    }
}
