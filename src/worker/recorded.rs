//! `recorded`: files of many model calls read in the engine, with
//! progress; one call asked for at a time (the engine keeps what it read).

use js_sys::{Array, Object};
use wasm_bindgen::JsValue;

pub use envelope::engine::recorded::{Call, Frequent, Input, Progress, ReadError, Reply, Row, Usage};
use envelope::engine::recorded::{Request, OP};

/// What a read is given: a file (sent to the engine as it is, read there in
/// slices), or pasted text.
#[derive(Clone, Debug)]
pub enum Given {
    File(web_sys::File),
    Text { name: String, text: String },
}

impl Given {
    pub fn name(&self) -> String {
        match self {
            Given::File(f) => f.name(),
            Given::Text { name, .. } => name.clone(),
        }
    }
}

/// Reads `given` in the engine as the recording `recording`; `on_progress`
/// is called with each progress message (the rows read since the last).
/// `Ok` is the engine's last answer (the last rows, errors, notes);
/// `Err` says why it could not answer (also when the read was cancelled:
/// [`cancel`]).
pub async fn read(
    recording: u64,
    given: &[Given],
    mut on_progress: impl FnMut(Result<Progress, String>) + 'static,
) -> Result<Reply, String> {
    let files = Array::new();
    let inputs: Vec<Input> = given
        .iter()
        .map(|g| match g {
            Given::File(f) => {
                files.push(f);
                Input { name: f.name(), text: None }
            }
            Given::Text { name, text } => Input { name: name.clone(), text: Some(text.clone()) },
        })
        .collect();
    let text = serde_json::to_string(&Request::Read { recording, inputs })
        .map_err(|e| format!("the request could not be written: {e}"))?;
    let message = Object::new();
    super::set(&message, "op", &JsValue::from_str(OP));
    super::set(&message, "request", &JsValue::from_str(&text));
    super::set(&message, "files", &files);
    let progress = move |p: JsValue| {
        on_progress(match p.as_string() {
            Some(t) => super::read_reply::<Progress>(OP, &t),
            None => Err("the engine's progress is not text".into()),
        })
    };
    let data = super::call_with_progress(message, Some(Box::new(progress))).await?;
    let reply = super::get(&data, "reply")
        .as_string()
        .ok_or_else(|| format!("the engine worker answered `{OP}` without a reply (is it older than the page?)"))?;
    super::read_reply(OP, &reply)
}

/// One call of the recording `recording`, in full.
pub async fn call(recording: u64, index: u32) -> Result<Reply, String> {
    super::call_json(OP, &Request::Call { recording, index }).await
}

/// What a cancelled read's `Err` says.
pub const CANCELLED: &str = "cancelled";

/// Cancels a read under way: the engine worker is ended (its synchronous
/// read cannot be stopped otherwise) and starts afresh on the next request.
pub fn cancel() {
    super::stop(CANCELLED);
}
