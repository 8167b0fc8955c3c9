//! What a document would fetch from other hosts if shown with its media
//! (issue 12: remote content loads only when the user allows it). The app asks
//! before it sets any remote `src`; this says how much there is and from where,
//! so the question can name the hosts.

use std::collections::HashSet;

use crate::markdown::is_remote;

use crate::{Envelope, Segment};

/// Remote media of a document: `media` segments with an `http(s)` URL, and
/// Markdown images with one in the texts the app renders as Markdown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemoteMedia {
    /// How many remote URLs (media segments and Markdown images).
    pub count: usize,
    /// Their hosts, lowercased, in first-seen order, without repeats.
    pub hosts: Vec<String>,
    /// The same hosts, for the repeat test (linear in the URLs, whatever
    /// the number of distinct hosts).
    seen: HashSet<String>,
}

impl RemoteMedia {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn add(&mut self, url: &str) {
        self.count += 1;
        let host = host(url);
        if self.seen.insert(host.clone()) {
            self.hosts.push(host);
        }
    }
}

/// The host (and port) of an `http(s)` URL, lowercased, without user info;
/// `"(no host)"` when there is none.
pub fn host(url: &str) -> String {
    let t = url.trim_matches(|c: char| c <= ' ');
    let after = t.find("//").map_or(t, |i| &t[i + 2..]);
    let authority = after.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or("");
    if authority.is_empty() {
        "(no host)".into()
    } else {
        authority.to_ascii_lowercase()
    }
}

/// The remote media of `env`. Markdown images are found by their
/// `](http…` / `](<http…` / `]: http…` destinations: a reading that can only
/// over-count (text that merely looks like an image link), never miss an
/// inline or reference image the renderer would load. Linear in the text.
pub fn remote_media(env: &Envelope) -> RemoteMedia {
    let mut out = RemoteMedia::default();
    for m in &env.messages {
        for s in &m.segments {
            match s {
                Segment::Media(media) if is_remote(&media.url) => out.add(&media.url),
                // Images by URL inside a tool result's content blocks.
                Segment::ToolCallResult(r) => {
                    for block in r.content.iter().flatten() {
                        let url = block.get("source").and_then(|s| s.get("url")).and_then(serde_json::Value::as_str);
                        if let Some(url) = url.filter(|u| is_remote(u)) {
                            out.add(url);
                        }
                    }
                }
                Segment::Text(t) => markdown_images(&t.content, &mut out),
                Segment::SystemPrompt(t) => markdown_images(&t.content, &mut out),
                Segment::Skills(sk) => {
                    for b in sk.items.iter().filter_map(|i| i.body.as_deref()) {
                        markdown_images(b, &mut out);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn markdown_images(text: &str, out: &mut RemoteMedia) {
    if !text.contains("![") {
        return;
    }
    // Labels of reference images (`![alt][label]`, `![label][]`, `![label]`), lowercased.
    let mut labels: HashSet<String> = HashSet::new();
    for (at, _) in text.match_indices("![") {
        let rest = &text[at + 2..];
        let Some(close) = rest.find(']') else { continue };
        let (alt, after) = (&rest[..close], &rest[close + 1..]);
        if let Some(dest) = after.strip_prefix('(') {
            let dest = dest.trim_start_matches([' ', '<']);
            if starts_remote(dest) {
                let end = dest.find([')', '>', ' ', '\n', '"']).unwrap_or(dest.len());
                out.add(&dest[..end]);
            }
        } else if let Some(r) = after.strip_prefix('[') {
            let label = r.find(']').map_or("", |e| &r[..e]);
            labels.insert(if label.is_empty() { alt } else { label }.to_ascii_lowercase());
        } else {
            labels.insert(alt.to_ascii_lowercase());
        }
    }
    if labels.is_empty() {
        return;
    }
    // Their definitions: `[label]: URL` at the start of a line.
    for line in text.lines() {
        let line = line.trim_start_matches(' ');
        let Some(r) = line.strip_prefix('[') else { continue };
        let Some(e) = r.find("]:") else { continue };
        let dest = r[e + 2..].trim_start_matches([' ', '<']);
        if starts_remote(dest) && labels.contains(&r[..e].to_ascii_lowercase()) {
            out.add(dest.split([' ', '>']).next().unwrap_or(dest));
        }
    }
}

fn starts_remote(s: &str) -> bool {
    let head =
        |n: usize| s.get(..n).is_some_and(|h| h.eq_ignore_ascii_case(if n == 7 { "http://" } else { "https://" }));
    head(7) || head(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(segments: &str) -> Envelope {
        let json = format!(
            r#"{{"version":"1.0","messages":[{{"id":"u","role":"user","timestamp":0,"segments":[{segments}]}}]}}"#
        );
        crate::parse(&json).expect("valid").envelope
    }

    #[test]
    fn media_segments_and_markdown_images_are_counted_with_hosts() {
        let e = env(r#"{"kind":"media","mediaType":"image","url":"https://Picsum.Photos/seed/x/640/400"},
               {"kind":"media","mediaType":"image","url":"data:image/png;base64,iVBORw0KGgo="},
               {"kind":"media","mediaType":"audio","url":"http://user:pw@files.example.com:8080/a.mp3"},
               {"kind":"text","content":"see ![chart](https://picsum.photos/c.png) and [a link](https://link.example/) ![ref][r]\n\n[r]: https://cdn.example/r.png"}"#);
        let r = remote_media(&e);
        assert_eq!(r.count, 4, "{r:?}");
        assert_eq!(r.hosts, ["picsum.photos", "files.example.com:8080", "cdn.example"]);
    }

    #[test]
    fn many_hosts_and_labels_stay_linear() {
        // 20,000 distinct hosts, and 20,000 reference images with their definitions.
        let n = 20_000;
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("![a](https://h{i}.example/x.png) ![r{i}]\n"));
        }
        for i in 0..n {
            text.push_str(&format!("[r{i}]: https://d{i}.example/y.png\n"));
        }
        let json = serde_json::json!({"version":"1.0","messages":[{"id":"u","role":"user","timestamp":0,
            "segments":[{"kind":"text","content":text}]}]});
        let e = crate::parse(&json.to_string()).expect("valid").envelope;
        let t = std::time::Instant::now();
        let r = remote_media(&e);
        assert_eq!((r.count, r.hosts.len()), (2 * n, 2 * n));
        // Quadratic (a list searched per URL, per definition) took minutes here.
        assert!(t.elapsed().as_millis() < 5_000, "{:?}", t.elapsed());
    }

    #[test]
    fn a_document_without_remote_media_has_none() {
        let e = env(
            r#"{"kind":"text","content":"no images ![local](data:image/png;base64,AA) [x](https://a.example) ] ( ]: "},
               {"kind":"media","mediaType":"image","url":"data:image/png;base64,AA"}"#,
        );
        assert!(remote_media(&e).is_empty(), "{:?}", remote_media(&e));
    }

    #[test]
    fn hosts_are_read_defensively() {
        assert_eq!(host("https://a.example/x?y#z"), "a.example");
        assert_eq!(host("HTTPS://A.Example"), "a.example");
        assert_eq!(host("https:///nohost"), "(no host)");
        assert_eq!(host("https://u@h\\x"), "h");
    }
}
