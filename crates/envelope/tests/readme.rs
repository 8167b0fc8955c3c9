//! The README's rule table is the one `Rule::ALL` produces (`pep rules --format
//! markdown` prints it), so the two never drift.

#[test]
fn readme_rule_table_equals_the_rule_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let begin = readme.find("<!-- rules:begin -->\n").expect("README has <!-- rules:begin -->")
        + "<!-- rules:begin -->\n".len();
    let end = readme.find("<!-- rules:end -->").expect("README has <!-- rules:end -->");
    assert_eq!(
        &readme[begin..end],
        envelope::diag::rules_markdown(),
        "the README's rule table is stale: replace it with `pep rules --format markdown`"
    );
}
