//! A media type read from the bytes themselves (their "magic numbers"), for
//! inline data whose declared type is missing or wrong: a trace's `blob` part
//! without a `mime_type`, a `data:` URL that says `image/png` over JPEG bytes.
//!
//! Only the formats a prompt carries are recognised: PNG, JPEG, GIF, WebP, WAV
//! (WebP and WAV share the RIFF container, told apart by its form type), MP3
//! (an ID3 tag, or an MPEG audio frame header of layer I–III), MP4 (an ISO
//! base media `ftyp` box; brand `M4A ` is audio) and PDF. Anything else is
//! `None`: the declared type stands. Only the first [`HEAD`] bytes are read,
//! so a base64 text of any length costs the same (its first 24 characters).

use base64::Engine as _;

/// How many leading bytes the signatures need.
pub const HEAD: usize = 16;

/// A recognised format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sniffed {
    /// The MIME type (`image/png`, `audio/wav`, `application/pdf`, …).
    pub mime: &'static str,
    /// A name for people: "PNG", "JPEG", "WAV", …
    pub name: &'static str,
}

const fn s(mime: &'static str, name: &'static str) -> Option<Sniffed> {
    Some(Sniffed { mime, name })
}

/// The format of `bytes`, from their first bytes.
pub fn sniff(bytes: &[u8]) -> Option<Sniffed> {
    let b = bytes;
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        return s("image/png", "PNG");
    }
    if b.starts_with(&[0xff, 0xd8, 0xff]) {
        return s("image/jpeg", "JPEG");
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return s("image/gif", "GIF");
    }
    if b.starts_with(b"%PDF-") {
        return s("application/pdf", "PDF");
    }
    if b.len() >= 12 && b.starts_with(b"RIFF") {
        return match &b[8..12] {
            b"WEBP" => s("image/webp", "WebP"),
            b"WAVE" => s("audio/wav", "WAV"),
            _ => None,
        };
    }
    if b.len() >= 12 && &b[4..8] == b"ftyp" {
        return if &b[8..12] == b"M4A " { s("audio/mp4", "MP4 audio") } else { s("video/mp4", "MP4") };
    }
    if b.starts_with(b"ID3") {
        return s("audio/mpeg", "MP3");
    }
    // An MPEG audio frame header: 11 sync bits, a version that is not the
    // reserved 01, a layer that is not the reserved 00 (ADTS AAC, which
    // shares the sync word, has layer 00), a bitrate index that is not 1111.
    if b.len() >= 3 && b[0] == 0xff && b[1] & 0xe0 == 0xe0 {
        let version = (b[1] >> 3) & 0b11;
        let layer = (b[1] >> 1) & 0b11;
        let bitrate = b[2] >> 4;
        if version != 0b01 && layer != 0b00 && bitrate != 0b1111 {
            return s("audio/mpeg", "MP3");
        }
    }
    None
}

/// The format of base64 text (standard or URL-safe alphabet, padded or not,
/// white space ignored), from its first characters only.
pub fn sniff_base64(text: &str) -> Option<Sniffed> {
    // 24 characters are 18 bytes: more than HEAD, and a multiple of 4.
    let mut head = String::with_capacity(24);
    for c in text.chars().filter(|c| !c.is_ascii_whitespace()) {
        if head.len() == 24 || c == '=' {
            break;
        }
        head.push(match c {
            '-' => '+',
            '_' => '/',
            c => c,
        });
    }
    // A lone character after the last whole quantum holds no whole byte.
    if head.len() % 4 == 1 {
        head.pop();
    }
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let bytes = engine.decode(head.as_bytes()).ok()?;
    sniff(&bytes)
}

/// A `data:` URL's declared type and the type its bytes have. `None` when
/// the URL is not a base64 `data:` URL.
pub fn data_url(url: &str) -> Option<DataUrl<'_>> {
    let rest = url.trim_start();
    let rest = rest.get(..5).filter(|p| p.eq_ignore_ascii_case("data:")).map(|_| &rest[5..])?;
    let (meta, payload) = rest.split_once(',')?;
    let mut params = meta.split(';');
    let declared = params.next().unwrap_or("").trim();
    if !params.any(|p| p.trim().eq_ignore_ascii_case("base64")) {
        return None;
    }
    Some(DataUrl {
        declared: (!declared.is_empty()).then_some(declared),
        actual: sniff_base64(payload),
        base64_len: payload.len(),
    })
}

/// What [`data_url`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataUrl<'a> {
    /// The declared MIME type, as written (`None`: none).
    pub declared: Option<&'a str>,
    /// The format of the bytes (`None`: not one [`sniff`] knows).
    pub actual: Option<Sniffed>,
    /// The length of the base64 text.
    pub base64_len: usize,
}

impl DataUrl<'_> {
    /// The bytes are a known format other than the declared one (a missing
    /// declaration counts as other). `image/jpg` is taken for `image/jpeg`,
    /// `audio/x-wav`/`audio/wave` for `audio/wav`, `audio/mp3` for `audio/mpeg`.
    pub fn mismatch(&self) -> Option<Sniffed> {
        mismatch(self.declared, self.actual)
    }

    /// The decoded size in bytes (from the base64 length; padding aside).
    pub fn byte_len(&self) -> usize {
        self.base64_len / 4 * 3 + (self.base64_len % 4).saturating_sub(1)
    }
}

/// `actual` when it is a known format other than `declared` (a missing
/// declaration counts as other; aliases such as `image/jpg` and case aside).
pub fn mismatch(declared: Option<&str>, actual: Option<Sniffed>) -> Option<Sniffed> {
    let actual = actual?;
    let declared = declared.map(|d| d.trim().to_ascii_lowercase());
    let same = declared.as_deref().is_some_and(|d| canonical(d) == actual.mime);
    (!same).then_some(actual)
}

fn canonical(mime: &str) -> &str {
    match mime {
        "image/jpg" | "image/pjpeg" => "image/jpeg",
        "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "audio/wav",
        "audio/mp3" | "audio/mpeg3" | "audio/x-mpeg" => "audio/mpeg",
        "audio/x-m4a" | "audio/m4a" => "audio/mp4",
        m => m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

    fn mime(bytes: &[u8]) -> Option<&'static str> {
        sniff(bytes).map(|s| s.mime)
    }

    #[test]
    fn each_format_by_its_signature() {
        assert_eq!(mime(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some("image/png"));
        assert_eq!(mime(&[0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F']), Some("image/jpeg"));
        assert_eq!(mime(b"GIF89a\x01\0\x01\0"), Some("image/gif"));
        assert_eq!(mime(b"GIF87a"), Some("image/gif"));
        assert_eq!(mime(b"RIFF\x24\x08\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(mime(b"RIFF\x24\x08\0\0WAVEfmt "), Some("audio/wav"));
        assert_eq!(mime(b"RIFF\x24\x08\0\0AVI LIST"), None, "RIFF of another form");
        assert_eq!(mime(b"ID3\x04\0\0\0\0\0\x21"), Some("audio/mpeg"));
        assert_eq!(mime(&[0xff, 0xfb, 0x90, 0x64]), Some("audio/mpeg"), "MPEG-1 layer III frame");
        assert_eq!(mime(&[0xff, 0xf3, 0x48, 0xc4]), Some("audio/mpeg"), "MPEG-2 layer III frame");
        assert_eq!(mime(&[0xff, 0xf1, 0x50, 0x80]), None, "ADTS AAC shares the sync word, layer 00");
        assert_eq!(mime(&[0xff, 0xfb, 0xf0, 0x00]), None, "bitrate index 1111 is invalid");
        assert_eq!(mime(b"\0\0\0\x20ftypisom\0\0\x02\0"), Some("video/mp4"));
        assert_eq!(mime(b"\0\0\0\x20ftypM4A \0\0\0\0"), Some("audio/mp4"));
        assert_eq!(mime(b"%PDF-1.7\n"), Some("application/pdf"));
        assert_eq!(mime(b"hello world, plain text"), None);
        assert_eq!(mime(b""), None);
        assert_eq!(mime(b"RIFF"), None, "too short to say");
    }

    #[test]
    fn base64_in_either_alphabet_and_any_length() {
        // A JPEG header whose base64 holds `/` (standard) and `_` (URL-safe).
        let jpeg = [
            0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff,
        ];
        let std = STANDARD.encode(jpeg);
        let url = URL_SAFE_NO_PAD.encode(jpeg);
        assert!(std.contains('/') && url.contains('_'));
        assert_eq!(sniff_base64(&std).unwrap().mime, "image/jpeg");
        assert_eq!(sniff_base64(&url).unwrap().mime, "image/jpeg");
        // Line-wrapped base64 (MIME style).
        let wrapped: String =
            std.chars().enumerate().flat_map(|(i, c)| (i % 4 == 3).then_some('\n').into_iter().chain([c])).collect();
        assert_eq!(sniff_base64(&wrapped).unwrap().name, "JPEG");
        // Short texts: "%PDF-" is 8 characters of base64.
        assert_eq!(sniff_base64(&STANDARD.encode(b"%PDF-")).unwrap().mime, "application/pdf");
        assert_eq!(sniff_base64(""), None);
        assert_eq!(sniff_base64("not base64 at all!!"), None);
        // A long text costs its first characters only.
        let long = format!("{}{}", STANDARD.encode(b"GIF89a\x01\0\x01\0\0\0"), "A".repeat(1 << 20));
        assert_eq!(sniff_base64(&long).unwrap().mime, "image/gif");
    }

    #[test]
    fn data_urls_declared_against_actual() {
        let png = STANDARD.encode(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01");
        let jpeg = STANDARD.encode([0xff, 0xd8, 0xff, 0xdb, 0, 0x43, 0, 8, 6, 6, 7, 6, 5, 8, 7, 7]);
        let ok = format!("data:image/png;base64,{png}");
        let d = data_url(&ok).unwrap();
        assert_eq!((d.declared, d.actual.map(|a| a.mime), d.mismatch()), (Some("image/png"), Some("image/png"), None));
        let wrong = format!("data:image/png;base64,{jpeg}");
        assert_eq!(data_url(&wrong).unwrap().mismatch().unwrap().name, "JPEG");
        let alias = format!("DATA:image/JPG;base64,{jpeg}");
        assert_eq!(data_url(&alias).unwrap().mismatch(), None, "image/jpg is JPEG, case aside");
        let missing = format!("data:;base64,{png}");
        assert_eq!(data_url(&missing).unwrap().mismatch().unwrap().mime, "image/png");
        let unknown = "data:image/png;base64,AAAAAAAAAAAAAAAAAAAAAAAA";
        assert_eq!(data_url(unknown).unwrap().mismatch(), None, "unknown bytes: the declaration stands");
        assert_eq!(data_url("data:text/plain,hello"), None, "not base64");
        assert_eq!(data_url("https://example.com/a.png"), None);
        assert_eq!(data_url("data:image/png;base64"), None, "no comma");
        assert_eq!(data_url(&format!("data:image/png;base64,{}", "A".repeat(400))).unwrap().byte_len(), 300);
    }
}
