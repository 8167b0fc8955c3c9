//! Diagnostics: errors, warnings and notes, each with a stable rule code and a
//! JSON path (or a line) saying where.
//!
//! Every diagnostic the core produces names a [`Rule`]. The rule's code
//! (`undeclared-variable`) is stable: tools, CI configurations and the app
//! refer to it; its default severity, one-line meaning and example come from
//! one table ([`Rule::ALL`]), which the README's rule table repeats (a test
//! keeps the two equal).

use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document is rejected (or, for lint, CI fails).
    Error,
    /// The document loads; a UI lists the warning.
    Warning,
    /// Worth knowing; never fails anything.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What a rule is about: reading a document, a SKILL.md, or a lint check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Area {
    /// Reading and validating an envelope (PROTOCOL §1–3).
    Envelope,
    /// Reading a SKILL.md.
    Skill,
    /// Importing a provider's request body (OpenAI Chat, OpenAI Responses, Anthropic Messages).
    Import,
    /// A `pep lint` check beyond validation (budget, secrets, cache, …).
    Lint,
    /// Rendering a PromptPoet template (feature `templates`).
    Template,
}

impl Area {
    pub fn as_str(self) -> &'static str {
        match self {
            Area::Envelope => "envelope",
            Area::Skill => "skill",
            Area::Import => "import",
            Area::Lint => "lint",
            Area::Template => "template",
        }
    }
}

macro_rules! rules {
    ($( $variant:ident => ($code:literal, $area:ident, $sev:ident, $summary:literal, $example:literal) ),* $(,)?) => {
        /// Every rule a diagnostic can name. Codes are stable: never renamed
        /// or reused.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule { $( $variant ),* }

        impl Rule {
            /// Every rule, in the order of the README's table.
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant ),* ];

            /// The stable kebab-case code, e.g. `undeclared-variable`.
            pub fn code(self) -> &'static str {
                match self { $( Rule::$variant => $code ),* }
            }

            /// The severity a diagnostic of this rule has unless configured otherwise.
            pub fn default_severity(self) -> Severity {
                match self { $( Rule::$variant => Severity::$sev ),* }
            }

            /// What the rule is about.
            pub fn area(self) -> Area {
                match self { $( Rule::$variant => Area::$area ),* }
            }

            /// One line: what the rule means.
            pub fn summary(self) -> &'static str {
                match self { $( Rule::$variant => $summary ),* }
            }

            /// A short example of what triggers it.
            pub fn example(self) -> &'static str {
                match self { $( Rule::$variant => $example ),* }
            }
        }
    };
}

rules! {
    // Reading an envelope: JSON and structure (§1).
    UnreadableFile => ("unreadable-file", Envelope, Error, "The file could not be read at all (permissions, a folder, a failed browser read)", "`pep validate /root/secret.json` without access"),
    InvalidJson => ("invalid-json", Envelope, Error, "The text is not JSON, or is nested deeper than 128 levels", "`{\"version\": \"1.0\",}`"),
    InvalidUtf8 => ("invalid-utf8", Envelope, Error, "The file is not valid UTF-8", "a Latin-1 `é` byte (0xE9)"),
    EmptyDocument => ("empty-document", Envelope, Error, "The file is empty or only white space", "an empty file"),
    DuplicateKey => ("duplicate-key", Envelope, Error, "An object names one key twice (readers disagree on which wins)", "`{\"url\":\"javascript:x\",\"url\":\"https://x\"}`"),
    UnsupportedVersion => ("unsupported-version", Envelope, Error, "`version` is not \"1.0\"", "`\"version\": \"2.0\"`"),
    MissingField => ("missing-field", Envelope, Error, "A required field is absent", "a `text` segment without `content`"),
    WrongType => ("wrong-type", Envelope, Error, "A field holds the wrong JSON type or an out-of-range number", "`\"collapsed\": \"yes\"`"),
    UnknownField => ("unknown-field", Envelope, Error, "A field the protocol does not define", "`\"tool_name\"` (did you mean `toolName`?)"),
    UnknownRole => ("unknown-role", Envelope, Error, "`role` is not system, user, assistant or tool", "`\"role\": \"developer\"`"),
    UnknownKind => ("unknown-kind", Envelope, Error, "A segment `kind` outside the eleven", "`\"kind\": \"image\"`"),
    UnknownMediaType => ("unknown-media-type", Envelope, Error, "`mediaType` is not image, audio or video", "`\"mediaType\": \"pdf\"`"),
    // Validation (§3).
    DuplicateMessageId => ("duplicate-message-id", Envelope, Error, "Two messages share one `id`", "two messages with `\"id\": \"m1\"`"),
    MisplacedSegment => ("misplaced-segment", Envelope, Error, "A tool call outside an assistant message, a result outside a tool message, or a tool message holding anything else", "a `tool_call_request` in a user message"),
    UnpairedResult => ("unpaired-result", Envelope, Error, "A tool result that answers no request (by `callId` or by name)", "a `tool_call_result` of `search` with no earlier `search` call"),
    DuplicateCallId => ("duplicate-call-id", Envelope, Error, "Two requests with one `callId`, or one call answered twice", "two results with `\"callId\": \"c1\"`"),
    ConflictingVariable => ("conflicting-variable", Envelope, Error, "Two `static_var` of one name with different values", "`city` = Paris and `city` = Rome"),
    DuplicateTool => ("duplicate-tool", Envelope, Error, "Two tools declared with one name", "two `get_weather` items in `tool_overview`"),
    MediaUrlScheme => ("media-url-scheme", Envelope, Error, "A media URL that is not http, https or data: (images: data:image/…)", "`javascript:alert(1)` as an image URL"),
    ShareLink => ("share-link", Envelope, Error, "A share link (`#d=…`) that cannot be read: damaged, not base64url, not deflate, or too large", "`/doc#d=%%%`"),
    CharCountMismatch => ("char-count-mismatch", Envelope, Warning, "`charCount` differs from the content's number of Unicode scalar values", "`charCount: 10` for a 12-character text"),
    UndeclaredVariable => ("undeclared-variable", Envelope, Warning, "A `{{name}}` placeholder with no `static_var`; it is sent as written", "`Hello {{user}}` without a `user` variable"),
    UnusedVariable => ("unused-variable", Envelope, Warning, "A `static_var` no placeholder uses", "`static_var` `tone` and no `{{tone}}`"),
    SkillName => ("skill-name", Envelope, Warning, "A skill name that breaks the Agent Skills rule (1–64 of a-z 0-9 -, no leading, trailing or double hyphen)", "`\"name\": \"PDF Tools\"`"),
    SkillDescription => ("skill-description", Envelope, Warning, "A skill description that is empty or over 1024 characters", "`\"description\": \"\"`"),
    SkillBodyMissing => ("skill-body-missing", Envelope, Warning, "A skill marked `loaded` without a `body`", "`\"loaded\": true` and no `body`"),
    InvalidToolName => ("invalid-tool-name", Envelope, Warning, "A tool name OpenAI refuses (not `^[a-zA-Z0-9_-]{1,64}$`)", "`\"name\": \"get weather\"`"),
    ToolSchemaNotObject => ("tool-schema-not-object", Envelope, Warning, "A tool schema whose top-level `type` is not \"object\" (OpenAI refuses it)", "`\"schema\": {\"type\": \"string\"}`"),
    ArgumentsSchema => ("arguments-schema", Envelope, Warning, "Tool-call arguments that do not satisfy the tool's schema", "`{\"days\": \"three\"}` for `days: integer`"),
    ChecksSkipped => ("checks-skipped", Envelope, Warning, "Some argument checks were skipped: the document's checking budget was spent", "800 calls against a self-referencing schema"),
    ResultToolMismatch => ("result-tool-mismatch", Envelope, Warning, "A result that names another tool than the call it answers", "a `search` call answered by a result of `fetch`"),
    CallIdCollision => ("call-id-collision", Envelope, Warning, "A written `callId` equal to an id the export generates (`call_2`)", "`\"callId\": \"call_2\"` beside an id-less second call"),
    UnansweredCall => ("unanswered-call", Envelope, Warning, "A tool call not answered before the next non-tool message (OpenAI refuses it)", "a call followed directly by a user message"),
    ResultOutOfOrder => ("result-out-of-order", Envelope, Warning, "A result that does not directly follow the assistant message of its call (OpenAI refuses it)", "a user message between a call and its result"),
    // Importing a request body (OpenAI Chat, OpenAI Responses, Anthropic Messages).
    ImportFormat => ("import-format", Import, Error, "The body is none of the formats read: a Prompt Envelope, an OpenAI Chat, OpenAI Responses, Anthropic Messages, Gemini or Bedrock Converse request", "`{\"prompt\": \"hi\"}`"),
    ImportAmbiguousFormat => ("import-ambiguous-format", Import, Error, "The body mixes fields only one format has with fields only another has (OpenAI Chat, Anthropic Messages, Bedrock Converse); name the format", "a `tool` message beside a top-level `system`"),
    ImportUnknownRole => ("import-unknown-role", Import, Error, "A message role the request format does not define", "`\"role\": \"model\"` in an OpenAI Chat request"),
    ImportArguments => ("import-arguments", Import, Error, "A tool call's `arguments` string is not a JSON object", "`\"arguments\": \"[1, 2]\"`"),
    ImportBase64 => ("import-base64", Import, Error, "Base64 data (an image, a file) that does not decode", "`\"data\": \"not base64!\"`"),
    ImportInvalidEnvelope => ("import-invalid-envelope", Import, Error, "The envelope made from the request does not validate (a gap in the importer: please report it)", "a request the importer maps to two tools of one name"),
    UnreadableRecord => ("unreadable-record", Import, Error, "A line or record of a batch file or trace that its format does not allow (not an object, a batch line without `url` or `body`, a span without its ids)", "`{\"custom_id\": \"r1\", \"body\": {}}` without `url`"),
    // `pep lint` (crate feature `lint`): checks a team puts in CI.
    TokenBudget => ("token-budget", Lint, Error, "The exported request is over the environment's `max_tokens` (o200k_base)", "8,412 tokens with `max_tokens = 8000`"),
    SegmentBudget => ("segment-budget", Lint, Warning, "One segment sends more than its share (`segment_share`, default 0.5) of `max_tokens`", "a pasted 5,000-token log with `max_tokens = 8000`"),
    Secret => ("secret", Lint, Error, "An API key, token, private key or connection-string password in text the model receives (reported masked)", "`sk-proj-…` in a system prompt"),
    SensitiveWord => ("sensitive-word", Lint, Error, "A configured sensitive word in text the model receives", "`internal-only` with `sensitive_words = [\"internal-only\"]`"),
    RequiredVariable => ("required-variable", Lint, Error, "A variable the configuration requires has no `static_var`", "`required_variables = [\"jurisdiction\"]` and no such variable"),
    CacheVariable => ("cache-variable", Lint, Info, "The first substituted variable: the tokens after it are not reusable from the prefix cache when its value changes", "`{{today}}` in the first line of a 2,000-token system prompt"),
    CacheTimestamp => ("cache-timestamp", Lint, Warning, "A time of day in a system message: it changes per request and cuts the reusable prefix there", "`Current time: 2025-06-01T09:30:00Z` in the system prompt"),
    UnusedTool => ("unused-tool", Lint, Info, "A declared tool the conversation never calls", "`get_weather` declared and never called"),
    DuplicateText => ("duplicate-text", Lint, Warning, "The same long text (at least `duplicate_min_tokens`, default 100) is sent twice", "one log pasted into two user messages"),
    ContractField => ("contract-field", Lint, Error, "The output schema (`response_format`, `text.format`, `output_config.format`, `responseSchema`, …) requires a field the system and user text never names", "`confidence_score` required and never asked for"),
    PromptVersion => ("prompt-version", Lint, Error, "The document has no prompt version (`prompt.version`) and the configuration requires one (`require_prompt_version = true`)", "a prompt with no `\"prompt\": {\"version\": …}`"),
    VersionNotBumped => ("version-not-bumped", Lint, Error, "`pep diff`: the text sent changed but the prompt version did not", "a reworded system prompt still at `2.3.1`"),
    // SKILL.md files.
    SkillUtf8 => ("skill-utf8", Skill, Warning, "The SKILL.md is not valid UTF-8; invalid bytes were replaced", "a Latin-1 byte in the body"),
    SkillNoFrontMatter => ("skill-no-front-matter", Skill, Warning, "The SKILL.md has no YAML front matter", "a file starting with `# Title`"),
    SkillFrontMatter => ("skill-front-matter", Skill, Error, "Front matter that is unclosed, not YAML, not a mapping, or too large", "`---` never closed"),
    SkillFieldType => ("skill-field-type", Skill, Error, "A front-matter field of the wrong type (numbers and booleans where text belongs are warnings)", "`name: [a, b]`"),
    SkillFieldValue => ("skill-field-value", Skill, Warning, "A front-matter field that is missing, empty, or breaks the Agent Skills rules", "`name` differs from the folder"),
    SkillUnknownKey => ("skill-unknown-key", Skill, Warning, "A front-matter key the Agent Skills specification does not define", "`author: me`"),
    SkillDuplicateKey => ("skill-duplicate-key", Skill, Warning, "A metadata key given twice; the last value is kept", "`metadata: {a: 1, a: 2}`"),
    SkillDuplicateName => ("skill-duplicate-name", Skill, Warning, "Two skills read together share one `name`: the model sees two lines it cannot tell apart", "`pdf/SKILL.md` and `pdf-old/SKILL.md` both `name: pdf`"),
    // PromptPoet templates (rendered as prompt-poet 0.0.52 does).
    TemplateData => ("template-data", Template, Error, "The template data is not a JSON object", "`--data` holding `[1, 2]`"),
    TemplateSyntax => ("template-syntax", Template, Error, "The template is not valid Jinja2, or names a filter or test Jinja2 lacks", "`{% if x %}` never closed"),
    TemplateRender => ("template-render", Template, Error, "Rendering raised (an undefined value used, a Python error in an expression)", "`{{ user.name }}` without `user`"),
    TemplateYaml => ("template-yaml", Template, Error, "The rendered text is not YAML that prompt-poet reads", "data `Note: x` in an unquoted `content:`"),
    TemplatePart => ("template-part", Template, Error, "A part breaks prompt-poet's rules (missing or unknown field, content not a string, reserved data key)", "a part without `content`"),
    TemplateInexact => ("template-inexact", Template, Warning, "The template uses a construct pep renders differently from prompt-poet (or not at all)", "`{{ items|random }}`"),
    TemplateRole => ("template-role", Template, Warning, "A part's role or priority has no envelope equivalent; the envelope sends user / priority 0", "`role: developer`"),
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

/// The README's rule table (Markdown), generated from [`Rule::ALL`]; a test
/// keeps the README equal to it (`pep rules --format markdown` prints it).
pub fn rules_markdown() -> String {
    let mut out = String::from("| code | area | default | meaning | example |\n|---|---|---|---|---|\n");
    for &r in Rule::ALL {
        let cell = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            r.code(),
            r.area().as_str(),
            r.default_severity().as_str(),
            cell(r.summary()),
            cell(r.example())
        ));
    }
    out
}

/// A rule reads back from its code (the app's engine worker sends
/// diagnostics to the page as JSON); an unknown code is an error.
impl<'de> serde::Deserialize<'de> for Rule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = <String as serde::Deserialize>::deserialize(d)?;
        Rule::from_code(&code).ok_or_else(|| serde::de::Error::custom(format!("unknown rule code `{code}`")))
    }
}

impl Rule {
    /// The rule with this code.
    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.code() == code)
    }
}

/// One finding about a document.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The rule, serialised as its code.
    #[serde(rename = "code")]
    pub rule: Rule,
    /// Where: a JSON path such as `messages[3].segments[1].toolName`, or
    /// `line 3 column 7` for syntax errors; empty for the document as a whole.
    pub path: String,
    /// What is wrong, in a sentence without a trailing full stop.
    pub message: String,
    /// What to do about it, when there is something specific to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `rule` at its default severity.
    pub fn new(rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: rule.default_severity(), rule, path: path.into(), message: message.into(), hint: None }
    }

    /// The same diagnostic with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The same diagnostic at another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The stable code of its rule.
    pub fn code(&self) -> &'static str {
        self.rule.code()
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The index of the message this diagnostic points into, if any
    /// (`messages[3]…` → 3).
    pub fn message_index(&self) -> Option<usize> {
        let rest = self.path.strip_prefix("messages[")?;
        rest[..rest.find(']')?].parse().ok()
    }

    /// The index of the segment this diagnostic points into, if any
    /// (`messages[3].segments[1]…` → 1).
    pub fn segment_index(&self) -> Option<usize> {
        self.message_index()?;
        let rest = self.path.strip_prefix("messages[")?;
        let rest = rest[rest.find(']')? + 1..].strip_prefix(".segments[")?;
        rest[..rest.find(']')?].parse().ok()
    }
}

impl fmt::Display for Diagnostic {
    /// `PATH: message`, or just `message` when there is no path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Something a conversion could not carry over as it was (a field with no
/// place in the envelope, a setting with no equivalent at the target), said
/// with the JSON path it concerns. Never an error: the conversion went on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    /// A JSON path into the input (`messages[2].content[1].input_audio`), or
    /// into the envelope for an export (`params.top_k`); empty for the whole.
    pub path: String,
    /// What happened, in a sentence without a trailing full stop.
    pub message: String,
}

impl Notice {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Notice { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for Notice {
    /// `PATH: message`, or just `message` when there is no path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Diagnostics of one rule, for a list that shows 50,000 warnings as a few
/// groups: the rule, its severity, how many, and their indices in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub rule: Rule,
    /// The severity of the group's first diagnostic (a rule's diagnostics
    /// share one unless reconfigured).
    pub severity: Severity,
    /// Indices into the grouped slice, in order.
    pub items: Vec<usize>,
}

impl Group {
    pub fn count(&self) -> usize {
        self.items.len()
    }
}

/// `diagnostics` grouped by rule, the groups in the order their rule first
/// appears. Linear.
pub fn group_by_rule(diagnostics: &[Diagnostic]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut index: std::collections::HashMap<Rule, usize> = std::collections::HashMap::new();
    for (i, d) in diagnostics.iter().enumerate() {
        let g = *index.entry(d.rule).or_insert_with(|| {
            groups.push(Group { rule: d.rule, severity: d.severity, items: Vec::new() });
            groups.len() - 1
        });
        groups[g].items.push(i);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_message_index() {
        let d = Diagnostic::new(Rule::MissingField, "messages[12].segments[0].toolName", "missing field");
        assert_eq!(d.to_string(), "messages[12].segments[0].toolName: missing field");
        assert_eq!(d.message_index(), Some(12));
        assert_eq!(Diagnostic::new(Rule::UnusedVariable, "", "x").to_string(), "x");
        assert_eq!(Diagnostic::new(Rule::UnsupportedVersion, "version", "x").message_index(), None);
    }

    #[test]
    fn codes_are_unique_kebab_case_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for &r in Rule::ALL {
            let c = r.code();
            assert!(seen.insert(c), "duplicate code {c}");
            assert!(!c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'));
            assert!(!c.starts_with('-') && !c.ends_with('-') && !c.contains("--"), "{c}");
            assert_eq!(Rule::from_code(c), Some(r));
            assert!(!r.summary().is_empty() && !r.example().is_empty());
        }
        assert_eq!(Rule::from_code("nope"), None);
    }

    #[test]
    fn severity_comes_from_the_rule_and_serialises_with_the_code() {
        let d = Diagnostic::new(Rule::UndeclaredVariable, "p", "m");
        assert_eq!(d.severity, Severity::Warning);
        let v = serde_json::to_value(d.with_hint("h")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"severity": "warning", "code": "undeclared-variable", "path": "p", "message": "m", "hint": "h"})
        );
    }

    #[test]
    fn grouping_by_rule_keeps_first_appearance_order_and_counts() {
        let mut ds = vec![Diagnostic::new(Rule::UnusedVariable, "a", "x")];
        ds.extend((0..50_000).map(|i| Diagnostic::new(Rule::UndeclaredVariable, format!("p{i}"), "m")));
        ds.push(Diagnostic::new(Rule::UnusedVariable, "b", "y"));
        ds.push(Diagnostic::new(Rule::ChecksSkipped, "c", "z").with_severity(Severity::Info));
        let g = group_by_rule(&ds);
        let summary: Vec<(&str, usize, Severity)> = g.iter().map(|g| (g.rule.code(), g.count(), g.severity)).collect();
        assert_eq!(
            summary,
            [
                ("unused-variable", 2, Severity::Warning),
                ("undeclared-variable", 50_000, Severity::Warning),
                ("checks-skipped", 1, Severity::Info)
            ]
        );
        assert_eq!(g[0].items, [0, 50_001]);
        assert_eq!(g[1].items[..2], [1, 2]);
        assert!(group_by_rule(&[]).is_empty());
        let at = |p: &str| {
            let d = Diagnostic::new(Rule::MissingField, p, "m");
            (d.message_index(), d.segment_index())
        };
        assert_eq!(at("messages[3].segments[12].items[0]"), (Some(3), Some(12)));
        assert_eq!(at("messages[3].id"), (Some(3), None));
        assert_eq!(at("messages[x].segments[1]"), (None, None));
        assert_eq!(at("params.top_k"), (None, None));
    }

    #[test]
    fn diagnostics_and_notices_read_back_from_their_json() {
        let d = Diagnostic::new(Rule::ImportFormat, "", "none fits").with_hint("name it");
        let back: Diagnostic = serde_json::from_value(serde_json::to_value(&d).unwrap()).unwrap();
        assert_eq!(back, d);
        let plain: Diagnostic =
            serde_json::from_str(r#"{"severity":"error","code":"wrong-type","path":"a","message":"m"}"#).unwrap();
        assert_eq!(plain, Diagnostic::new(Rule::WrongType, "a", "m"));
        let unknown =
            serde_json::from_str::<Diagnostic>(r#"{"severity":"error","code":"no-such","path":"","message":"m"}"#);
        assert!(unknown.unwrap_err().to_string().contains("unknown rule code `no-such`"));
        let n = Notice::new("messages[0].name", "not represented");
        assert_eq!(serde_json::from_value::<Notice>(serde_json::to_value(&n).unwrap()).unwrap(), n);
    }
}
