use crate::components::icons::{Ico, Icon};
use envelope::ProviderBlock;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::panel::Toggle;
use crate::components::rich::json_line_abbrev;

/// Characters of a block's type or tool name shown in the heading.
const HEAD_CHARS: usize = 120;

/// What a provider block is, by its type's ending: a server tool's call
/// (`server_tool_use`, `mcp_call`), its result (`web_search_tool_result`,
/// `…_output`), or something else (an item reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRole {
    Call,
    Result,
    Other,
}

impl BlockRole {
    pub fn of(block_type: &str) -> BlockRole {
        if block_type.ends_with("_use") || block_type.ends_with("_call") {
            BlockRole::Call
        } else if block_type.ends_with("_result") || block_type.ends_with("_output") {
            BlockRole::Result
        } else {
            BlockRole::Other
        }
    }

    fn class(self) -> &'static str {
        match self {
            BlockRole::Call => "pb-call",
            BlockRole::Result => "pb-result",
            BlockRole::Other => "pb-other",
        }
    }

    fn icon(self) -> Icon {
        match self {
            BlockRole::Call => Icon::Wrench,
            BlockRole::Result => Icon::List,
            BlockRole::Other => Icon::Braces,
        }
    }
}

/// `s` for a heading: its first [`HEAD_CHARS`] characters, combining-mark
/// runs collapsed.
fn head_text(s: &str) -> String {
    let mut out: String = s.chars().take(HEAD_CHARS).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    envelope::display::shown(&out).into_owned()
}

/// A provider's block with no segment of its own (a server tool's call or
/// result, an MCP call, …), kept verbatim: a card titled by its type and
/// tool, with its format, that unfolds to the block as JSON.
#[component]
pub fn ProviderBlockSegment(segment: ProviderBlock) -> impl IntoView {
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let block_type = segment.block_type().to_string();
    let role = BlockRole::of(&block_type);
    let title = if block_type.is_empty() { "(no type)".to_string() } else { head_text(&block_type) };
    let tool = segment.tool_name().map(head_text);
    let format = segment.format;
    let block = Value::Object(segment.block);
    view! {
        <div class=format!("seg seg-provider {}", role.class()) data-kind="provider_block" data-format=format.as_str()>
            <div class="panel" class:open=move || open.get()>
                <button type="button" class="panel-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                    <span class="chev" aria-hidden="true"><Ico icon=Icon::ChevronRight/></span>
                    <span class="panel-icon" aria-hidden="true"><Ico icon=role.icon()/></span>
                    <span class="panel-titles">
                        <span class="panel-title pb-type">{title}</span>
                        {tool.map(|t| view! { <span class="panel-sub pb-tool">{t}</span> })}
                    </span>
                    <span class="badge" title="Sent only to this request format">{format.label()}</span>
                </button>
                {move || open.get().then(|| {
                    let text = envelope::jsontext::pretty(&block);
                    let lines: Vec<AnyView> =
                        text.lines().map(|l| view! { {json_line_abbrev(l)}"\n" }.into_any()).collect();
                    view! {
                        <div class="panel-body">
                            <pre class="json pb-json" tabindex="0" role="region" aria-label="Provider block">{lines}</pre>
                        </div>
                    }
                })}
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::{head_text, BlockRole};

    #[test]
    fn calls_and_results_by_type() {
        for t in ["server_tool_use", "mcp_tool_use", "web_search_call", "mcp_call", "code_interpreter_call"] {
            assert_eq!(BlockRole::of(t), BlockRole::Call, "{t}");
        }
        for t in ["web_search_tool_result", "mcp_tool_result", "function_call_output", "local_shell_call_output"] {
            assert_eq!(BlockRole::of(t), BlockRole::Result, "{t}");
        }
        for t in ["item_reference", "", "container_upload"] {
            assert_eq!(BlockRole::of(t), BlockRole::Other, "{t}");
        }
    }

    #[test]
    fn headings_are_cut() {
        assert_eq!(head_text("mcp_call"), "mcp_call");
        let long = "é".repeat(200);
        assert_eq!(head_text(&long).chars().count(), 121);
        assert!(head_text(&long).ends_with('…'));
    }
}
