//! The export targets as one choice: what the CLI's `--format` and the app's
//! format picker offer.
//!
//! [`Target`] (names, file names, MIME types) is always built: the app's
//! picker needs it on its first screen. Rendering to any target but OpenAI
//! Chat needs the `providers` feature ([`render`]).

use super::params::Provider;
#[cfg(feature = "providers")]
use super::{
    anthropic, bedrock, contributions, curl, gemini, openai_chat, openai_responses, replay, to_pretty, Contributions,
    Notice,
};
#[cfg(feature = "providers")]
use crate::types::{Envelope, RequestFormat};

/// One export format. Serialised as its [`code`](Target::code) (the engine's
/// `export` request).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Target {
    /// OpenAI Chat Completions (§4; the default).
    #[serde(rename = "openai")]
    OpenaiChat,
    #[serde(rename = "responses")]
    OpenaiResponses,
    #[serde(rename = "anthropic")]
    Anthropic,
    /// A shell command that posts the OpenAI Chat request.
    #[serde(rename = "curl-openai")]
    CurlOpenai,
    /// A shell command that posts the Anthropic Messages request.
    #[serde(rename = "curl-anthropic")]
    CurlAnthropic,
    /// Gemini `generateContent` (the body; the model goes in the URL).
    #[serde(rename = "gemini")]
    Gemini,
    /// Amazon Bedrock Converse (the body; the model goes in the URL).
    #[serde(rename = "bedrock")]
    Bedrock,
    /// A shell command that posts the Gemini request.
    #[serde(rename = "curl-gemini")]
    CurlGemini,
}

impl Target {
    pub const ALL: [Target; 8] = [
        Target::OpenaiChat,
        Target::OpenaiResponses,
        Target::Anthropic,
        Target::Gemini,
        Target::Bedrock,
        Target::CurlOpenai,
        Target::CurlAnthropic,
        Target::CurlGemini,
    ];

    /// The CLI's `--format` value: `openai`, `responses`, `anthropic`,
    /// `gemini`, `bedrock`, `curl-openai`, `curl-anthropic`, `curl-gemini`.
    pub fn code(self) -> &'static str {
        match self {
            Target::OpenaiChat => "openai",
            Target::OpenaiResponses => "responses",
            Target::Anthropic => "anthropic",
            Target::CurlOpenai => "curl-openai",
            Target::CurlAnthropic => "curl-anthropic",
            Target::Gemini => "gemini",
            Target::Bedrock => "bedrock",
            Target::CurlGemini => "curl-gemini",
        }
    }

    /// The target with this [`code`](Target::code).
    pub fn from_code(code: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.code() == code)
    }

    /// What a picker shows.
    pub fn label(self) -> &'static str {
        match self {
            Target::OpenaiChat => "OpenAI Chat",
            Target::OpenaiResponses => "OpenAI Responses",
            Target::Anthropic => "Anthropic",
            Target::CurlOpenai => "cURL (OpenAI)",
            Target::CurlAnthropic => "cURL (Anthropic)",
            Target::Gemini => "Gemini",
            Target::Bedrock => "Bedrock Converse",
            Target::CurlGemini => "cURL (Gemini)",
        }
    }

    /// A download name for the export of `stem`: `chat.openai.json`,
    /// `chat.responses.json`, `chat.anthropic.json`, `chat.gemini.json`,
    /// `chat.bedrock.json`, `chat.openai.sh`, `chat.anthropic.sh`, `chat.gemini.sh`.
    pub fn file_name(self, stem: &str) -> String {
        match self {
            Target::CurlOpenai => format!("{stem}.openai.sh"),
            Target::CurlAnthropic => format!("{stem}.anthropic.sh"),
            Target::CurlGemini => format!("{stem}.gemini.sh"),
            t => format!("{stem}.{}.json", t.code()),
        }
    }

    /// The MIME type of the export text.
    pub fn mime_type(self) -> &'static str {
        match self {
            Target::CurlOpenai | Target::CurlAnthropic | Target::CurlGemini => "text/x-shellscript",
            _ => "application/json",
        }
    }

    /// The request format the target sends.
    pub fn provider(self) -> Provider {
        match self {
            Target::OpenaiChat | Target::CurlOpenai => Provider::OpenaiChat,
            Target::OpenaiResponses => Provider::OpenaiResponses,
            Target::Anthropic | Target::CurlAnthropic => Provider::Anthropic,
            Target::Gemini | Target::CurlGemini => Provider::Gemini,
            Target::Bedrock => Provider::Bedrock,
        }
    }
}

/// An export: its text (pretty JSON and a final newline, or a shell
/// command), and what did not carry over as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(feature = "providers")]
pub struct Exported {
    pub text: String,
    pub notices: Vec<Notice>,
}

/// The export of `envelope` to `target`. For [`Target::OpenaiChat`] the
/// text is [`super::openai_json`]'s, byte for byte. Gemini and Bedrock
/// bodies never name the model (it is in their URL): only the cURL command
/// for Gemini does.
#[cfg(feature = "providers")]
pub fn render(envelope: &Envelope, target: Target) -> Exported {
    render_with(envelope, &contributions(envelope), target)
}

/// [`render`] with the envelope's contributions already at hand.
#[cfg(feature = "providers")]
pub fn render_with(envelope: &Envelope, c: &Contributions, target: Target) -> Exported {
    let mut notices = Vec::new();
    let replayed = match (envelope.source, target.provider()) {
        (Some(RequestFormat::Openai), Provider::OpenaiChat) => {
            Some(replay::openai_chat::request(envelope, &mut notices))
        }
        (Some(RequestFormat::Responses), Provider::OpenaiResponses) => {
            Some(replay::openai_responses::request(envelope, &mut notices))
        }
        (Some(RequestFormat::Anthropic), Provider::Anthropic) => {
            Some(replay::anthropic::request(envelope, &mut notices))
        }
        (Some(RequestFormat::Gemini), Provider::Gemini) => Some(replay::gemini::request(envelope, &mut notices)),
        (Some(RequestFormat::Bedrock), Provider::Bedrock) => Some(replay::bedrock::request(envelope, &mut notices)),
        _ => None,
    };
    if replayed.is_none() {
        super::fidelity_notices(envelope, target.provider(), &mut notices);
    }
    let body = match replayed {
        Some(body) => body,
        None => match target.provider() {
            Provider::OpenaiChat => openai_chat::request(envelope, c, None, true, &mut notices),
            Provider::OpenaiResponses => openai_responses::request(envelope, c, &mut notices),
            Provider::Anthropic => anthropic::request(envelope, c, &mut notices),
            Provider::Gemini => gemini::request(envelope, c, &mut notices),
            Provider::Bedrock => bedrock::request(envelope, c, &mut notices),
        },
    };
    let text = match target {
        Target::CurlOpenai => curl::openai(&body),
        Target::CurlAnthropic => curl::anthropic(&body),
        Target::CurlGemini => curl::gemini(&body, super::named_model(envelope), &mut notices),
        _ => to_pretty(&body),
    };
    Exported { text, notices }
}
