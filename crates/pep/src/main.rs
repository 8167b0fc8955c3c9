//! `pep`: check, export and budget Prompt Envelope documents from the command line.
//!
//! Exit status: 0 success; 1 invalid input (every problem on stderr as
//! `FILE: error: PATH: message`); 2 a token limit that cannot be met (and
//! command-line usage errors, as clap reports them).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use envelope::{export, parse_bytes, skill, term, Diagnostic};

mod budget;

#[derive(Parser)]
#[command(name = "pep", version, about = "Validate, export and budget Prompt Envelope documents")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate envelope files: errors exit 1; warnings go to stderr.
    Validate {
        #[arg(required = true)]
        files: Vec<String>,
    },
    /// Print the request a document sends (pretty JSON on stdout).
    Export {
        #[arg(long, value_enum, default_value_t = Format::Openai)]
        format: Format,
        file: String,
    },
    /// Parse a SKILL.md file and print it as JSON.
    Skill { file: String },
    /// Count the o200k_base tokens of a file's raw UTF-8 text (`-` or nothing: stdin).
    Tokens { file: Option<String> },
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
        #[arg(long)]
        parts: bool,
        file: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Openai,
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

/// A command that succeeded: its stdout, and lines for stderr (warnings).
#[derive(Default)]
pub struct Done {
    pub stdout: String,
    pub stderr: Vec<String>,
}

impl From<String> for Done {
    fn from(stdout: String) -> Self {
        Done { stdout, stderr: Vec::new() }
    }
}

type Outcome = Result<Done, Failure>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Validate { files } => validate(&files),
        Command::Export { format: Format::Openai, file } => export_openai(&file),
        Command::Skill { file } => skill_json(&file),
        Command::Tokens { file } => budget::tokens(file.as_deref()).map(Done::from),
        Command::Truncate { limit, step, parts: true, file } => {
            budget::truncate_parts(&file, limit, step).map(Done::from)
        }
        Command::Truncate { limit, step, parts: false, file } => {
            budget::truncate_envelope(&file, limit.unwrap_or(-1), step.unwrap_or(1)).map(Done::from)
        }
    };
    let (stdout, stderr, code) = match outcome {
        Ok(Done { stdout, stderr }) => (stdout, stderr, ExitCode::SUCCESS),
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
        Ok(Done { stdout: String::new(), stderr: lines })
    }
}

fn warning_lines(file: &str, warnings: &[Diagnostic]) -> Vec<String> {
    warnings.iter().map(|d| line(file, d)).collect()
}

fn export_openai(file: &str) -> Outcome {
    let loaded = load(file)?;
    let done = Done { stdout: export::openai_json(&loaded.envelope), stderr: warning_lines(file, &loaded.warnings) };
    leak(loaded);
    Ok(done)
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
        Ok((skill, warnings)) => Ok(Done {
            stdout: export::to_pretty(&serde_json::to_value(&skill).unwrap_or_default()),
            stderr: warning_lines(file, &warnings),
        }),
        Err(errors) => Err(Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 }),
    }
}
