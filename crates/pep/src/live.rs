//! `pep test --live`: send rendered provider requests to the providers (issue 23, D166–D167).
//!
//! One blocking HTTP client (`ureq`, rustls), a fixed number of worker threads taking jobs
//! from a shared queue, retries with exponential backoff and jitter that honour
//! `Retry-After`, and results in the order of the jobs. API keys are read from the
//! environment by [`LiveConfig::from_env`] (never from a document), sent only in a header,
//! never put in a URL, and masked in every error.
//!
//! Build a config with `LiveConfig { concurrency: 4, ..LiveConfig::from_env() }`; call
//! [`check`] to refuse a suite that cannot be sent (no key, Bedrock, no model) before
//! anything leaves the machine, then [`send_all`].

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use envelope::types::RequestFormat;
use serde_json::Value;

/// Official hosts, used when neither the config nor the environment overrides them.
pub const OPENAI_DEFAULT: &str = "https://api.openai.com";
pub const ANTHROPIC_DEFAULT: &str = "https://api.anthropic.com";
pub const GEMINI_DEFAULT: &str = "https://generativelanguage.googleapis.com";
/// The `anthropic-version` header sent with every Anthropic request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// The `anthropic-beta` header sent with a request carrying `output_format` (structured
/// outputs in beta; `output_config.format` needs none).
pub const ANTHROPIC_STRUCTURED_BETA: &str = "structured-outputs-2025-11-13";

/// A response body larger than this is an error, not a reply (a model's answer is far smaller).
const BODY_LIMIT: u64 = 32 * 1024 * 1024;
/// At most this much of an error body is shown by `Display`.
const SHOWN: usize = 600;

/// How the jobs are sent.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// Requests in flight at once (at least 1).
    pub concurrency: usize,
    /// Retries after the first attempt (0 = one attempt only).
    pub retries: u32,
    /// Base URL per provider: key `"openai"` (Chat and Responses), `"anthropic"`, `"gemini"`.
    /// Absent: the official host. A base ending in `/v1` (OpenAI, Anthropic) or `/v1beta`
    /// (Gemini) is not given that segment twice, so `OPENAI_BASE_URL=https://host/v1` works
    /// as it does with the providers' own SDKs.
    pub base_urls: BTreeMap<String, String>,
    /// Whole-request timeout (connect, send, read), per attempt.
    pub timeout: Duration,
    /// Write each successful reply's raw body to `DIR/output_<name>.json` ([`record`]).
    pub record: Option<PathBuf>,
    /// API keys by environment variable name (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
    /// `GEMINI_API_KEY`). [`LiveConfig::from_env`] fills them; nothing else reads the environment.
    pub keys: BTreeMap<String, String>,
    /// First retry waits about this long; each later one twice as long (with jitter).
    pub backoff: Duration,
    /// No single wait is longer than this, whatever `Retry-After` asks.
    pub max_wait: Duration,
}

impl Default for LiveConfig {
    /// No keys, official hosts, 4 at once, 3 retries, 120 s timeout, 1 s base backoff, 30 s cap.
    fn default() -> Self {
        LiveConfig {
            concurrency: 4,
            retries: 3,
            base_urls: BTreeMap::new(),
            timeout: Duration::from_secs(120),
            record: None,
            keys: BTreeMap::new(),
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(30),
        }
    }
}

impl LiveConfig {
    /// The defaults, with the keys and base URLs found in the environment
    /// (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`; `OPENAI_BASE_URL`,
    /// `ANTHROPIC_BASE_URL`, `GEMINI_BASE_URL`). Empty values count as absent.
    pub fn from_env() -> Self {
        let mut cfg = LiveConfig::default();
        for provider in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini] {
            if let Some(key) = env_nonempty(provider.key_var()) {
                cfg.keys.insert(provider.key_var().to_string(), key);
            }
            if let Some(base) = env_nonempty(provider.base_var()) {
                cfg.base_urls.insert(provider.name().to_string(), base);
            }
        }
        cfg
    }
}

fn env_nonempty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty())
}

/// One request to send: a provider request body as `pep export`/`pep render` makes it.
#[derive(Debug, Clone)]
pub struct LiveJob {
    /// The case name; the recorded file is `output_<name>.json`.
    pub name: String,
    pub format: RequestFormat,
    pub body: Value,
    /// The model: required for Gemini (it goes in the URL); for the others, put in the
    /// body when the body has no `model`.
    pub model: Option<String>,
}

/// A successful (2xx) reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveReply {
    pub status: u16,
    /// The raw response body.
    pub body: String,
    /// Attempts made (1 = no retry).
    pub attempts: u32,
}

/// Why a job got no reply. `Display` says what and where, and never shows an API key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveError {
    /// The key's environment variable is not set; nothing was sent.
    NoKey { var: &'static str },
    /// This format cannot be sent by `--live` (Bedrock needs AWS SigV4 signing: D166).
    Unsupported { format: &'static str, reason: String },
    /// Gemini takes the model in the URL and the job has none (or an unusable one).
    NoModel { format: &'static str, reason: String },
    /// The base URL is not an `http://` or `https://` URL.
    BadBaseUrl { provider: &'static str, url: String },
    /// The provider answered with a status that is not 2xx (after any retries).
    /// `url` is where it was sent (it never holds a key).
    Http { status: u16, body: String, attempts: u32, url: String },
    /// No answer: connection, TLS, timeout, or an unreadable body (after any retries).
    Transport { message: String, attempts: u32 },
    /// The reply came but could not be written to the record folder.
    Record { path: PathBuf, message: String },
}

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiveError::NoKey { var } => {
                write!(f, "no API key: set {var} to send this request (nothing was sent)")
            }
            LiveError::Unsupported { format, reason } => {
                write!(f, "--live cannot send a {format} request: {reason}")
            }
            LiveError::NoModel { format, reason } => write!(f, "{format} request: {reason}"),
            LiveError::BadBaseUrl { provider, url } => {
                write!(f, "base URL for {provider} is not an http:// or https:// URL: {}", shorten(url, 120))
            }
            LiveError::Http { status, body, attempts, url } => {
                write!(f, "HTTP {status} from {url}")?;
                if *attempts > 1 {
                    write!(f, " after {attempts} attempts")?;
                }
                let body = body.trim();
                if !body.is_empty() {
                    write!(f, ": {}", shorten(body, SHOWN))?;
                }
                Ok(())
            }
            LiveError::Transport { message, attempts } => {
                write!(f, "request failed")?;
                if *attempts > 1 {
                    write!(f, " after {attempts} attempts")?;
                }
                write!(f, ": {message}")
            }
            LiveError::Record { path, message } => {
                write!(f, "cannot record the reply to {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for LiveError {}

/// At most `max` characters, then "…".
fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Provider {
    fn of(format: RequestFormat) -> Option<Provider> {
        match format {
            RequestFormat::Openai | RequestFormat::Responses => Some(Provider::OpenAi),
            RequestFormat::Anthropic => Some(Provider::Anthropic),
            RequestFormat::Gemini => Some(Provider::Gemini),
            RequestFormat::Bedrock => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }
    fn key_var(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_API_KEY",
            Provider::Anthropic => "ANTHROPIC_API_KEY",
            Provider::Gemini => "GEMINI_API_KEY",
        }
    }
    fn base_var(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_BASE_URL",
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::Gemini => "GEMINI_BASE_URL",
        }
    }
    fn default_base(self) -> &'static str {
        match self {
            Provider::OpenAi => OPENAI_DEFAULT,
            Provider::Anthropic => ANTHROPIC_DEFAULT,
            Provider::Gemini => GEMINI_DEFAULT,
        }
    }
}

/// Everything needed to send one job, worked out before anything is sent.
struct Prepared {
    url: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    key: String,
    loopback: bool,
}

/// The first job that cannot be sent (no key, Bedrock, a Gemini job without a model,
/// a streamed request, a bad base URL), checked without sending anything.
pub fn check(jobs: &[LiveJob], cfg: &LiveConfig) -> Result<(), LiveError> {
    jobs.iter().try_for_each(|job| prepare(job, cfg).map(|_| ()))
}

fn prepare(job: &LiveJob, cfg: &LiveConfig) -> Result<Prepared, LiveError> {
    let format = job.format.as_str();
    let Some(provider) = Provider::of(job.format) else {
        return Err(LiveError::Unsupported {
            format,
            reason: "Bedrock requests are signed with AWS SigV4 credentials, which pep does not \
                     handle; record the replies with your own tooling and use --outputs DIR"
                .to_string(),
        });
    };
    let var = provider.key_var();
    let key = match cfg.keys.get(var) {
        Some(k) if !k.trim().is_empty() => k.trim().to_string(),
        _ => return Err(LiveError::NoKey { var }),
    };
    if key.chars().any(|c| c.is_control()) {
        return Err(LiveError::Unsupported {
            format,
            reason: format!("{var} holds a control character (a header cannot carry it)"),
        });
    }
    let raw_base = cfg
        .base_urls
        .get(provider.name())
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .unwrap_or(provider.default_base());
    let base = raw_base.trim_end_matches('/');
    let loopback = match host_of(base) {
        Some(host) => is_loopback(host),
        None => return Err(LiveError::BadBaseUrl { provider: provider.name(), url: raw_base.to_string() }),
    };

    let mut body = job.body.clone();
    if !body.is_object() {
        return Err(LiveError::Unsupported { format, reason: "the request body is not a JSON object".to_string() });
    }
    if provider != Provider::Gemini {
        if body.get("stream").and_then(Value::as_bool) == Some(true) {
            return Err(LiveError::Unsupported {
                format,
                reason: "the request asks for a stream (\"stream\": true); --live reads one JSON \
                         reply, so set \"stream\" to false in the prompt under test"
                    .to_string(),
            });
        }
        if let (Some(model), Some(obj)) = (&job.model, body.as_object_mut()) {
            if !obj.contains_key("model") {
                obj.insert("model".to_string(), Value::String(model.clone()));
            }
        }
    }

    let (url, mut headers) = match (provider, job.format) {
        (Provider::OpenAi, RequestFormat::Responses) => {
            (join(base, "/v1", "/responses"), vec![("authorization", format!("Bearer {key}"))])
        }
        (Provider::OpenAi, _) => {
            (join(base, "/v1", "/chat/completions"), vec![("authorization", format!("Bearer {key}"))])
        }
        (Provider::Anthropic, _) => (
            join(base, "/v1", "/messages"),
            vec![("x-api-key", key.clone()), ("anthropic-version", ANTHROPIC_VERSION.to_string())],
        ),
        (Provider::Gemini, _) => {
            let model = gemini_model(job)?;
            (join(base, "/v1beta", &format!("/models/{model}:generateContent")), vec![("x-goog-api-key", key.clone())])
        }
    };
    if provider == Provider::Anthropic && body.get("output_format").is_some_and(|f| !f.is_null()) {
        headers.push(("anthropic-beta", ANTHROPIC_STRUCTURED_BETA.to_string()));
    }
    headers.push(("content-type", "application/json".to_string()));
    let body = serde_json::to_vec(&body).map_err(|e| LiveError::Unsupported {
        format,
        reason: format!("the request body cannot be written as JSON: {e}"),
    })?;
    Ok(Prepared { url, headers, body, key, loopback })
}

/// `base` + `prefix` + `rest`, without doubling a `prefix` the base already ends with.
fn join(base: &str, prefix: &str, rest: &str) -> String {
    if base.ends_with(prefix) {
        format!("{base}{rest}")
    } else {
        format!("{base}{prefix}{rest}")
    }
}

/// The model for the URL path: `models/` dropped, percent-encoded outside the unreserved set.
fn gemini_model(job: &LiveJob) -> Result<String, LiveError> {
    let format = job.format.as_str();
    let model = job
        .model
        .as_deref()
        .or_else(|| job.body.get("model").and_then(Value::as_str))
        .map(str::trim)
        .map(|m| m.strip_prefix("models/").unwrap_or(m))
        .filter(|m| !m.is_empty())
        .ok_or_else(|| LiveError::NoModel {
            format,
            reason: "Gemini takes the model in the URL and none is given (set the envelope's \
                     model or the suite's model)"
                .to_string(),
        })?;
    let mut out = String::with_capacity(model.len());
    for b in model.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Ok(out)
}

/// The host of an `http://` or `https://` URL (no userinfo), or `None`.
fn host_of(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"))?;
    let authority = rest.split(['/', '?', '#']).next()?;
    if authority.is_empty() || authority.contains('@') || authority.chars().any(char::is_whitespace) {
        return None;
    }
    let host =
        if let Some(v6) = authority.strip_prefix('[') { v6.split(']').next()? } else { authority.split(':').next()? };
    (!host.is_empty()).then_some(host)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Sends every job, at most `cfg.concurrency` at once, and answers in the order of `jobs`.
/// A job that cannot be prepared (see [`check`]) gets its error without any request made.
pub fn send_all(jobs: Vec<LiveJob>, cfg: &LiveConfig) -> Vec<Result<LiveReply, LiveError>> {
    let n = jobs.len();
    let results: Mutex<Vec<Option<Result<LiveReply, LiveError>>>> = Mutex::new((0..n).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let agents = Agents::new(cfg);
    let workers = cfg.concurrency.max(1).min(n.max(1));
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let result = send_one(job, cfg, &agents);
                if let Ok(mut r) = results.lock() {
                    r[i] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(LiveError::Transport {
                    message: "the worker sending this request stopped".to_string(),
                    attempts: 0,
                })
            })
        })
        .collect()
}

struct Agents {
    /// Honours HTTP(S)_PROXY / NO_PROXY.
    remote: ureq::Agent,
    /// Loopback bases never go through a proxy.
    local: ureq::Agent,
}

impl Agents {
    fn new(cfg: &LiveConfig) -> Agents {
        let build = |proxy: bool| {
            let mut b = ureq::Agent::config_builder()
                .timeout_global(Some(cfg.timeout))
                .http_status_as_error(false)
                .max_redirects(0)
                .user_agent(concat!("pep/", env!("CARGO_PKG_VERSION")));
            if !proxy {
                b = b.proxy(None);
            }
            b.build().new_agent()
        };
        Agents { remote: build(true), local: build(false) }
    }
}

fn send_one(job: &LiveJob, cfg: &LiveConfig, agents: &Agents) -> Result<LiveReply, LiveError> {
    let prepared = prepare(job, cfg)?;
    let agent = if prepared.loopback { &agents.local } else { &agents.remote };
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let outcome = attempt_once(agent, &prepared);
        let last = attempt > cfg.retries;
        match outcome {
            Attempt::Done { status, body } => {
                let reply = LiveReply { status, body, attempts: attempt };
                if let Some(dir) = &cfg.record {
                    record(dir, &job.name, &reply)?;
                }
                return Ok(reply);
            }
            Attempt::Failed { status, body, retry_after, retryable } => {
                if last || !retryable {
                    return Err(LiveError::Http {
                        status,
                        body: mask(&body, &prepared.key),
                        attempts: attempt,
                        url: prepared.url.clone(),
                    });
                }
                std::thread::sleep(wait(cfg, attempt, retry_after));
            }
            Attempt::Transport(message) => {
                if last {
                    return Err(LiveError::Transport { message: mask(&message, &prepared.key), attempts: attempt });
                }
                std::thread::sleep(wait(cfg, attempt, None));
            }
        }
    }
}

enum Attempt {
    Done { status: u16, body: String },
    Failed { status: u16, body: String, retry_after: Option<Duration>, retryable: bool },
    Transport(String),
}

fn attempt_once(agent: &ureq::Agent, p: &Prepared) -> Attempt {
    let mut req = agent.post(&p.url);
    for (name, value) in &p.headers {
        req = req.header(*name, value);
    }
    let mut resp = match req.send(&p.body[..]) {
        Ok(r) => r,
        Err(e) => return Attempt::Transport(format!("POST {}: {e}", p.url)),
    };
    let status = resp.status().as_u16();
    let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let retry_after = header("retry-after-ms")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| Duration::from_secs_f64((ms / 1000.0).min(86_400.0)))
        .or_else(|| header("retry-after").and_then(|v| retry_after(&v, SystemTime::now())));
    let should_retry = header("x-should-retry").map(|v| v.trim().eq_ignore_ascii_case("true"));
    let body = match resp.body_mut().with_config().limit(BODY_LIMIT).read_to_string() {
        Ok(b) => b,
        Err(e) => return Attempt::Transport(format!("POST {}: reading the reply (HTTP {status}): {e}", p.url)),
    };
    if (200..300).contains(&status) {
        return Attempt::Done { status, body };
    }
    let retryable = should_retry.unwrap_or(matches!(status, 408 | 409 | 429) || (500..600).contains(&status));
    Attempt::Failed { status, body, retry_after, retryable }
}

/// `Retry-After`: delay-seconds or an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let at = http_date(v)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate.
fn http_date(v: &str) -> Option<u64> {
    let parts: Vec<&str> = v.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts[..] else { return None };
    let day: u64 = day.parse().ok()?;
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .iter()
        .position(|m| *m == month)? as u64
        + 1;
    let year: u64 = year.parse().ok()?;
    let hms: Vec<u64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, s] = hms[..] else { return None };
    if !(1..=31).contains(&day) || year < 1970 || h > 23 || m > 59 || s > 60 {
        return None;
    }
    // Days from the civil date (proleptic Gregorian).
    let (y, mo) = if month <= 2 { (year - 1, month + 9) } else { (year, month - 3) };
    let era = y / 400;
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + m * 60 + s)
}

/// The wait before retry number `attempt` (1-based): `Retry-After` when given, else
/// `backoff · 2^(attempt-1)` with full jitter over its upper half; never above `max_wait`.
fn wait(cfg: &LiveConfig, attempt: u32, retry_after: Option<Duration>) -> Duration {
    let d = match retry_after {
        Some(d) => d,
        None => {
            let exp = cfg.backoff.saturating_mul(1u32 << (attempt - 1).min(20));
            let half = exp / 2;
            half + half.mul_f64(jitter())
        }
    };
    d.min(cfg.max_wait)
}

/// A number in 0..1, different each call (std's per-process random hasher keys; no crate).
fn jitter() -> f64 {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_usize(COUNTER.fetch_add(1, Ordering::Relaxed));
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// `text` with every occurrence of the key replaced by `[API key]`.
fn mask(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_string();
    }
    text.replace(key, "[API key]")
}

/// Writes `reply.body` to `dir/output_<name>.json` (a temporary file renamed into place),
/// creating `dir`. A name that is not a plain file-name part is refused.
pub fn record(dir: &Path, name: &str, reply: &LiveReply) -> Result<PathBuf, LiveError> {
    let path = dir.join(format!("output_{name}.json"));
    let err = |message: String| LiveError::Record { path: path.clone(), message };
    if name.is_empty()
        || name == "."
        || name.contains("..")
        || name.chars().any(|c| matches!(c, '/' | '\\' | ':') || c.is_control())
    {
        return Err(err(format!("the case name {name:?} is not usable in a file name")));
    }
    std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
    let tmp = dir.join(format!(".output_{name}.json.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, reply.body.as_bytes()).and_then(|()| std::fs::rename(&tmp, &path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e.to_string()));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_date_parses_imf_fixdate() {
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 UTC"), None);
        assert_eq!(http_date("garbage"), None);
        let now = UNIX_EPOCH + Duration::from_secs(784_111_770);
        assert_eq!(retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(retry_after("-1", now), None);
    }

    #[test]
    fn waits_grow_and_are_capped() {
        let cfg = LiveConfig {
            backoff: Duration::from_millis(100),
            max_wait: Duration::from_millis(350),
            ..LiveConfig::default()
        };
        for _ in 0..20 {
            let w1 = wait(&cfg, 1, None);
            assert!(w1 >= Duration::from_millis(50) && w1 <= Duration::from_millis(100), "{w1:?}");
            let w2 = wait(&cfg, 2, None);
            assert!(w2 >= Duration::from_millis(100) && w2 <= Duration::from_millis(200), "{w2:?}");
            assert!(wait(&cfg, 9, None) <= Duration::from_millis(350));
        }
        assert_eq!(wait(&cfg, 1, Some(Duration::from_secs(60))), Duration::from_millis(350));
    }

    #[test]
    fn base_urls_join_without_doubling() {
        assert_eq!(join("https://h/v1", "/v1", "/responses"), "https://h/v1/responses");
        assert_eq!(join("https://h", "/v1", "/responses"), "https://h/v1/responses");
        assert_eq!(host_of("http://127.0.0.1:8080/x"), Some("127.0.0.1"));
        assert_eq!(host_of("http://[::1]:80"), Some("::1"));
        assert_eq!(host_of("http://user:pw@h"), None);
        assert_eq!(host_of("ftp://h"), None);
        assert!(is_loopback("localhost") && is_loopback("::1") && !is_loopback("example.com"));
    }

    #[test]
    fn gemini_model_is_encoded_for_the_path() {
        let job = |m: &str| LiveJob {
            name: "a".into(),
            format: RequestFormat::Gemini,
            body: serde_json::json!({}),
            model: Some(m.into()),
        };
        assert_eq!(gemini_model(&job("models/gemini-2.5-flash")).unwrap(), "gemini-2.5-flash");
        assert_eq!(gemini_model(&job("../x?y")).unwrap(), "..%2Fx%3Fy");
        assert!(matches!(gemini_model(&job(" ")), Err(LiveError::NoModel { .. })));
    }
}
