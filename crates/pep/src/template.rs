//! `pep render` and `pep truncate --template`: PromptPoet templates rendered
//! as prompt-poet 0.0.52 renders them (`envelope::promptpoet`). `include`,
//! `import` and `extends` load from the template file's folder, as
//! prompt-poet's `FileSystemLoader` does ([`folder_loader`]).

use std::path::{Path, PathBuf};

use envelope::promptpoet::{self, RenderError};
use envelope::{export, tokens, Diagnostic};

use crate::{line, read, Done, Failure};

fn text_of(file: &str) -> Result<String, Failure> {
    let bytes = read(file)?;
    String::from_utf8(bytes).map_err(|e| {
        Failure::input(format!(
            "{file}: error: the file is not valid UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The data file as JSON (`{}` without one).
fn data_of(file: Option<&str>) -> Result<serde_json::Value, Failure> {
    let Some(file) = file else { return Ok(serde_json::json!({})) };
    let text = text_of(file)?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::input(format!("{file}: error: line {} column {}: not JSON: {e}", e.line(), e.column())))
}

fn warn(file: &str, warnings: &[Diagnostic]) -> Vec<String> {
    warnings.iter().map(|d| line(file, d)).collect()
}

fn render_failure(file: &str, e: &RenderError) -> Failure {
    let mut lines: Vec<String> = e.warnings.iter().map(|d| line(file, d)).collect();
    let d = e.diagnostic();
    lines.push(line(file, &d));
    if let Some(h) = &d.hint {
        lines.push(format!("  {h}"));
    }
    Failure { lines, code: 1 }
}

/// The folder prompt-poet loads a template file's includes from: the file's
/// own folder (`template_loaders.py` `_parse_template_path`: `"."` when the
/// path names none).
pub fn folder_of(template: &Path) -> PathBuf {
    match template.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A loader for [`promptpoet::render_with`] over a real folder: the name
/// (already resolved by the renderer: `/`-separated, no `..`) is read from
/// `folder` when it is a regular file inside it — a name whose real path
/// (symbolic links followed) leaves the folder, a directory, a file larger
/// than the renderer's limit or one that is not UTF-8 is not found.
pub fn folder_loader(folder: &Path) -> impl Fn(&str) -> Option<String> {
    let root = folder.canonicalize().ok();
    move |name: &str| {
        let root = root.as_ref()?;
        let mut path = root.clone();
        for piece in name.split('/') {
            if piece.is_empty() || piece == "." || piece == ".." || piece.contains(['\\', '\0']) {
                return None;
            }
            path.push(piece);
        }
        let real = path.canonicalize().ok()?;
        if !real.starts_with(root) {
            return None;
        }
        let meta = std::fs::metadata(&real).ok()?;
        if !meta.is_file() || meta.len() > promptpoet::jinja::MAX_SOURCE as u64 {
            return None;
        }
        String::from_utf8(std::fs::read(&real).ok()?).ok()
    }
}

/// The rendered template and the lines of its warnings.
fn rendered(template: &str, data: Option<&str>) -> Result<(promptpoet::Rendered, Vec<String>), Failure> {
    let text = text_of(template)?;
    let data = data_of(data)?;
    let loader = folder_loader(&folder_of(Path::new(template)));
    let r = promptpoet::render_with(&text, &data, &loader).map_err(|e| render_failure(template, &e))?;
    let lines = warn(template, &r.warnings);
    Ok((r, lines))
}

/// `pep render TEMPLATE [--data DATA] [--envelope]`.
pub fn render(template: &str, data: Option<&str>, as_envelope: bool) -> Result<Done, Failure> {
    let (r, mut stderr) = rendered(template, data)?;
    if !as_envelope {
        return Ok(Done::from(export::to_pretty(&r.to_json())).with_stderr(stderr));
    }
    let (env, warnings) = promptpoet::to_envelope(&r);
    stderr.extend(warn(template, &warnings));
    let text = export::to_pretty(&serde_json::to_value(&env).unwrap_or_default());
    // The envelope is read back as any document is: what it prints is valid.
    match envelope::parse(&text) {
        Ok(loaded) => {
            stderr.extend(warn(template, &loaded.warnings));
            Ok(Done::from(text).with_stderr(stderr))
        }
        Err(errors) => {
            stderr.extend(errors.iter().map(|d| line(template, d)));
            Err(Failure { lines: stderr, code: 1 })
        }
    }
}

/// `pep truncate --template TEMPLATE [--data DATA] --limit N [--step K]`.
pub fn truncate(template: &str, data: Option<&str>, limit: i64, step: i64) -> Result<Done, Failure> {
    let (r, stderr) = rendered(template, data)?;
    let counts: Vec<u64> = r.parts.iter().map(|p| tokens::count(&p.content) as u64).collect();
    let plan = promptpoet::plan_truncation(&r, &counts, limit, step).map_err(|e| {
        let mut lines = stderr.clone();
        lines.push(format!("{template}: error: {}: {e}", e.class()));
        Failure { lines, code: 2 }
    })?;
    Ok(Done::from(export::to_pretty(&promptpoet::truncation_report(&r, &counts, &plan))).with_stderr(stderr))
}
