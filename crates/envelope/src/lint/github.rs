//! `--format github`: GitHub Actions workflow commands, one per finding:
//! `::error file=F,line=L,col=C,endLine=…,endColumn=…,title=CODE::message`
//! (`warning` for warnings, `notice` for infos). Escaped as the runner
//! unescapes: in the message `%`, CR and LF; in properties also `:` and `,`.

use super::FileReport;
use crate::diag::Severity;

/// Escapes a command's message.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for r in reports {
        for f in &r.findings {
            let d = &f.diagnostic;
            let cmd = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = vec![format!("file={}", escape_property(&r.file))];
            let l = &f.location;
            if let Some(line) = l.line {
                props.push(format!("line={line}"));
                if let Some(c) = l.column {
                    props.push(format!("col={c}"));
                }
                if let (Some(el), Some(ec)) = (l.end_line, l.end_column) {
                    props.push(format!("endLine={el}"));
                    props.push(format!("endColumn={ec}"));
                }
            }
            props.push(format!("title={}", escape_property(&format!("{} [{}]", d.severity.as_str(), d.code()))));
            let mut msg = if d.path.is_empty() { d.message.clone() } else { format!("{}: {}", d.path, d.message) };
            if let Some(h) = &d.hint {
                msg.push_str(&format!("\nhelp: {h}"));
            }
            out.push_str(&format!("::{cmd} {}::{}\n", props.join(","), escape_data(&msg)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("dir,x/a:b.json 5%"), "dir%2Cx/a%3Ab.json 5%25");
    }
}
