//! The language of a text, for the `lang` attribute a screen reader picks its
//! voice by. The protocol has no field for a document's language, so the app
//! marks only what it can tell from the script alone: a text whose letters are
//! mostly Chinese characters is `zh`, one with kana `ja`, one with Hangul `ko`
//! (docs/DECISIONS.md, "Accessibility and phone"). Everything else inherits the
//! page's `en`. Linear in the text; looks at its first [`SAMPLE`] characters.

/// How many characters are looked at (a long text's opening says enough).
pub const SAMPLE: usize = 2000;

/// `zh`, `ja` or `ko` when the text's letters are clearly that script, else `None`.
///
/// "Clearly": at least two CJK letters, and at least 30% of the letters
/// (CJK, Latin, Greek, Cyrillic, Hebrew, Arabic, Indic, Thai) are CJK. Kana anywhere
/// among them make it Japanese (Japanese writes Han with kana; Chinese never
/// uses kana); Hangul outnumbering Han makes it Korean.
pub fn script_lang(text: &str) -> Option<&'static str> {
    let (mut han, mut kana, mut hangul, mut letters) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars().take(SAMPLE) {
        match c as u32 {
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9D => kana += 1,
            0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF => hangul += 1,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F => han += 1,
            // Letters of the other common scripts, by block (not `char::is_alphabetic`, whose
            // Unicode table would weigh on the app's first load): Latin, Greek, Cyrillic,
            // Armenian, Hebrew, Arabic, Devanagari…Thai.
            0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x370..=0x58F | 0x5D0..=0x6FF | 0x900..=0xE7F => letters += 1,
            _ => {}
        }
    }
    let cjk = han + kana + hangul;
    if cjk < 2 || cjk * 10 < (cjk + letters) * 3 {
        return None;
    }
    Some(if kana > 0 {
        "ja"
    } else if hangul > han {
        "ko"
    } else {
        "zh"
    })
}

/// [`script_lang`] of a segment's prose (the fields variables are substituted
/// in, [`crate::template::for_each_text_field`], and a tool result's content),
/// their openings joined up to [`SAMPLE`] characters.
pub fn segment_lang(segment: &crate::Segment) -> Option<&'static str> {
    let mut sample = String::new();
    let mut take = |text: &str| {
        let room = SAMPLE.saturating_sub(sample.chars().count());
        sample.extend(text.chars().take(room));
        sample.push(' ');
    };
    crate::template::for_each_text_field(segment, |_, text| take(text));
    if let crate::Segment::ToolCallResult(r) = segment {
        take(&r.result);
    }
    script_lang(&sample)
}

#[cfg(test)]
mod tests {
    use super::script_lang;

    #[test]
    fn tells_cjk_scripts_apart_and_leaves_the_rest() {
        assert_eq!(script_lang("请审阅这篇论文的方法部分。"), Some("zh"));
        assert_eq!(script_lang("論文を読んでください"), Some("ja"));
        assert_eq!(script_lang("논문을 검토해 주세요"), Some("ko"));
        // Mostly English with a Chinese name: not marked.
        assert_eq!(script_lang("Please review the paper by 王小明 on retrieval augmented generation"), None);
        // Mixed, but the Chinese dominates: marked.
        assert_eq!(script_lang("请总结 the abstract 并给出三条意见"), Some("zh"));
        assert_eq!(script_lang("Hello, world"), None);
        assert_eq!(script_lang(""), None);
        assert_eq!(script_lang("中"), None, "one character says too little");
        assert_eq!(script_lang("12345 !!! 中文"), Some("zh"), "digits and punctuation are not letters");
    }

    #[test]
    fn a_segment_by_its_prose() {
        let doc = crate::parse(
            r#"{"version":"1.0","messages":[{"id":"m","role":"user","timestamp":1,"segments":[
                {"kind":"text","content":"请审阅这篇论文"},
                {"kind":"text","content":"Review this paper"}]}]}"#,
        )
        .expect("valid")
        .envelope;
        let langs: Vec<_> = doc.messages[0].segments.iter().map(super::segment_lang).collect();
        assert_eq!(langs, [Some("zh"), None]);
        let result = crate::Segment::ToolCallResult(crate::ToolCallResult {
            tool_name: "search".into(),
            result: "検索結果です".into(),
            success: true,
            collapsed: false,
            call_id: None,
            content: None,
            ext: Default::default(),
        });
        assert_eq!(super::segment_lang(&result), Some("ja"));
    }

    #[test]
    fn looks_at_the_opening_only() {
        let long = format!("{}{}", "a".repeat(super::SAMPLE), "中文".repeat(10_000));
        assert_eq!(script_lang(&long), None);
    }
}
