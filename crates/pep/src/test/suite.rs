//! A golden suite on disk: `pep-test.toml`, the prompt, the schema,
//! `input_<case>.json` / `output_<case>.json` pairs and `metadata.json`.
//! Anything wrong here makes the suite broken (exit 2), with a message
//! saying which file and what.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use envelope::golden::Rules;
use envelope::import::{self, Format};
use envelope::lint::{Config as LintConfig, Settings};
use envelope::types::{Envelope, RequestFormat};
use envelope::{contract, output_schema, parse};
use serde::Deserialize;
use serde_json::Value;

/// The suite's configuration file.
pub const CONFIG: &str = "pep-test.toml";

/// `pep-test.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The prompt under test, relative to the suite: an envelope, a provider
    /// request (`.json`), or a PromptPoet template (`.yaml`, `.yml`, `.j2`, `.jinja`).
    pub prompt: String,
    /// The output's JSON Schema (default: the request's own structured-output setting).
    #[serde(default)]
    pub schema: Option<String>,
    /// The `pep.toml` whose lint settings apply (default: the nearest one
    /// above the suite, else the defaults).
    #[serde(default)]
    pub lint: Option<String>,
    /// The environment of that configuration (`[environments.NAME]`).
    #[serde(default)]
    pub env: Option<String>,
    /// The request format `--live` sends: `openai`, `responses`, `anthropic`
    /// or `gemini` (default: the prompt's own format, else `openai`).
    #[serde(default)]
    pub send: Option<String>,
    #[serde(default, rename = "match")]
    pub matching: Match,
}

/// `[match]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    #[serde(default)]
    pub exact: Vec<String>,
    #[serde(default)]
    pub fuzzy: BTreeMap<String, f64>,
    #[serde(default)]
    pub ignore: Vec<String>,
}

/// The prompt, ready to render per case.
pub enum Prompt {
    /// An envelope (or an imported request): the inputs set its variables.
    Envelope(Box<Envelope>),
    /// A PromptPoet template: the inputs are its data.
    Template(String),
}

/// One case: its input variables and golden output.
pub struct Case {
    pub name: String,
    pub input: serde_json::Map<String, Value>,
    pub golden: Value,
    /// The golden file, as shown (for annotations).
    pub golden_file: String,
}

/// The output schema and where it came from.
pub struct SchemaOf {
    pub schema: contract::Schema,
    pub from: String,
}

pub struct Suite {
    pub dir: PathBuf,
    /// The folder's name.
    pub name: String,
    pub prompt: Prompt,
    /// The prompt file, as shown.
    pub prompt_file: String,
    pub schema: Option<SchemaOf>,
    pub rules: Rules,
    pub settings: Settings,
    pub metadata: Option<Value>,
    pub send: RequestFormat,
    pub cases: Vec<Case>,
    /// Notes for stderr (a schema that cannot be checked, …).
    pub notes: Vec<String>,
}

/// A broken suite: the lines to print.
pub type Broken = Vec<String>;

fn shown(p: &Path) -> String {
    p.display().to_string()
}

fn read_text(p: &Path) -> Result<String, Broken> {
    let bytes = std::fs::read(p).map_err(|e| vec![format!("{}: error: cannot read: {e}", shown(p))])?;
    String::from_utf8(bytes).map_err(|e| {
        vec![format!(
            "{}: error: the file is not valid UTF-8 (invalid byte at offset {})",
            shown(p),
            e.utf8_error().valid_up_to()
        )]
    })
}

fn read_json(p: &Path) -> Result<Value, Broken> {
    let text = read_text(p)?;
    serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(&text))
        .map_err(|e| vec![format!("{}: error: line {} column {}: not JSON: {e}", shown(p), e.line(), e.column())])
}

/// The suites a command-line argument names: the folder itself when it has
/// a `pep-test.toml`, else each folder right under it that has one.
pub fn suites_in(arg: &str) -> Result<Vec<PathBuf>, Broken> {
    let dir = Path::new(arg);
    if !dir.is_dir() {
        return Err(vec![format!("{arg}: error: not a folder (give a suite folder holding {CONFIG})")]);
    }
    if dir.join(CONFIG).is_file() {
        return Ok(vec![dir.to_path_buf()]);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| vec![format!("{arg}: error: cannot list: {e}")])?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join(CONFIG).is_file())
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(vec![format!("{arg}: error: no {CONFIG} in this folder or the folders right under it")]);
    }
    Ok(found)
}

fn is_template(file: &str) -> bool {
    let lower = file.to_ascii_lowercase();
    [".yaml", ".yml", ".j2", ".jinja", ".jinja2"].iter().any(|e| lower.ends_with(e))
}

fn send_format(s: &str) -> Option<RequestFormat> {
    match s {
        "openai" => Some(RequestFormat::Openai),
        "responses" => Some(RequestFormat::Responses),
        "anthropic" => Some(RequestFormat::Anthropic),
        "gemini" => Some(RequestFormat::Gemini),
        "bedrock" => Some(RequestFormat::Bedrock),
        _ => None,
    }
}

/// Reads and checks a whole suite.
pub fn load(dir: &Path) -> Result<Suite, Broken> {
    let cfg_path = dir.join(CONFIG);
    let cfg_file = shown(&cfg_path);
    let cfg: Config = toml::from_str(&read_text(&cfg_path)?)
        .map_err(|e| vec![format!("{cfg_file}: error: {}", e.to_string().trim_end().replace('\n', " "))])?;
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| shown(dir));
    let mut notes = Vec::new();

    let rules = Rules {
        exact: cfg.matching.exact.clone(),
        fuzzy: cfg.matching.fuzzy.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        ignore: cfg.matching.ignore.clone(),
    };
    let problems = rules.problems();
    if !problems.is_empty() {
        return Err(problems.into_iter().map(|p| format!("{cfg_file}: error: [match] {p}")).collect());
    }

    // The prompt.
    let prompt_path = dir.join(&cfg.prompt);
    let prompt_file = shown(&prompt_path);
    let prompt = if is_template(&cfg.prompt) {
        Prompt::Template(read_text(&prompt_path)?)
    } else {
        let value = read_json(&prompt_path)?;
        let errs = |ds: &[envelope::Diagnostic]| -> Broken {
            ds.iter().map(|d| format!("{prompt_file}: error: {d} [{}]", d.code())).collect()
        };
        match import::detect(&value) {
            Ok(Format::Envelope) | Err(_) => {
                Prompt::Envelope(Box::new(parse::from_value(value).map_err(|e| errs(&e))?.envelope))
            }
            Ok(f) => Prompt::Envelope(Box::new(import::import_value(value, Some(f)).map_err(|e| errs(&e))?.envelope)),
        }
    };
    let send = match (&cfg.send, &prompt) {
        (Some(s), _) => send_format(s).ok_or_else(|| {
            vec![format!("{cfg_file}: error: send = {s:?}: give openai, responses, anthropic, gemini or bedrock")]
        })?,
        (None, Prompt::Envelope(e)) => e.source.unwrap_or(RequestFormat::Openai),
        (None, Prompt::Template(_)) => RequestFormat::Openai,
    };

    // Lint settings.
    let lint_path = match &cfg.lint {
        Some(l) => Some(dir.join(l)),
        None => dir.canonicalize().ok().and_then(|d| crate::lint::find_config(&d)),
    };
    let settings = match &lint_path {
        Some(p) => {
            let c: LintConfig = toml::from_str(&read_text(p)?)
                .map_err(|e| vec![format!("{}: error: {}", shown(p), e.to_string().trim_end().replace('\n', " "))])?;
            c.settings(cfg.env.as_deref()).map_err(|e| vec![format!("{}: error: {e}", shown(p))])?
        }
        None if cfg.env.is_some() => {
            return Err(vec![format!(
                "{cfg_file}: error: env is set but there is no lint configuration (lint = \"pep.toml\")"
            )]);
        }
        None => Settings::default(),
    };

    // The schema.
    let schema_value = match &cfg.schema {
        Some(s) => {
            let p = dir.join(s);
            Some((read_json(&p)?, shown(&p)))
        }
        None => match &prompt {
            Prompt::Envelope(e) => match output_schema::find(e) {
                Some(found) if found.openapi() => {
                    notes.push(format!(
                        "{prompt_file}: note: {}: Gemini's responseSchema is OpenAPI, not JSON Schema: outputs are not checked against it (give schema = \"schema.json\")",
                        found.at
                    ));
                    None
                }
                Some(found) => Some((found.schema, format!("{prompt_file} ({})", found.at))),
                None => None,
            },
            Prompt::Template(_) => None,
        },
    };
    let schema = match schema_value {
        Some((v, from)) => {
            let schema = contract::compile(&v).map_err(|e| vec![format!("{from}: error: {e}")])?;
            Some(SchemaOf { schema, from })
        }
        None => None,
    };

    // metadata.json (optional).
    let meta_path = dir.join("metadata.json");
    let metadata = if meta_path.is_file() { Some(read_json(&meta_path)?) } else { None };

    // The cases.
    let mut inputs = BTreeMap::new();
    let mut goldens = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| vec![format!("{}: error: cannot list: {e}", shown(dir))])?;
    for entry in entries.filter_map(Result::ok) {
        let file_name = entry.file_name();
        let Some(n) = file_name.to_str() else { continue };
        let Some(stem) = n.strip_suffix(".json") else { continue };
        if let Some(case) = stem.strip_prefix("input_") {
            inputs.insert(case.to_string(), entry.path());
        } else if let Some(case) = stem.strip_prefix("output_") {
            goldens.insert(case.to_string(), entry.path());
        }
    }
    let mut broken = Vec::new();
    for (case, p) in &goldens {
        if !inputs.contains_key(case) {
            broken.push(format!("{}: error: golden output of case {case:?} has no input_{case}.json", shown(p)));
        }
    }
    let mut cases = Vec::new();
    for (case, ip) in &inputs {
        let Some(gp) = goldens.get(case) else {
            broken.push(format!("{}: error: case {case:?} has no golden output_{case}.json", shown(ip)));
            continue;
        };
        let input = match read_json(ip) {
            Ok(Value::Object(m)) => m,
            Ok(v) => {
                broken.push(format!(
                    "{}: error: the input must be a JSON object of variables, not {}",
                    shown(ip),
                    envelope::golden::type_name(&v)
                ));
                continue;
            }
            Err(mut e) => {
                broken.append(&mut e);
                continue;
            }
        };
        let golden = match read_json(gp) {
            Ok(v) => v,
            Err(mut e) => {
                broken.append(&mut e);
                continue;
            }
        };
        if let Some(s) = &schema {
            for v in s.schema.check(&golden).into_iter().take(5) {
                let at = if v.path.is_empty() { "(the root)".to_string() } else { v.path.clone() };
                broken.push(format!(
                    "{}: error: the golden output does not satisfy the schema of {}: {at}: {} [{}]",
                    shown(gp),
                    s.from,
                    v.message,
                    v.keyword
                ));
            }
        }
        cases.push(Case { name: case.clone(), input, golden, golden_file: shown(gp) });
    }
    if cases.is_empty() && broken.is_empty() {
        broken.push(format!("{}: error: no cases (input_<case>.json with output_<case>.json)", shown(dir)));
    }
    if !broken.is_empty() {
        return Err(broken);
    }
    Ok(Suite {
        dir: dir.to_path_buf(),
        name,
        prompt,
        prompt_file,
        schema,
        rules,
        settings,
        metadata,
        send,
        cases,
        notes,
    })
}
