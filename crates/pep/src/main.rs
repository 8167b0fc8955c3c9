//! `pep`: check, export and budget Prompt Envelope documents from the command line.
//!
//! Exit status: 0 success; 1 invalid input (every problem on stderr as
//! `FILE: error: PATH: message`), including a template that prompt-poet would
//! refuse to render; 2 a token limit that cannot be met (and command-line
//! usage errors, as clap reports them).

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use envelope::{export, parse_bytes, skill, Diagnostic};

mod budget;
mod template;

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
        #[arg(long, conflicts_with = "template")]
        parts: bool,
        /// Render this PromptPoet template (YAML + Jinja2) and truncate its parts.
        #[arg(long, value_name = "TEMPLATE", conflicts_with = "file")]
        template: Option<String>,
        /// JSON data for `--template`.
        #[arg(long, value_name = "DATA", requires = "template")]
        data: Option<String>,
        #[arg(required_unless_present = "template")]
        file: Option<String>,
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

type Outcome = Result<String, Failure>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Validate { files } => validate(&files),
        Command::Export { format: Format::Openai, file } => export_openai(&file),
        Command::Skill { file } => skill_json(&file),
        Command::Tokens { file } => budget::tokens(file.as_deref()),
        Command::Truncate { limit, step, template: Some(template), data, .. } => {
            template::truncate(&template, data.as_deref(), limit.unwrap_or(-1), step.unwrap_or(1))
        }
        Command::Truncate { limit, step, parts: true, file: Some(file), .. } => {
            budget::truncate_parts(&file, limit, step)
        }
        Command::Truncate { limit, step, file: Some(file), .. } => {
            budget::truncate_envelope(&file, limit.unwrap_or(-1), step.unwrap_or(1))
        }
        Command::Truncate { .. } => Err(Failure::input("error: give a FILE or --template TEMPLATE")),
        Command::Render { data, envelope, template } => template::render(&template, data.as_deref(), envelope),
    };
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    match outcome {
        Ok(out) => {
            // A closed pipe (`pep export x | head`) is not an error worth a panic.
            let _ = stdout.write_all(out.as_bytes());
            ExitCode::SUCCESS
        }
        Err(Failure { lines, code }) => {
            for line in lines {
                let _ = writeln!(stderr, "{line}");
            }
            ExitCode::from(code)
        }
    }
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
            Ok(loaded) => lines.extend(loaded.warnings.iter().map(|d| line(file, d))),
            Err(f) => {
                failed = true;
                lines.extend(f.lines);
            }
        }
    }
    if failed {
        Err(Failure { lines, code: 1 })
    } else {
        // Warnings are not failures: print them to stderr and succeed.
        let mut stderr = std::io::stderr().lock();
        for l in lines {
            let _ = writeln!(stderr, "{l}");
        }
        Ok(String::new())
    }
}

fn print_warnings(file: &str, warnings: &[Diagnostic]) {
    let mut stderr = std::io::stderr().lock();
    for d in warnings {
        let _ = writeln!(stderr, "{}", line(file, d));
    }
}

fn export_openai(file: &str) -> Outcome {
    let loaded = load(file)?;
    print_warnings(file, &loaded.warnings);
    Ok(export::openai_json(&loaded.envelope))
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
        Ok((skill, warnings)) => {
            print_warnings(file, &warnings);
            Ok(export::to_pretty(&serde_json::to_value(&skill).unwrap_or_default()))
        }
        Err(errors) => Err(Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 1 }),
    }
}
