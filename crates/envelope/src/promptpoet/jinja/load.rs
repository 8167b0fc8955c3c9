//! Loading other templates: `include`, `import`, `from … import` and
//! `extends`, as prompt-poet 0.0.52 loads them — a plain
//! `jinja2.Environment(loader=FileSystemLoader(<the template's folder>))`
//! (`template_loaders.py` 43–58). Names are relative to that folder (not to
//! the template that names them), split on `/`; empty and `.` pieces are
//! dropped and a `..` piece is `TemplateNotFound` (Jinja2's
//! `split_template_path`), so a name never leaves the folder. Every loaded
//! template is read as the main one is: newlines normalised, one trailing
//! newline dropped, `~` and `%` rewritten, unknown filters and tests refused
//! (when it is reached, as Jinja2 compiles it then).
//!
//! The caller's loader is a borrowed closure, and minijinja's loader must be
//! `'static`; so the templates are fetched here, before and between renders:
//! every name written as a constant is fetched (recursively) before the
//! first render, and a name computed at render time stops the render, is
//! fetched, and the render starts again — at most [`MAX_ROUNDS`] times.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use minijinja::value::Value;
use minijinja::{Environment, Error, ErrorKind};

use super::errors::{error_of, with_column, TemplateError};
use super::{normalize_source, prepare_module, Usage, NO_CONTEXT};

/// The most distinct template files one render may load.
pub const MAX_TEMPLATES: usize = 256;
/// The most renders started again for a template name computed at render time.
pub const MAX_ROUNDS: usize = 32;
/// The most templates one render may run (`include`, `import`, `extends`
/// statements executed): templates that include the next one twice would
/// otherwise run 2^depth times within the instruction budget.
pub const MAX_LOADS: u64 = 100_000;
/// The largest template source accepted from a loader (bytes).
pub const MAX_SOURCE: usize = 4 << 20;

/// The name minijinja knows the main template by (a loader never answers it:
/// it is not a valid file name).
const MAIN: &str = "\u{0}main";
/// The detail of the error that stops a render to fetch a template.
const FETCH: &str = "\u{0}fetch";

/// A template name as Jinja2's `FileSystemLoader` resolves it: `/`-separated
/// pieces, empty and `.` pieces dropped; `None` when a piece is `..` or holds
/// a backslash (a separator on Windows, where Jinja2 refuses it too), a NUL,
/// or when nothing is left.
pub fn normalize_name(name: &str) -> Option<String> {
    let mut pieces = Vec::new();
    for piece in name.split('/') {
        if piece == ".." || piece.contains(['\\', '\0']) {
            return None;
        }
        if !piece.is_empty() && piece != "." {
            pieces.push(piece);
        }
    }
    (!pieces.is_empty()).then(|| pieces.join("/"))
}

/// The key of a name as the render asks for it: normalised, and still marked
/// [`NO_CONTEXT`] when imported without context (then its data names are hidden).
fn key_of(name: &str) -> Option<String> {
    match name.strip_prefix(NO_CONTEXT) {
        Some(rest) => normalize_name(rest).map(|k| format!("{NO_CONTEXT}{k}")),
        None => normalize_name(name),
    }
}

/// The file name of a key.
fn file_of(key: &str) -> &str {
    key.strip_prefix(NO_CONTEXT).unwrap_or(key)
}

#[derive(Clone, Debug)]
enum Entry {
    /// The prepared source.
    Source(String),
    Missing,
    /// It does not compile: raised when it is reached.
    Failed(TemplateError),
}

#[derive(Default)]
struct Shared {
    known: BTreeMap<String, Entry>,
    /// A name the render needs and nobody fetched yet.
    asked: Option<String>,
    /// A template that does not compile, reached by the render.
    failed: Option<String>,
    /// The last name not found (as written).
    missing: Option<String>,
}

/// A failure while rendering with loaded templates: the error and the
/// template it is in (`None`: the main template).
pub struct LoadError {
    pub error: TemplateError,
    pub template: Option<String>,
}

/// What the loaded templates use (for warnings), by template name.
pub type LoadedUsage = Vec<(String, Usage)>;

/// Checks what a template uses: filters and tests Jinja2 does not know are a
/// `TemplateAssertionError` when it compiles.
pub type Check<'a> = &'a dyn Fn(&Usage) -> Result<(), TemplateError>;

fn lock(shared: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Fetches `names` and the constant names they load, breadth first.
fn fetch(
    names: impl IntoIterator<Item = String>,
    loader: &dyn Fn(&str) -> Option<String>,
    shared: &Mutex<Shared>,
    check: Check<'_>,
    usages: &mut LoadedUsage,
) -> Result<(), Box<LoadError>> {
    let mut queue: VecDeque<String> = names.into_iter().filter_map(|n| key_of(&n)).collect();
    while let Some(key) = queue.pop_front() {
        if lock(shared).known.contains_key(&key) {
            continue;
        }
        if lock(shared).known.len() >= MAX_TEMPLATES {
            return Err(Box::new(LoadError {
                error: TemplateError {
                    class: "TemplateRuntimeError".into(),
                    message: format!(
                        "more than {MAX_TEMPLATES} templates loaded (pep's limit); '{}' not loaded",
                        file_of(&key)
                    ),
                    line: None,
                    column: None,
                    syntax: false,
                },
                template: None,
            }));
        }
        let entry = match loader(file_of(&key)) {
            None => Entry::Missing,
            Some(src) if src.len() > MAX_SOURCE => Entry::Failed(TemplateError {
                class: "TemplateRuntimeError".into(),
                message: format!("the template is larger than {} MB (pep's limit)", MAX_SOURCE >> 20),
                line: None,
                column: None,
                syntax: true,
            }),
            Some(src) => {
                let source = normalize_source(&src);
                let isolated = key.starts_with(NO_CONTEXT);
                let prepared = prepare_module(&source, isolated);
                match prepared.and_then(|(prepared, usage)| check(&usage).map(|()| (prepared, usage))) {
                    Ok((prepared, usage)) => {
                        queue.extend(usage.load_names.iter().filter_map(|n| key_of(n)));
                        if !isolated {
                            usages.push((key.clone(), usage));
                        }
                        Entry::Source(prepared)
                    }
                    Err(e) => Entry::Failed(e),
                }
            }
        };
        lock(shared).known.insert(key, entry);
    }
    Ok(())
}

/// Renders the prepared main template `source`, loading the templates it
/// names through `loader`; answers the text. What the loaded templates use
/// is added to `usages`, also when the render fails.
pub fn render_loading(
    base: &Environment<'static>,
    source: &str,
    usage: &Usage,
    ctx: Value,
    loader: &dyn Fn(&str) -> Option<String>,
    check: Check<'_>,
    usages: &mut LoadedUsage,
) -> Result<String, Box<LoadError>> {
    let shared = Arc::new(Mutex::new(Shared::default()));
    fetch(usage.load_names.iter().cloned(), loader, &shared, check, usages)?;
    let mut env = base.clone();
    let loads = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&loads);
    env.add_function(super::LOAD_FN_NAME, move |name: Value| count_load(&counter).map(|()| name));
    let counter = Arc::clone(&loads);
    env.add_function(super::NC_FN_NAME, move |name: Value| {
        count_load(&counter).map(|()| match name.as_str() {
            Some(s) => Value::from(format!("{NO_CONTEXT}{s}")),
            None => name,
        })
    });
    let from_loader = Arc::clone(&shared);
    env.set_loader(move |name| {
        let mut s = lock(&from_loader);
        let Some(key) = key_of(name) else {
            s.missing = Some(file_of(name).to_string());
            return Ok(None);
        };
        match s.known.get(&key) {
            Some(Entry::Source(src)) => Ok(Some(src.clone())),
            Some(Entry::Missing) => {
                s.missing = Some(file_of(name).to_string());
                Ok(None)
            }
            Some(Entry::Failed(_)) => {
                s.failed = Some(key);
                Err(Error::new(ErrorKind::InvalidOperation, FETCH))
            }
            None => {
                s.asked = Some(key);
                Err(Error::new(ErrorKind::InvalidOperation, FETCH))
            }
        }
    });
    let tmpl = match env.template_from_named_str(MAIN, source) {
        Ok(t) => t,
        Err(e) => {
            let error = with_column(error_of(&e, true), &e, source);
            return Err(Box::new(LoadError { error, template: None }));
        }
    };
    let mut rounds = 0;
    loop {
        let outer = match tmpl.render(ctx.clone()) {
            Ok(text) => return Ok(text),
            Err(e) => e,
        };
        let err = innermost(&outer);
        let (asked, failed, missing) = {
            let mut s = lock(&shared);
            (s.asked.take(), s.failed.take(), s.missing.take())
        };
        if let Some(key) = failed {
            let error = match lock(&shared).known.get(&key) {
                Some(Entry::Failed(e)) => e.clone(),
                _ => error_of(err, true),
            };
            return Err(Box::new(LoadError { error, template: Some(file_of(&key).to_string()) }));
        }
        if let Some(key) = asked {
            rounds += 1;
            if rounds > MAX_ROUNDS {
                let error = TemplateError {
                    class: "TemplateRuntimeError".into(),
                    message: format!(
                        "more than {MAX_ROUNDS} template names computed while rendering (pep's limit); '{}' not loaded",
                        file_of(&key)
                    ),
                    line: err.line(),
                    column: None,
                    syntax: false,
                };
                return Err(Box::new(LoadError { error, template: template_of(err) }));
            }
            fetch([key], loader, &shared, check, usages)?;
            continue;
        }
        let template = template_of(err);
        let mut error = error_of(err, false);
        if err.kind() == ErrorKind::TemplateNotFound {
            error.class = "TemplateNotFound".into();
            let name = missing.unwrap_or_default();
            error.message = format!("'{name}' not found in the template's folder");
        }
        if err.detail().is_some_and(|d| d.contains("recursion limit exceeded")) {
            error.class = "RecursionError".into();
            error.message = "templates include each other too deeply (pep's limit: minijinja's recursion limit)".into();
        }
        let error = match err.name() {
            None | Some(MAIN) => with_column(error, err, source),
            Some(name) => match key_of(name).and_then(|k| match lock(&shared).known.get(&k) {
                Some(Entry::Source(src)) => Some(with_column(error.clone(), err, src)),
                _ => None,
            }) {
                Some(e) => e,
                None => error,
            },
        };
        return Err(Box::new(LoadError { error, template }));
    }
}

/// One more template run; an error past [`MAX_LOADS`].
fn count_load(counter: &AtomicU64) -> Result<(), Error> {
    if counter.fetch_add(1, Ordering::Relaxed) >= MAX_LOADS {
        Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "TemplateRuntimeError: more than {MAX_LOADS} templates run by include, import or extends (pep's limit)"
            ),
        ))
    } else {
        Ok(())
    }
}

/// The error an include's error wraps (minijinja wraps every error of an
/// included or imported template in a `BadInclude`).
fn innermost(e: &Error) -> &Error {
    let mut cur = e;
    while cur.kind() == ErrorKind::BadInclude {
        match std::error::Error::source(cur).and_then(|s| s.downcast_ref::<Error>()) {
            Some(next) => cur = next,
            None => break,
        }
    }
    cur
}

/// The template an error is in (`None`: the main one).
fn template_of(e: &Error) -> Option<String> {
    match e.name() {
        None | Some(MAIN) => None,
        Some(n) => Some(file_of(&key_of(n).unwrap_or_else(|| n.to_string())).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_name;

    #[test]
    fn names_stay_in_the_folder() {
        assert_eq!(normalize_name("a/b.yml").as_deref(), Some("a/b.yml"));
        assert_eq!(normalize_name("./a//b.yml").as_deref(), Some("a/b.yml"));
        assert_eq!(normalize_name("/etc/passwd").as_deref(), Some("etc/passwd"));
        assert_eq!(normalize_name("../x"), None);
        assert_eq!(normalize_name("a/../../x"), None);
        assert_eq!(normalize_name("a\\..\\x"), None);
        assert_eq!(normalize_name(""), None);
        assert_eq!(normalize_name("./"), None);
    }
}
