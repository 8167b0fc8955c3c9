//! `response`: a model's output checked as `pep test` checks it — its text
//! taken from a provider response body (`envelope::output::take_text`), read
//! as JSON (`output::parse`), validated against the output schema with the
//! strict validator (`envelope::contract`, feature `contract`: the
//! jsonschema crate, which only this worker carries) and compared with a
//! golden output under the match rules (`envelope::golden::compare`). The
//! messages: [`envelope::engine::response`].

use envelope::engine::response::{
    Comparison, Difference, Parsed, Reply, Request, Rules, Validation, Violation, MAX_LISTED,
};
use envelope::{contract, golden, output};

/// Checks the output.
pub fn run(request: Request) -> Result<Reply, String> {
    let taken = output::take_text(&request.output);
    let value = output::parse(&taken.text);
    let parsed = match &value {
        Ok(v) => Parsed::Json { value: v.clone() },
        Err(e) => Parsed::Failed { message: format!("The output is not JSON: {e}") },
    };
    let validation = match (&request.schema, &value) {
        (None, _) => Validation::NoSchema,
        (Some(schema), value) => match contract::compile(schema) {
            Err(e) => Validation::SchemaError { message: e.to_string() },
            Ok(_) if value.is_err() => Validation::NotParsed,
            Ok(compiled) => {
                let found = value.as_ref().map(|v| compiled.check(v)).unwrap_or_default();
                let more = found.len().saturating_sub(MAX_LISTED);
                let violations = found
                    .into_iter()
                    .take(MAX_LISTED)
                    .map(|v| Violation { path: v.path, keyword: v.keyword, message: v.message })
                    .collect();
                Validation::Checked { violations, more }
            }
        },
    };
    let comparison = match (&request.golden, &value) {
        (None, _) => Comparison::NoGolden,
        (Some(text), value) => match output::parse(text) {
            Err(e) => Comparison::GoldenError { message: format!("The golden output is not JSON: {e}") },
            Ok(_) if value.is_err() => Comparison::NotParsed,
            Ok(expected) => {
                let rules = rules_of(&request.rules)?;
                let found = value.as_ref().map(|actual| golden::compare(&expected, actual, &rules)).unwrap_or_default();
                let more = found.len().saturating_sub(MAX_LISTED);
                let differences = found
                    .into_iter()
                    .take(MAX_LISTED)
                    .map(|f| Difference {
                        path: f.path,
                        kind: f.kind.as_str().to_string(),
                        expected: f.expected,
                        actual: f.actual,
                        message: f.message,
                    })
                    .collect();
                Comparison::Compared { differences, more }
            }
        },
    };
    Ok(Reply {
        text_from: taken.from.to_string(),
        model: taken.model,
        text: taken.text,
        parsed,
        validation,
        comparison,
    })
}

/// The message's rules as the comparison takes them; rules that are not
/// JSON Pointers or thresholds outside 0..=1 are the message's error.
fn rules_of(rules: &Rules) -> Result<golden::Rules, String> {
    let r = golden::Rules { exact: rules.exact.clone(), fuzzy: rules.fuzzy.clone(), ignore: rules.ignore.clone() };
    let problems = r.problems();
    if problems.is_empty() {
        Ok(r)
    } else {
        Err(format!("the match rules do not read: {}", problems.join("; ")))
    }
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
