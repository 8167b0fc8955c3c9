//! `pep lint` and `pep rules`: the checks a team runs in CI, configured by
//! `pep.toml` (found upward from the current directory, or `--config FILE`).

use std::path::{Path, PathBuf};

use envelope::diag::{rules_markdown, Rule};
use envelope::lint::{self, Config, FileReport, Settings};

use crate::{read, Failure};

/// Output of `pep lint`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LintFormat {
    Text,
    Json,
    Sarif,
    Github,
}

/// Output of `pep rules`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum RulesFormat {
    Text,
    Markdown,
    Json,
}

/// The configuration file's name.
pub const CONFIG_FILE: &str = "pep.toml";

/// `pep.toml` in `dir` or the nearest directory above it.
pub fn find_config(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(CONFIG_FILE)).find(|p| p.is_file())
}

fn usage(line: String) -> Failure {
    Failure { lines: vec![line], code: 2 }
}

/// Reads and resolves the configuration for `env`.
pub fn settings(config: Option<&str>, env: Option<&str>, max_tokens: Option<u64>) -> Result<Settings, Failure> {
    let path = match config {
        Some(c) => Some(PathBuf::from(c)),
        None => std::env::current_dir().ok().and_then(|d| find_config(&d)),
    };
    let cfg = match &path {
        Some(p) => {
            let shown = p.display().to_string();
            let bytes = read(&shown).map_err(|f| usage(f.lines.join("\n")))?;
            let text = String::from_utf8(bytes).map_err(|_| usage(format!("{shown}: error: not valid UTF-8")))?;
            toml::from_str::<Config>(&text)
                .map_err(|e| usage(format!("{shown}: error: {}", e.to_string().trim_end())))?
        }
        None => Config::default(),
    };
    let mut s = cfg.settings(env).map_err(|e| {
        let file = path.as_ref().map_or("configuration".to_string(), |p| p.display().to_string());
        usage(format!("{file}: error: {e}"))
    })?;
    if max_tokens.is_some() {
        s.max_tokens = max_tokens;
    }
    Ok(s)
}

/// `pep lint FILE...`: the report on stdout; exit 1 when any finding is an error.
pub fn run(
    files: &[String],
    format: LintFormat,
    config: Option<&str>,
    env: Option<&str>,
    max_tokens: Option<u64>,
) -> Result<(String, bool), Failure> {
    let settings = settings(config, env, max_tokens)?;
    let reports: Vec<FileReport> = files
        .iter()
        .map(|file| match read(file) {
            Ok(bytes) => lint::lint(file, &bytes, &settings),
            Err(f) => unreadable(file, &f),
        })
        .collect();
    let failed = reports.iter().any(FileReport::has_errors);
    let out = match format {
        LintFormat::Text => lint::text::render(&reports),
        LintFormat::Json => envelope::export::to_pretty(&lint::json(&reports)),
        LintFormat::Sarif => envelope::export::to_pretty(&lint::sarif::render(&reports, env!("CARGO_PKG_VERSION"))),
        LintFormat::Github => lint::github::render(&reports),
    };
    Ok((out, failed))
}

fn unreadable(file: &str, f: &Failure) -> FileReport {
    let message = f.lines.join("; ");
    let message = message.strip_prefix(&format!("{file}: error: ")).unwrap_or(&message).to_string();
    let d = envelope::Diagnostic::new(Rule::UnreadableFile, "", message);
    FileReport {
        file: file.to_string(),
        findings: vec![lint::Finding { diagnostic: d, location: Default::default(), span: None }],
        tokens: None,
        source: None,
    }
}

/// `pep rules`: every rule code with its area, default severity and meaning.
pub fn rules(format: RulesFormat) -> String {
    match format {
        RulesFormat::Markdown => rules_markdown(),
        RulesFormat::Json => {
            let list: Vec<serde_json::Value> = Rule::ALL
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "code": r.code(),
                        "area": r.area().as_str(),
                        "default": r.default_severity().as_str(),
                        "summary": r.summary(),
                        "example": r.example(),
                    })
                })
                .collect();
            envelope::export::to_pretty(&serde_json::Value::from(list))
        }
        RulesFormat::Text => {
            let w = Rule::ALL.iter().map(|r| r.code().len()).max().unwrap_or(0);
            Rule::ALL
                .iter()
                .map(|r| {
                    format!(
                        "{:<w$}  {:<8} {:<7}  {}\n",
                        r.code(),
                        r.area().as_str(),
                        r.default_severity().as_str(),
                        r.summary()
                    )
                })
                .collect()
        }
    }
}
