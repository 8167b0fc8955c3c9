//! `pep`: check, import, export and budget Prompt Envelope documents from the command line.
//!
//! Exit status: 0 success; 1 invalid input (every problem on stderr as
//! `FILE: error: PATH: message`), including a template that prompt-poet would
//! refuse to render; 2 a token limit that cannot be met (and command-line
//! usage errors, as clap reports them). What an import or export could not
//! carry over is a note on stderr (`FILE: note: PATH: message`), never a
//! failure. Reports with a verdict print on stdout and exit 1 for "no":
//! `pep lint` (an error-severity finding), `pep diff` (the documents differ;
//! 2 when one cannot be read), `pep export --check` (the export differs from
//! the golden file).
//!
//! Files of many calls (OTLP/JSON traces and logs, batch files, JSON Lines of
//! request bodies or envelopes): `pep import` and `pep export` write one
//! call as they write a single document, several as JSON Lines (exit 0 when
//! at least one call was written and none failed, else 1; calls recorded
//! without their messages are skipped with a note); `pep validate`, `pep
//! lint` and `pep calls` report per call (see `many/`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use envelope::export::{render, Target};
use envelope::import::{self, Format};
use envelope::{export, parse, parse_bytes, skill, term, Diagnostic, Notice};

mod budget;
mod calls;
mod diff;
mod lint;
mod live;
mod many;
mod skills;
mod template;
mod test;

#[derive(Parser)]
#[command(name = "pep", version, about = "Validate, import, export and budget Prompt Envelope documents")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate envelope files: errors exit 1; warnings go to stderr. Files
    /// of many calls (traces, batch files, JSON Lines) are validated per call.
    Validate {
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        window: calls::Window,
    },
    /// Read an OpenAI Chat, OpenAI Responses, Anthropic Messages, Gemini
    /// generateContent or Bedrock Converse request body and print it as an
    /// envelope (pretty JSON on stdout; what has no place in the envelope as
    /// notes on stderr).
    Import {
        /// The request's format; `auto` detects it.
        #[arg(long, value_enum, default_value_t = ImportFrom::Auto)]
        from: ImportFrom,
        /// The model, for a body that does not name it (Gemini and Bedrock
        /// take it in the URL); a body's own `model` wins.
        #[arg(long)]
        model: Option<String>,
        /// A request body or envelope; or files of many calls (OTLP/JSON
        /// traces and logs given together, OpenAI or Anthropic batch files,
        /// JSON Lines of bodies or envelopes): several calls print as JSON
        /// Lines, one envelope a line, in start order.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        window: calls::Window,
    },
    /// Print the request a document sends: pretty JSON, or a cURL command.
    /// FILE is an envelope or a request body of any of the five formats.
    Export {
        #[arg(long, value_enum, default_value_t = ExportFormat::Openai)]
        format: ExportFormat,
        /// Compare the export with this golden file instead of printing it:
        /// exit 0 when equal, else 1 with the differing fields.
        #[arg(long, value_name = "GOLDEN")]
        check: Option<String>,
        /// With --check: rewrite GOLDEN with the export.
        #[arg(long, requires = "check")]
        update: bool,
        /// Write a batch file to replay the calls: an OpenAI Batch input
        /// file (--format openai or responses; custom_id from the call's
        /// custom_id or trace and span ids) or an Anthropic Message Batches
        /// request (--format anthropic).
        #[arg(long, conflicts_with = "check")]
        batch: bool,
        /// An envelope or request body; or files of many calls (as for
        /// import): several calls print as JSON Lines, one request a line,
        /// in start order. Exit 0 when at least one call was written and
        /// none failed (calls recorded without their messages are skipped
        /// with a note), else 1.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        window: calls::Window,
    },
    /// Compare two versions of a document: messages and segments added, removed
    /// and changed, token counts, the cache break point, and
    /// `version-not-bumped` (the prompt sent changed, its `prompt.version` did
    /// not). Exit 0 when equal, 1 when different, 2 on unreadable or invalid input.
    Diff {
        a: String,
        b: String,
        #[arg(long, value_enum, default_value_t = diff::DiffFormat::Text)]
        format: diff::DiffFormat,
        /// A CI gate on prompt versions: exit 1 only for `version-not-bumped`
        /// (0 when the documents differ and B has a new version), and a
        /// changed prompt with no version on either side is not bumped either.
        #[arg(long)]
        check_version: bool,
    },
    /// Parse a SKILL.md file and print it as JSON. Several files, a folder
    /// (every SKILL.md under it) or --format: what the model sees of each
    /// skill before it is loaded (L1, its line of the listing) and after (L2,
    /// its body), in o200k_base tokens, with each file's warnings on stderr.
    Skill {
        #[arg(required = true)]
        files: Vec<String>,
        #[arg(long, value_enum)]
        format: Option<skills::SkillsFormat>,
    },
    /// Count the o200k_base tokens of a file's raw UTF-8 text (`-` or nothing: stdin).
    Tokens { file: Option<String> },
    /// Check documents as CI would: validation plus budget, secrets, variables,
    /// cache, tools and waste rules (configured by pep.toml). Exit 1 when any
    /// finding is an error. Files of many calls (traces, batch files, JSON
    /// Lines) are checked per call, each finding located by file, line, trace
    /// and span ids (or custom_id), then by message and segment.
    Lint {
        #[arg(required = true)]
        files: Vec<String>,
        #[arg(long, value_enum, default_value_t = lint::LintFormat::Text)]
        format: lint::LintFormat,
        /// The configuration file (default: pep.toml here or in a parent directory).
        #[arg(long)]
        config: Option<String>,
        /// The environment whose settings apply ([environments.NAME] in the configuration).
        #[arg(long)]
        env: Option<String>,
        /// Token budget of the request, overriding the configuration's max_tokens.
        #[arg(long)]
        max_tokens: Option<u64>,
        #[command(flatten)]
        window: calls::Window,
    },
    /// Golden-dataset tests: render each case's prompt (and lint it), take
    /// the model's output (--outputs DIR, or --live), parse it as strict JSON,
    /// check it against the output schema and compare it field by field with
    /// the golden output. Exit 0 all pass, 1 any fails, 2 a broken suite.
    Test(test::TestArgs),
    /// List the calls of trace files (OTLP/JSON traces and logs), batch files
    /// and JSON Lines of bodies: start (UTC), trace, provider, model,
    /// messages, input tokens as recorded and as counted (o200k_base),
    /// duration, lint findings, the last user text. Exit 1 when a line or
    /// file could not be read (the other calls are still listed).
    Calls(many::CallsArgs),
    /// List every rule code: area, default severity, meaning.
    Rules {
        #[arg(long, value_enum, default_value_t = lint::RulesFormat::Text)]
        format: lint::RulesFormat,
    },
    /// Plan PromptPoet's cache-aware truncation of a document to a token limit.
    Truncate {
        /// Token limit; -1 means no limit.
        #[arg(long, allow_negative_numbers = true, required_unless_present = "parts")]
        limit: Option<i64>,
        /// Truncation step (PromptPoet's `truncation_step`); default 1, or with
        /// `--parts` the file's.
        #[arg(long, allow_negative_numbers = true)]
        step: Option<i64>,
        /// Read FILE in PromptPoet's shape (`token_limit`, `truncation_step`, `parts`
        /// with token counts) instead of an envelope.
        #[arg(long, conflicts_with = "template")]
        parts: bool,
        /// Print the OpenAI Chat request of the kept parts (what the app's
        /// export "After truncation" copies) instead of the report.
        #[arg(long, conflicts_with_all = ["parts", "template"])]
        request: bool,
        /// Render this PromptPoet template (YAML + Jinja2) and truncate its parts.
        #[arg(long, value_name = "TEMPLATE", conflicts_with = "file")]
        template: Option<String>,
        /// JSON data for `--template`.
        #[arg(long, value_name = "DATA", requires = "template")]
        data: Option<String>,
        #[arg(required_unless_present = "template")]
        file: Option<String>,
    },
    /// Print a share link holding the whole document in its fragment
    /// (`BASE/doc#d=…`: raw DEFLATE, base64url; browsers never send the
    /// fragment to a server). With --decode, FILE is a link (or its
    /// fragment) and the document it holds is printed.
    Share {
        /// The app's address the link opens (the link is BASE/doc#d=…).
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        base: String,
        /// Read a link back to its document.
        #[arg(long)]
        decode: bool,
        file: String,
    },
    /// Render a PromptPoet template (YAML + Jinja2) as prompt-poet 0.0.52 does:
    /// `{"parts","string","messages"}`, or with `--envelope` an envelope.
    Render {
        /// JSON object with the template's data (default `{}`).
        #[arg(long, value_name = "DATA")]
        data: Option<String>,
        /// Print an envelope (one message per part) instead of PromptPoet's shapes.
        #[arg(long)]
        envelope: bool,
        template: String,
    },
}

/// `pep import --from`.
#[derive(Clone, Copy, ValueEnum)]
enum ImportFrom {
    Auto,
    /// OpenAI Chat Completions.
    Openai,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini generateContent (the model is not in the body: see --model).
    Gemini,
    /// Amazon Bedrock Converse (the model is not in the body: see --model).
    Bedrock,
}

impl ImportFrom {
    fn format(self) -> Option<Format> {
        match self {
            ImportFrom::Auto => None,
            ImportFrom::Openai => Some(Format::OpenaiChat),
            ImportFrom::Responses => Some(Format::OpenaiResponses),
            ImportFrom::Anthropic => Some(Format::Anthropic),
            ImportFrom::Gemini => Some(Format::Gemini),
            ImportFrom::Bedrock => Some(Format::Bedrock),
        }
    }
}

/// `pep export --format`.
#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    /// OpenAI Chat Completions (PROTOCOL §4).
    Openai,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages.
    Anthropic,
    /// A cURL command posting the OpenAI Chat request (key from $OPENAI_API_KEY).
    CurlOpenai,
    /// A cURL command posting the Anthropic request (key from $ANTHROPIC_API_KEY).
    CurlAnthropic,
    /// Gemini generateContent (the body; the model goes in the URL).
    Gemini,
    /// Amazon Bedrock Converse (the body; the model goes in the URL).
    Bedrock,
    /// A cURL command posting the Gemini request to the envelope's model
    /// (key from $GEMINI_API_KEY).
    CurlGemini,
}

impl ExportFormat {
    fn target(self) -> Target {
        match self {
            ExportFormat::Openai => Target::OpenaiChat,
            ExportFormat::Responses => Target::OpenaiResponses,
            ExportFormat::Anthropic => Target::Anthropic,
            ExportFormat::CurlOpenai => Target::CurlOpenai,
            ExportFormat::CurlAnthropic => Target::CurlAnthropic,
            ExportFormat::Gemini => Target::Gemini,
            ExportFormat::Bedrock => Target::Bedrock,
            ExportFormat::CurlGemini => Target::CurlGemini,
        }
    }
}

/// A failed command: what to print on stderr and the exit status.
pub struct Failure {
    pub lines: Vec<String>,
    pub code: u8,
}

impl Failure {
    pub fn input(line: impl Into<String>) -> Self {
        Failure { lines: vec![line.into()], code: 1 }
    }
}

/// A command that ran: its stdout, lines for stderr (warnings, notes), and
/// its exit status (0, or 1 for a report whose verdict is "no").
#[derive(Default)]
pub struct Done {
    pub stdout: String,
    pub stderr: Vec<String>,
    pub code: u8,
}

impl From<String> for Done {
    fn from(stdout: String) -> Self {
        Done { stdout, ..Done::default() }
    }
}

impl Done {
    /// The same, with `lines` for stderr before its own.
    pub fn with_stderr(mut self, mut lines: Vec<String>) -> Self {
        lines.append(&mut self.stderr);
        self.stderr = lines;
        self
    }
}

type Outcome = Result<Done, Failure>;

/// A report and its verdict as an outcome: true (errors found, documents
/// differ) exits 1 with the report on stdout.
fn report(r: Result<(Done, bool), Failure>) -> Outcome {
    r.map(|(done, no)| Done { code: u8::from(no), ..done })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Validate { files, window } => many::validate(&files, window),
        Command::Import { from, model, files, window } => {
            many::import(&files, from.format(), model.as_deref(), window, |file| {
                import_file(file, from.format(), model.as_deref())
            })
        }
        Command::Export { format, files, check: None, batch, window, .. } => {
            many::export(&files, format.target(), batch, window, |file| export_file(file, format.target()))
        }
        Command::Export { format, files, check: Some(golden), update, .. } => {
            report(many::check_single(&files).and_then(|file| export_file(file, format.target())).and_then(|out| {
                let (checked, no) = diff::check_golden(&out.stdout, &golden, update)?;
                Ok((checked.with_stderr(out.stderr), no))
            }))
        }
        Command::Diff { a, b, format, check_version } => report(
            diff::run(&a, &b, format, check_version)
                .map(|(out, no)| (Done::from(out), no))
                .map_err(|f| Failure { code: 2, ..f }),
        ),
        Command::Skill { files, format: None } if files.len() == 1 && !Path::new(&files[0]).is_dir() => {
            skill_json(&files[0])
        }
        Command::Skill { files, format } => skills::run(&files, format.unwrap_or(skills::SkillsFormat::Table)),
        Command::Tokens { file } => budget::tokens(file.as_deref()).map(Done::from),
        Command::Lint { files, format, config, env, max_tokens, window } => {
            many::lint(&files, format, config.as_deref(), env.as_deref(), max_tokens, window)
        }
        Command::Calls(args) => many::calls(args),
        Command::Test(args) => test::run(args),
        Command::Rules { format } => Ok(Done::from(lint::rules(format))),
        Command::Truncate { limit, step, template: Some(template), data, .. } => {
            template::truncate(&template, data.as_deref(), limit.unwrap_or(-1), step.unwrap_or(1))
        }
        Command::Truncate { limit, step, parts: true, file: Some(file), .. } => {
            budget::truncate_parts(&file, limit, step).map(Done::from)
        }
        Command::Truncate { limit, step, request, file: Some(file), .. } => {
            budget::truncate_envelope(&file, limit.unwrap_or(-1), step.unwrap_or(1), request).map(Done::from)
        }
        Command::Truncate { .. } => Err(Failure::input("error: give a FILE or --template TEMPLATE")),
        Command::Share { base, decode: false, file } => share(&file, &base),
        Command::Share { decode: true, file, .. } => unshare(&file),
        Command::Render { data, envelope, template } => template::render(&template, data.as_deref(), envelope),
    };
    let (stdout, stderr, code) = match outcome {
        Ok(Done { stdout, stderr, code }) => (stdout, stderr, ExitCode::from(code)),
        Err(Failure { lines, code }) => (String::new(), lines, ExitCode::from(code)),
    };
    emit(&stdout, &stderr);
    code
}

/// The only place output is written. What a document holds reaches both
/// streams (names, kinds, field names, URLs in diagnostics; strings in JSON),
/// so nothing is written raw: each stderr line is escaped whole (line breaks
/// included), stdout keeps its line feeds and tabs (`envelope::term`). JSON
/// on stdout comes from `envelope::jsontext`, which already writes such
/// characters as `\u` escapes, so this changes nothing there.
fn emit(stdout: &str, stderr: &[String]) {
    // A closed pipe (`pep export x | head`) is not an error worth a panic.
    let mut err = std::io::stderr().lock();
    for line in stderr {
        let _ = writeln!(err, "{}", term::escape_line(line));
    }
    let _ = err.flush();
    let _ = std::io::stdout().lock().write_all(term::escape_text(stdout).as_bytes());
}

/// Leaves `value` to the end of the process instead of freeing it: `pep`
/// exits right after printing, and freeing a large document (hundreds of
/// thousands of small allocations) took a quarter of its time.
pub fn leak<T>(value: T) {
    std::mem::forget(value);
}

/// The bytes of a file, or of stdin for `-`.
pub fn read(file: &str) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    if file == "-" {
        // What telling the input's shape already read of stdin.
        if let Some(b) = calls::take_stdin() {
            return Ok(b);
        }
    }
    let result = if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut bytes)).map(|_| ())
    };
    result.map(|_| bytes).map_err(|e| Failure::input(format!("{file}: error: cannot read: {e}")))
}

/// `FILE: error: PATH: message [code]` (or `FILE: warning: …`).
pub fn line(file: &str, d: &Diagnostic) -> String {
    format!("{file}: {}: {d} [{}]", d.severity.as_str(), d.code())
}

/// Reads and validates an envelope; errors become a failure with one line each.
pub fn load(file: &str) -> Result<envelope::Loaded, Failure> {
    let bytes = read(file)?;
    parse_bytes(&bytes).map_err(|errors| Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 })
}

fn validate(files: &[String]) -> Outcome {
    let mut lines = Vec::new();
    let mut failed = false;
    for file in files {
        match load(file) {
            Ok(loaded) => {
                lines.extend(loaded.warnings.iter().map(|d| line(file, d)));
                leak(loaded);
            }
            Err(f) => {
                failed = true;
                lines.extend(f.lines);
            }
        }
    }
    if failed {
        Err(Failure { lines, code: 1 })
    } else {
        // Warnings are not failures: they go to stderr and the command succeeds.
        Ok(Done { stderr: lines, ..Done::default() })
    }
}

/// `pep share FILE`: the file's exact text (validated first) as a link.
fn share(file: &str, base: &str) -> Outcome {
    let bytes = read(file)?;
    let loaded = parse_bytes(&bytes)
        .map_err(|errors| Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 })?;
    let text = String::from_utf8_lossy(&bytes);
    let fragment = envelope::share::encode(&text).map_err(|d| Failure::input(line(file, &d)))?;
    let base = format!("{}/doc", base.trim_end_matches('/'));
    Ok(Done {
        stdout: envelope::share::link(&base, &fragment) + "\n",
        stderr: warning_lines(file, &loaded.warnings),
        code: 0,
    })
}

/// `pep share --decode LINK`: the document a link holds.
fn unshare(link: &str) -> Outcome {
    let fragment = link.split_once('#').map_or(link, |(_, f)| f);
    match envelope::share::decode(fragment) {
        Ok(Some(text)) => Ok(Done::from(if text.ends_with('\n') { text } else { text + "\n" })),
        Ok(None) => {
            Err(Failure::input("link: error: #d: the link holds no document (no d= in its fragment) [share-link]"))
        }
        Err(d) => Err(Failure::input(line("link", &d))),
    }
}

fn warning_lines(file: &str, warnings: &[Diagnostic]) -> Vec<String> {
    warnings.iter().map(|d| line(file, d)).collect()
}

/// `FILE: note: PATH: message`.
pub fn note_line(file: &str, n: &Notice) -> String {
    format!("{file}: note: {n}")
}

fn note_lines(file: &str, notices: &[Notice]) -> Vec<String> {
    notices.iter().map(|n| note_line(file, n)).collect()
}

fn failure(file: &str, errors: &[Diagnostic]) -> Failure {
    Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 }
}

fn import_file(file: &str, from: Option<Format>, model: Option<&str>) -> Outcome {
    let bytes = read(file)?;
    let text = parse::utf8(&bytes).map_err(|e| failure(file, &[e]))?;
    let value = parse::json(text).map_err(|e| failure(file, &e))?;
    let imported = import::import_with(value, from, model).map_err(|e| failure(file, &e))?;
    let done = Done::from(export::to_pretty(&imported.raw)).with_stderr(note_lines(file, &imported.notices));
    leak(imported);
    Ok(done)
}

/// Reads an envelope or a request body: a body that is recognisably a
/// request is imported (its notices as lines for stderr); anything else is
/// read as an envelope, with the envelope's errors and warnings.
fn load_any(file: &str) -> Result<(envelope::Envelope, Vec<String>), Failure> {
    let bytes = read(file)?;
    let text = parse::utf8(&bytes).map_err(|e| failure(file, &[e]))?;
    let value = parse::json(text).map_err(|e| failure(file, &e))?;
    match import::detect(&value) {
        Ok(format) if format != Format::Envelope => {
            let imported = import::import_value(value, Some(format)).map_err(|e| failure(file, &e))?;
            Ok((imported.envelope, note_lines(file, &imported.notices)))
        }
        _ => {
            let loaded = parse::from_value(value).map_err(|e| failure(file, &e))?;
            Ok((loaded.envelope, warning_lines(file, &loaded.warnings)))
        }
    }
}

fn export_file(file: &str, target: Target) -> Outcome {
    let (envelope, mut stderr) = load_any(file)?;
    let exported = render(&envelope, target);
    stderr.extend(note_lines(file, &exported.notices));
    leak(envelope);
    Ok(Done::from(exported.text).with_stderr(stderr))
}

fn skill_json(file: &str) -> Outcome {
    let bytes = read(file)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        Failure::input(format!(
            "{file}: error: the file is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    let folder = Path::new(file).parent().and_then(Path::file_name).and_then(|n| n.to_str());
    match skill::parse_skill(text, folder) {
        Ok((skill, warnings)) => Ok(Done::from(export::to_pretty(&serde_json::to_value(&skill).unwrap_or_default()))
            .with_stderr(warning_lines(file, &warnings))),
        Err(errors) => Err(Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 }),
    }
}
