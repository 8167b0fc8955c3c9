//! Property test: no template and no data panic the PromptPoet renderer or
//! the envelope it makes. Templates are built from the pieces that trip
//! YAML and Jinja (indicators, quotes, tags, unclosed blocks, control and
//! separator characters, non-ASCII text) and from arbitrary strings.
#![cfg(feature = "templates")]

use envelope::promptpoet::{render, to_envelope};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("- name: a\n  content: ".to_string()),
        Just("- name: b\n  role: system\n  truncation_priority: 2\n  content: |\n    ".to_string()),
        Just("\n".to_string()),
        Just("  ".to_string()),
        Just("{{ x }}".to_string()),
        Just("{{ x.y }}".to_string()),
        Just("{{ '%s %d' % (x, 3) }}".to_string()),
        Just("{{ x ~ none ~ 1.5 }}".to_string()),
        Just("{{ x|title|tojson }}".to_string()),
        Just("{{ x|round(2)|string|center(9) }}".to_string()),
        Just("{{ items|sort|join(', ') }}".to_string()),
        Just("{{ x.split()|list }}".to_string()),
        Just("{{ escape_special_characters(x) }}".to_string()),
        Just("{% for i in items %}".to_string()),
        Just("{% endfor %}".to_string()),
        Just("{% if x %}".to_string()),
        Just("{% else %}".to_string()),
        Just("{% endif %}".to_string()),
        Just("{%- raw %}".to_string()),
        Just("{# c #}".to_string()),
        Just("<<: *a".to_string()),
        Just("&a ".to_string()),
        Just("sections:\n  - name: s\n    content: t\n".to_string()),
        Just("'".to_string()),
        Just("\"".to_string()),
        Just(": ".to_string()),
        Just("\t".to_string()),
        Just("\u{2028}".to_string()),
        Just("\u{85}".to_string()),
        Just("\u{7}".to_string()),
        Just("\u{feff}".to_string()),
        Just("日本".to_string()),
        Just("2024-02-30".to_string()),
        Just("1:30".to_string()),
        Just("!!int x".to_string()),
        Just("<|space|>".to_string()),
        Just("\\n".to_string()),
        ".{0,6}",
    ]
}

fn data() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,10}".prop_map(Value::from),
        Just(Value::from("a: b\n- c\u{2028}'\"")),
    ];
    let item = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::vec(("[a-z]{1,3}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    });
    (item.clone(), prop::collection::vec(item, 0..4)).prop_map(|(x, items)| {
        let mut m = Map::new();
        m.insert("x".into(), x);
        m.insert("items".into(), Value::from(items));
        Value::Object(m)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn pieces_never_panic(pieces in prop::collection::vec(piece(), 0..24), data in data()) {
        let template: String = pieces.concat();
        if let Ok(r) = render(&template, &data) {
            let (env, _) = to_envelope(&r);
            let text = serde_json::to_string(&env).unwrap();
            prop_assert!(envelope::parse(&text).is_ok(), "{}", text);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(template in "\\PC{0,200}", data in data()) {
        let _ = render(&template, &data);
    }
}
