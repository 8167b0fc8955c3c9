//! The Skills page (`/skills`): SKILL.md files opened, dropped or pasted,
//! or a folder of skills, and what the model sees of each — before the skill
//! is loaded, its line of the listing (L1: name and description), which
//! every request carries; after, its body (L2) — with token counts from the
//! engine's tokenizer (o200k_base), the parser's warnings with their lines,
//! and the body rendered as Markdown. "Open in the viewer" opens the skills
//! as an envelope (one system message, one `skills` segment) in the
//! ordinary document view. The texts, the findings and the envelope are the
//! core's (`envelope::skills`); nothing here parses.
//!
//! Of a folder only the `SKILL.md` files are read; the others are listed by
//! path (and size). Skill text is hostile: bodies go through the app's
//! Markdown renderer, descriptions are text, secrets are masked in both.

use std::sync::Arc;

use envelope::skills::{read_skills, Finding, SkillFile, SkillSet};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::components::rich::{CurrentDoc, Markdown, VarText};
use crate::doc::{Doc, Source};
use crate::format::count;
use crate::router::use_navigate;
use crate::state::{Session, SkillsInbox, SkillsInput};
use crate::worker;

/// Files of a dropped folder walked at most (a drop of a whole disk stops there).
const MAX_FILES: usize = 20_000;
/// A SKILL.md larger than this is not read (a skill's body is a few pages).
const MAX_BYTES: f64 = 8e6;
/// Folders of a dropped folder not entered.
const SKIP: &[&str] = &[".git", "node_modules"];
/// Other files listed by path at most.
const OTHERS_SHOWN: usize = 200;

/// A file of the input that is not read (not a SKILL.md): its path and size.
#[derive(Clone, Debug, PartialEq)]
struct Other {
    path: String,
    size: Option<f64>,
}

/// What the page shows: the skills read, and what it made of them.
struct Shown {
    set: SkillSet,
    /// The skills envelope (none loaded), for the Markdown and text views.
    doc: Arc<Doc>,
    others: Vec<Other>,
    /// More files than [`MAX_FILES`] were dropped: the rest was not looked at.
    cut: bool,
    /// Names the envelope opened in the viewer (`<label>.skills.json`).
    label: String,
}

/// Token counts: the listing, then each listed skill's L1 and L2.
#[derive(Clone, Debug, PartialEq)]
enum Tokens {
    Counting,
    Done(Vec<u32>),
    Failed(String),
}

/// Whether a file of the input is read: a `SKILL.md` anywhere, and any
/// Markdown file given on its own (not found in a folder).
fn wanted(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    name == "SKILL.md" || (!path.contains(['/', '\\']) && (lower.ends_with(".md") || lower.ends_with(".markdown")))
}

/// The first folder all paths share (`skills` for `skills/a/SKILL.md` and
/// `skills/b/SKILL.md`), else `skills`.
fn label_of<'a>(mut paths: impl Iterator<Item = &'a str>) -> String {
    let first = |p: &'a str| p.split_once(['/', '\\']).map(|(f, _)| f);
    let Some(top) = paths.next().and_then(first) else { return "skills".into() };
    if paths.all(|p| first(p) == Some(top)) && !top.is_empty() {
        top.to_string()
    } else {
        "skills".into()
    }
}

/// "312 bytes", "4.2 kB", "1.3 MB".
fn size_text(bytes: f64) -> String {
    if bytes < 1000.0 {
        format!("{bytes} bytes")
    } else if bytes < 1e6 {
        format!("{} kB", envelope::display::decimal(bytes / 1e3, 1))
    } else {
        format!("{} MB", envelope::display::decimal(bytes / 1e6, 1))
    }
}

fn tokens_text(n: u32) -> String {
    count(n as usize, "token")
}

/// Reads one file (bounded in size).
async fn read_file(path: String, file: &web_sys::File) -> SkillFile {
    if file.size() > MAX_BYTES {
        return SkillFile::unreadable(
            path,
            format!("it is {}, larger than a SKILL.md can be here", size_text(file.size())),
        );
    }
    match browser::read_file(file).await {
        Ok(bytes) => SkillFile::new(path, bytes),
        Err(e) => SkillFile::unreadable(path, e),
    }
}

/// Reads what the user gave: the SKILL.md files, the others by path.
async fn read_input(input: SkillsInput) -> (Vec<SkillFile>, Vec<Other>, bool) {
    let (mut files, mut others, mut cut) = (Vec::new(), Vec::new(), false);
    match input {
        SkillsInput::Text(text) => files.push(SkillFile::new("(pasted)", text.into_bytes())),
        SkillsInput::Files(list) => {
            for file in list {
                let path = browser::relative_path(&file);
                if wanted(&path) {
                    files.push(read_file(path, &file).await);
                } else {
                    others.push(Other { path, size: Some(file.size()) });
                }
            }
        }
        SkillsInput::Entries(entries) => match browser::dropped_files(entries, MAX_FILES, SKIP).await {
            Ok((found, more)) => {
                cut = more;
                for f in found {
                    if wanted(&f.path) {
                        match browser::entry_file(&f.entry).await {
                            Ok(file) => files.push(read_file(f.path, &file).await),
                            Err(e) => files.push(SkillFile::unreadable(f.path, e)),
                        }
                    } else {
                        let size = if others.len() < OTHERS_SHOWN {
                            browser::entry_file(&f.entry).await.ok().map(|file| file.size())
                        } else {
                            None
                        };
                        others.push(Other { path: f.path, size });
                    }
                }
            }
            Err(e) => files.push(SkillFile::unreadable("(dropped folder)", e)),
        },
    }
    others.sort_by(|a, b| a.path.cmp(&b.path));
    (files, others, cut)
}

/// What to count: the listing, then each listed skill's L1 and L2.
fn texts(set: &SkillSet) -> Vec<&str> {
    let mut out = vec![set.listing.as_str()];
    for l in set.listed() {
        out.push(&l.l1);
        out.push(&l.l2);
    }
    out
}

/// `/skills`.
#[component]
pub fn SkillsPage() -> impl IntoView {
    let session = Session::expect();
    let inbox = SkillsInbox::expect();
    let shown = RwSignal::new(None::<Arc<Shown>>);
    let tokens = RwSignal::new(Tokens::Counting);
    let reading = RwSignal::new(false);
    let seq = StoredValue::new(0u64);

    let count_tokens = move |shown: Arc<Shown>| {
        tokens.set(Tokens::Counting);
        let n = seq.get_value();
        leptos::task::spawn_local(async move {
            let result = worker::tokens::encode(&texts(&shown.set), false).await;
            if seq.try_get_value() != Some(n) {
                return;
            }
            tokens.try_set(match result {
                Ok(e) => Tokens::Done(e.lens),
                Err(e) => Tokens::Failed(e),
            });
        });
    };

    // Each new input is read (again on each visit: files stay readable).
    Effect::new(move |_| {
        let Some((_, input)) = inbox.0.get() else { return };
        let n = seq.get_value() + 1;
        seq.set_value(n);
        reading.set(true);
        leptos::task::spawn_local(async move {
            let (files, others, cut) = read_input(input).await;
            // Secrets are masked from the first paint, as in an opened document.
            if crate::secrets::ensure().await.is_none() {
                session.notify(crate::secrets::UNFETCHED, true);
            }
            if seq.try_get_value() != Some(n) {
                return;
            }
            let label = label_of(files.iter().map(|f| f.path.as_str()));
            let set = read_skills(files);
            let loaded = match envelope::parse::from_value(set.envelope(None)) {
                Ok(l) => l,
                Err(errors) => {
                    // The core's envelope always validates; if it ever does not, say so.
                    let list: Vec<String> = errors.iter().map(|d| d.to_string()).collect();
                    session.notify(format!("The skills could not be made into a document: {}", list.join("; ")), true);
                    reading.try_set(false);
                    return;
                }
            };
            let doc = Doc::new(Source::File(format!("{label}.skills.json")), loaded);
            let made = Arc::new(Shown { set, doc, others, cut, label });
            reading.try_set(false);
            shown.try_set(Some(made.clone()));
            count_tokens(made);
        });
    });

    view! {
        <main class="skills-page pad" id="main" tabindex="-1" data-testid="skills">
            <h2>"Skills"</h2>
            <p class="muted">"What the model sees of each skill. Before a skill is loaded, its name and description: one line of the skills listing, which every request carries. After it is loaded, its body too. Token counts are o200k_base, of the text the OpenAI Chat request sends."</p>
            <SkillsOpen/>
            {move || reading.get().then(|| view! {
                <p class="muted" role="status" data-testid="skills-reading">
                    <span class="spinner" aria-hidden="true"></span>" Reading the skills…"
                </p>
            })}
            {move || match shown.get() {
                None if !reading.get() => view! {
                    <div class="empty-skills" data-testid="skills-empty">
                        <p>"No skills opened yet. Open SKILL.md files or a folder of skills (each skill a folder holding its SKILL.md), drop them anywhere on the page, or paste a SKILL.md with “Paste…”."</p>
                    </div>
                }.into_any(),
                None => ().into_any(),
                Some(s) => view! { <SkillsView shown=s tokens/> }.into_any(),
            }}
        </main>
    }
}

/// "Open SKILL.md files…" and "Open folder…".
#[component]
fn SkillsOpen() -> impl IntoView {
    let inbox = SkillsInbox::expect();
    let on_change = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        if let Some(list) = input.files() {
            let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
            if !files.is_empty() {
                inbox.put(SkillsInput::Files(files));
            }
        }
        input.set_value("");
    };
    view! {
        <div class="row skills-open">
            <label class="btn" title="Open one or more SKILL.md files">
                "Open SKILL.md files…"
                <input type="file" multiple accept=".md,.markdown,text/markdown" class="visually-hidden"
                    data-testid="skills-files" on:change=on_change/>
            </label>
            <label class="btn" title="Open a folder of skills: every SKILL.md in it and below it is read">
                "Open folder…"
                <input type="file" prop:webkitdirectory=true class="visually-hidden"
                    data-testid="skills-folder" on:change=on_change/>
            </label>
        </div>
    }
}

/// The totals, the files with errors, one card per listed skill, the other files.
#[component]
fn SkillsView(shown: Arc<Shown>, tokens: RwSignal<Tokens>) -> impl IntoView {
    provide_context(CurrentDoc(shown.doc.clone()));
    let session = Session::expect();
    let navigate = use_navigate();
    let set = &shown.set;
    let listed = set.listed().count();
    let (warnings, errors) = (set.warnings(), set.errors());
    let failed = set.entries.iter().filter(|e| e.listed.is_none()).count();
    let open_viewer = {
        let shown = shown.clone();
        move |loaded: Option<usize>| {
            let json = envelope::export::to_pretty(&shown.set.envelope(loaded));
            let source = Source::File(format!("{}.skills.json", shown.label));
            let navigate = navigate.clone();
            leptos::task::spawn_local(async move {
                session.open_and_show(source, json.into_bytes().into(), navigate).await;
            });
        }
    };
    let listing_tokens = move || match tokens.get() {
        Tokens::Done(l) => l.first().map_or_else(String::new, |&n| tokens_text(n)),
        Tokens::Counting => "counting…".into(),
        Tokens::Failed(_) => "not counted".into(),
    };
    let bodies_tokens = move || match tokens.get() {
        Tokens::Done(l) => format!("+{}", tokens_text(l.iter().skip(2).step_by(2).sum())),
        Tokens::Counting => "counting…".into(),
        Tokens::Failed(_) => "not counted".into(),
    };
    let token_error = move || match tokens.get() {
        Tokens::Failed(e) => Some(view! {
            <p class="notice error" role="alert" data-testid="skills-tokens-failed">
                {format!("Tokens could not be counted: {e}")}
            </p>
        }),
        _ => None,
    };
    let mut index = 0usize;
    let cards: Vec<AnyView> = set
        .entries
        .iter()
        .map(|e| match &e.listed {
            Some(l) => {
                let i = index;
                index += 1;
                let open = open_viewer.clone();
                view! {
                    <SkillCard i name=l.name.clone() description=l.description.clone() file=e.file.clone()
                        body=l.skill.body.clone() findings=e.findings.clone() tokens
                        open=Callback::new(move |()| open(Some(i)))/>
                }
                .into_any()
            }
            None => view! { <FailedFile file=e.file.clone() findings=e.findings.clone()/> }.into_any(),
        })
        .collect();
    let others = shown.others.clone();
    let cut = shown.cut;
    let open_all = open_viewer.clone();
    view! {
        <section class="skills-summary" aria-label="Totals" data-testid="skills-summary">
            <dl>
                <div><dt>"Skills listed"</dt><dd data-testid="skills-count">{listed}</dd></div>
                <div><dt>"Listing, in every request"</dt><dd data-testid="skills-listing-tokens">{listing_tokens}</dd></div>
                <div><dt>"All bodies, if loaded"</dt><dd data-testid="skills-bodies-tokens">{bodies_tokens}</dd></div>
                <div><dt>"Warnings"</dt><dd data-testid="skills-warnings">{warnings}</dd></div>
                <div><dt>"Files not listed"</dt><dd data-testid="skills-failed">{failed}</dd></div>
            </dl>
            {(listed > 0).then(|| view! {
                <button type="button" class="btn primary" data-testid="skills-open-viewer"
                    title="Open the skills as a document (one system message holding the skills, none loaded)"
                    on:click=move |_| open_all(None)>"Open in the viewer"</button>
            })}
        </section>
        {token_error}
        {(errors > 0).then(|| view! {
            <p class="muted" data-testid="skills-errors-note">{format!("{}: the files below marked “Not listed” are not skills the model sees.", count(errors, "error"))}</p>
        })}
        <div class="skill-cards">{cards}</div>
        {(!others.is_empty() || cut).then(|| view! { <OtherFiles others cut/> })}
    }
}

/// Where a finding is: `line 3`, and the field when it names one.
fn finding_where(f: &Finding) -> (Option<String>, Option<String>) {
    let path = &f.diagnostic.path;
    let field = (!path.is_empty() && !path.starts_with("line ")).then(|| path.clone());
    (f.line.map(|l| format!("line {l}")), field)
}

#[component]
fn Findings(findings: Vec<Finding>) -> impl IntoView {
    (!findings.is_empty()).then(|| {
        let items: Vec<AnyView> = findings
            .iter()
            .map(|f| {
                let (line, field) = finding_where(f);
                let error = f.is_error();
                let severity = if error { "error" } else { "warning" };
                view! {
                    <li class="skill-finding" data-testid="skill-finding">
                        <span class="badge" class:bad=error class:warn=!error>{severity}</span>
                        {line.map(|l| view! { <span class="finding-line">{l}</span> })}
                        {field.map(|p| view! { <code>{p}</code> })}
                        <span>{f.diagnostic.message.clone()}</span>
                    </li>
                }
                .into_any()
            })
            .collect();
        view! { <ul class="skill-findings">{items}</ul> }
    })
}

/// One listed skill.
#[component]
#[allow(clippy::too_many_arguments)]
fn SkillCard(
    i: usize,
    name: String,
    description: String,
    file: String,
    body: String,
    findings: Vec<Finding>,
    tokens: RwSignal<Tokens>,
    open: Callback<()>,
) -> impl IntoView {
    let expanded = RwSignal::new(false);
    let heading = format!("skill-{i}");
    let labelled_by = heading.clone();
    let body_id = format!("skill-body-{i}");
    let count_of = move |k: usize| match tokens.get() {
        Tokens::Done(l) => l.get(k).map_or_else(String::new, |&n| tokens_text(n)),
        Tokens::Counting => "counting…".into(),
        Tokens::Failed(_) => "not counted".into(),
    };
    let empty_body = body.trim().is_empty();
    view! {
        <article class="skill-card" data-testid="skill-card" aria-labelledby=labelled_by>
            <header class="skill-card-head">
                <h3 id=heading><code>{name.clone()}</code></h3>
                <span class="skill-file muted" title="File">{file}</span>
            </header>
            <p class="skill-card-desc">
                {if description.is_empty() {
                    view! { <em class="muted">"(no description)"</em> }.into_any()
                } else {
                    view! { <VarText text=description/> }.into_any()
                }}
            </p>
            <dl class="skill-tokens">
                <div><dt>"Before loading"</dt><dd data-testid="skill-l1-tokens">{move || count_of(1 + 2 * i)}</dd></div>
                <div><dt>"After loading"</dt><dd data-testid="skill-l2-tokens">{move || format!("+{}", count_of(2 + 2 * i))}</dd></div>
            </dl>
            <Findings findings/>
            <div class="row skill-card-actions">
                <button type="button" class="btn small" aria-expanded=move || expanded.get().to_string()
                    aria-controls=body_id.clone() data-testid="skill-body-toggle" disabled=empty_body
                    on:click=move |_| expanded.update(|e| *e = !*e)>
                    {move || if empty_body { "No body" } else if expanded.get() { "Hide the body" } else { "Show the body" }}
                </button>
                <button type="button" class="btn small" data-testid="skill-open-viewer"
                    title="Open the skills in the viewer, this one loaded"
                    on:click=move |_| open.run(())>"Open in the viewer"</button>
            </div>
            <div class="skill-card-body" id=body_id>
                {move || expanded.get().then(|| view! { <Markdown source=body.clone()/> })}
            </div>
        </article>
    }
}

/// A file that is not listed: where and what went wrong.
#[component]
fn FailedFile(file: String, findings: Vec<Finding>) -> impl IntoView {
    view! {
        <article class="skill-card failed" data-testid="skill-error" aria-label=format!("{file}: not listed")>
            <header class="skill-card-head">
                <h3><code>{file.clone()}</code></h3>
                <span class="badge bad">"Not listed"</span>
            </header>
            <Findings findings/>
        </article>
    }
}

/// The files of the input that were not read.
#[component]
fn OtherFiles(others: Vec<Other>, cut: bool) -> impl IntoView {
    let n = others.len();
    let items: Vec<AnyView> = others
        .into_iter()
        .take(OTHERS_SHOWN)
        .map(|o| {
            let size = o.size.map(|s| format!(" ({})", size_text(s)));
            view! { <li><code>{o.path}</code>{size}</li> }.into_any()
        })
        .collect();
    let more = n.saturating_sub(OTHERS_SHOWN);
    view! {
        <details class="skills-others" data-testid="skills-others">
            <summary>{format!("{} not read (only SKILL.md files are)", count(n, "other file"))}</summary>
            <ul>{items}</ul>
            {(more > 0).then(|| view! { <p class="muted">{format!("and {} more", count(more, "file"))}</p> })}
            {cut.then(|| view! { <p class="muted">{format!("The folder holds more than {} files: the rest was not looked at.", envelope::display::thousands(MAX_FILES as u64))}</p> })}
        </details>
    }
}

// `/skills` is a split view: its code comes with the route's first visit.
crate::split::split_view!(SKILLS, "Skills page", skills_page, || view! { <SkillsPage/> });

#[cfg(test)]
mod tests {
    use super::*;
    use envelope::skills::folder_of;

    #[test]
    fn only_skill_files_are_read() {
        assert!(wanted("SKILL.md"));
        assert!(wanted("skills/pdf/SKILL.md"));
        assert!(wanted("notes.md"));
        assert!(wanted("Notes.MARKDOWN"));
        assert!(!wanted("skills/pdf/reference.md"));
        assert!(!wanted("skills/pdf/skill.md"));
        assert!(!wanted("request.json"));
        assert!(!wanted("skills/pdf/scripts/run.py"));
    }

    #[test]
    fn labels_and_sizes() {
        assert_eq!(label_of(["skills/a/SKILL.md", "skills/b/SKILL.md"].into_iter()), "skills");
        assert_eq!(label_of(["mine/a/SKILL.md", "mine/SKILL.md"].into_iter()), "mine");
        assert_eq!(label_of(["a/SKILL.md", "b/SKILL.md"].into_iter()), "skills");
        assert_eq!(label_of(["SKILL.md"].into_iter()), "skills");
        assert_eq!(label_of([].into_iter()), "skills");
        assert_eq!(size_text(312.0), "312 bytes");
        assert_eq!(size_text(4_200.0), "4.2 kB");
        assert_eq!(size_text(1_300_000.0), "1.3 MB");
        assert_eq!(folder_of("mine/a/SKILL.md").as_deref(), Some("a"));
    }

    #[test]
    fn token_texts_follow_the_cards() {
        let set = read_skills(vec![
            SkillFile::new("a/SKILL.md", b"---\nname: a\ndescription: A\n---\nBody A".to_vec()),
            SkillFile::new("b/SKILL.md", b"no front matter".to_vec()),
            SkillFile::new("c/SKILL.md", b"---\nname: c\ndescription: C\n---\nBody C".to_vec()),
        ]);
        let t = texts(&set);
        assert_eq!(
            t,
            [
                "## Skills\n- a: A\n- c: C",
                "- a: A",
                "\n\n### Skill: a\n\nBody A",
                "- c: C",
                "\n\n### Skill: c\n\nBody C"
            ]
        );
    }
}
