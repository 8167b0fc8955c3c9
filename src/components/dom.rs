//! A small, non-generic DOM builder for large static results (the Compare
//! view's rows, the Checks tab's findings, a template's parts): one
//! function per element, no reactive closures, so these views cost the
//! first load a fraction of what the equivalent `view!` trees would (each
//! `view!` shape is its own generic code). Text always goes in as text
//! nodes: nothing here parses HTML.

use leptos::html;
use leptos::prelude::*;
use web_sys::Element;

use crate::browser;

/// An element under construction. Without a document (never in a page)
/// every call is a no-op.
pub struct E(Option<Element>);

/// A new `<tag>`.
pub fn el(tag: &str) -> E {
    E(browser::create_element(tag))
}

impl E {
    pub fn class(self, class: &str) -> E {
        if let Some(e) = &self.0 {
            e.set_class_name(class);
        }
        self
    }

    pub fn attr(self, name: &str, value: &str) -> E {
        if let Some(e) = &self.0 {
            let _ = e.set_attribute(name, value);
        }
        self
    }

    /// Sets the attribute when there is a value.
    pub fn attr_opt(self, name: &str, value: Option<String>) -> E {
        match value {
            Some(v) => self.attr(name, &v),
            None => self,
        }
    }

    /// Appends text (as a text node).
    pub fn text(self, text: &str) -> E {
        if let (Some(e), Some(t)) = (&self.0, browser::create_text_node(text)) {
            let _ = e.append_child(&t);
        }
        self
    }

    pub fn child(self, child: E) -> E {
        if let (Some(e), Some(c)) = (&self.0, child.0) {
            let _ = e.append_child(&c);
        }
        self
    }

    pub fn children(mut self, children: impl IntoIterator<Item = E>) -> E {
        for c in children {
            self = self.child(c);
        }
        self
    }

    /// A child element `<tag class>` holding `text`.
    pub fn leaf(self, tag: &str, class: &str, text: &str) -> E {
        self.child(el(tag).class(class).text(text))
    }

    pub fn element(self) -> Option<Element> {
        self.0
    }
}

/// A `<div class>` whose content is `content()`'s elements, built once when
/// mounted (the component is re-created for new content). What the div held
/// is removed first: when a reactive view re-creates the component, the
/// renderer may keep the same `<div>` and hand it to the new one.
#[component]
pub fn Static(
    class: &'static str,
    #[prop(optional)] testid: &'static str,
    content: Box<dyn FnOnce() -> Vec<E>>,
) -> impl IntoView {
    let node = NodeRef::<html::Div>::new();
    let content = StoredValue::new_local(Some(content));
    Effect::new(move |_| {
        if let Some(div) = node.get() {
            if let Some(f) = content.try_update_value(Option::take).flatten() {
                div.set_text_content(None);
                for e in f() {
                    if let Some(e) = e.element() {
                        let _ = div.append_child(&e);
                    }
                }
            }
        }
    });
    view! { <div class=class data-testid=(!testid.is_empty()).then_some(testid) node_ref=node></div> }
}
