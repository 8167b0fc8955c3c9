//! The Markdown module: `envelope::markdown` for the page, as a WebAssembly
//! module of its own so that the renderer (pulldown-cmark, its entity table,
//! the safe writer) is not part of the first load. The page imports its ES
//! module after the first paint, calls `init`, then calls [`render`]
//! synchronously (`src/markdown.rs`). Strings in, a string out: the two
//! modules share no memory.

/// Safe HTML for untrusted GFM Markdown, with the variables `vars` names
/// substituted and marked (`envelope::markdown::render_markdown_with_vars`).
/// `vars` is flat: name, value, name, value…; a name without a value is
/// ignored, and the first of two equal names wins. `remote_images`: whether
/// `http(s)` images may load (the user's consent), else they are held.
pub fn render(src: &str, vars: &[String], remote_images: bool) -> String {
    let lookup = |name: &str| vars.chunks_exact(2).find(|p| p[0] == name).map(|p| p[1].as_str());
    let remote = if remote_images { envelope::markdown::Remote::Load } else { envelope::markdown::Remote::Hold };
    envelope::markdown::render_markdown_with(src, &lookup, remote)
}

#[cfg(target_arch = "wasm32")]
mod exports {
    use wasm_bindgen::prelude::*;

    /// `render(markdown, [name, value, …], remoteImages)` → HTML.
    #[wasm_bindgen(js_name = render)]
    pub fn render_js(src: &str, vars: Vec<String>, remote_images: bool) -> String {
        super::render(src, &vars, remote_images)
    }
}

fn main() {}

#[cfg(test)]
mod tests {
    #[test]
    fn renders_through_the_core_with_variables() {
        let vars = ["who".to_string(), "Ann".to_string(), "who".to_string(), "Bob".to_string(), "odd".to_string()];
        let html = super::render("# Hi **{{who}}** {{odd}} <script>x</script>", &vars, true);
        assert_eq!(
            html,
            envelope::markdown::render_markdown_with_vars("# Hi **{{who}}** {{odd}} <script>x</script>", &|n: &str| {
                (n == "who").then_some("Ann")
            })
        );
        assert!(html.contains("<strong><mark class=\"var\" data-var=\"who\""), "{html}");
        assert!(html.contains("{{odd}}"), "unknown stays as written: {html}");
        assert!(!html.contains("<script>"), "{html}");
        let img = "![x](https://t.example/p.png)";
        assert!(super::render(img, &[], true).contains("<img src=\"https://t.example/p.png\""));
        assert!(!super::render(img, &[], false).contains("<img"), "held without consent");
    }
}
