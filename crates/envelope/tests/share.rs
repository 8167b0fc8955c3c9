//! Share links: round trip, damaged and hostile fragments, size limits.

use envelope::share::{self, MAX_FRAGMENT_CHARS, MAX_TEXT_BYTES};
use envelope::Rule;

fn demo(c: char) -> String {
    std::fs::read_to_string(format!("{}/../../demos/{c}.json", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn every_demo_round_trips_exactly() {
    for c in 'a'..='f' {
        let text = demo(c);
        let fragment = share::encode(&text).unwrap();
        assert!(fragment.starts_with("d="));
        assert!(fragment[2..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert!(fragment.len() < text.len(), "demo {c} compresses");
        assert_eq!(share::decode(&fragment).unwrap().as_deref(), Some(text.as_str()));
        assert_eq!(share::decode(&format!("#{fragment}")).unwrap().as_deref(), Some(text.as_str()));
        assert_eq!(share::decode(&format!("#m=x&{fragment}")).unwrap().as_deref(), Some(text.as_str()));
    }
}

#[test]
fn an_ordinary_anchor_is_not_a_document() {
    assert_eq!(share::decode("#m=d-a1").unwrap(), None);
    assert_eq!(share::decode("").unwrap(), None);
    // The page's cheap test (before it fetches the code that reads links)
    // agrees: no `d=`, no document; any `d=`, even a damaged one, is one.
    for anchor in ["#m=d-a1", "", "#", "#md=x"] {
        assert!(!share::holds_data(anchor), "{anchor}");
    }
    for link in ["#d=", "d=%%%", "#m=x&d=abc"] {
        assert!(share::holds_data(link), "{link}");
        assert!(share::data(link).map_or(true, |d| d.is_some()), "{link}");
    }
}

#[test]
fn damaged_fragments_are_clear_errors() {
    let good = share::encode(&demo('a')).unwrap();
    let cases = [
        "d=".to_string(),
        "d=%%%".to_string(),
        "d=ab+c/".to_string(),
        "d=a".to_string(),                  // not base64 (one char)
        good[..good.len() / 2].to_string(), // cut in half: does not inflate
        "d=AAAA".to_string(),               // base64 of zeros: a stored block of wrong length
        format!("d={}", "_".repeat(40)),    // all ones: invalid block type
    ];
    for f in cases {
        let e = share::decode(&f).expect_err(&f);
        assert_eq!(e.rule, Rule::ShareLink, "{f}: {e}");
        assert!(!e.message.is_empty());
    }
    // Not UTF-8 inside.
    let bytes = miniz_oxide_compat::deflate(&[0xff, 0xfe, 0x00]);
    let e = share::decode(&share::fragment(&bytes).unwrap()).unwrap_err();
    assert!(e.message.contains("UTF-8"), "{e}");
}

#[test]
fn arbitrary_fragments_never_panic() {
    // A cheap fuzz: every prefix, and bytes flipped through the alphabet.
    let good = share::encode(&demo('d')).unwrap();
    for end in 0..good.len().min(400) {
        let _ = share::decode(&good[..end]);
    }
    let alphabet = b"AZaz09-_";
    let mut bytes = good.into_bytes();
    for i in (2..bytes.len()).step_by(7) {
        bytes[i] = alphabet[i % alphabet.len()];
        let _ = share::decode(std::str::from_utf8(&bytes).unwrap());
    }
}

#[test]
fn size_limits() {
    // Too long to make: a clear error, not a broken link.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: String = (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .collect();
    let e = share::encode(&noise).unwrap_err();
    assert_eq!(e.rule, Rule::ShareLink);
    assert!(e.message.contains("too large for a link"), "{e}");
    // Too long to read.
    let long = format!("d={}", "A".repeat(MAX_FRAGMENT_CHARS + 1));
    assert!(share::decode(&long).unwrap_err().message.contains("more than"));
    // A deflate bomb stops at the limit.
    let zeros = vec![b' '; MAX_TEXT_BYTES + 1024];
    let bomb = share::fragment(&miniz_oxide_compat::deflate(&zeros)).unwrap();
    assert!(bomb.len() < MAX_FRAGMENT_CHARS);
    let e = share::decode(&bomb).unwrap_err();
    assert!(e.message.contains("inflates to more than"), "{e}");
}

#[test]
fn links() {
    assert_eq!(share::link("https://x.test/app/doc#m=1", "d=abc"), "https://x.test/app/doc#d=abc");
}

/// The compressor the CLI uses, for crafting inputs.
mod miniz_oxide_compat {
    pub fn deflate(bytes: &[u8]) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec(bytes, 6)
    }
}
