//! `pep test --live` (crates/pep/src/live.rs) against loopback servers that speak each
//! provider's wire format. Nothing here leaves 127.0.0.1.

#[allow(unused)]
#[path = "../src/live.rs"]
mod live;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use envelope::types::RequestFormat;
use live::{LiveConfig, LiveError, LiveJob};
use serde_json::{json, Value};

/// One request as the server read it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    /// Header names lower-cased.
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the request body is JSON")
    }
}

/// What the handler answers: status, extra headers, body.
type Answer = (u16, Vec<(&'static str, String)>, String);

#[derive(Default)]
struct Stats {
    connections: AtomicUsize,
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
}

struct Server {
    base: String,
    stats: Arc<Stats>,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.stats.seen.lock().unwrap().clone()
    }
    fn requests(&self) -> usize {
        self.stats.requests.load(Ordering::SeqCst)
    }
    fn connections(&self) -> usize {
        self.stats.connections.load(Ordering::SeqCst)
    }
}

/// A loopback HTTP/1.1 server: one thread per connection, `Connection: close` on every
/// answer. `handler` gets the request and its 0-based number.
fn serve<F>(handler: F) -> Server
where
    F: Fn(&Seen, usize) -> Answer + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stats = Arc::new(Stats::default());
    let handler = Arc::new(handler);
    let st = stats.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            st.connections.fetch_add(1, Ordering::SeqCst);
            let st = st.clone();
            let handler = handler.clone();
            std::thread::spawn(move || {
                let _ = handle(stream, &st, &*handler);
            });
        }
    });
    Server { base, stats }
}

fn handle<F>(stream: TcpStream, st: &Stats, handler: &F) -> std::io::Result<()>
where
    F: Fn(&Seen, usize) -> Answer,
{
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    let seen = Seen { method, target, headers, body };

    let n = st.requests.fetch_add(1, Ordering::SeqCst);
    let now = st.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    st.max_in_flight.fetch_max(now, Ordering::SeqCst);
    st.seen.lock().unwrap().push(seen.clone());
    let (status, extra, body) = handler(&seen, n);
    st.in_flight.fetch_sub(1, Ordering::SeqCst);

    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

const OPENAI_KEY: &str = "sk-test-openai-0123456789abcdef";
const ANTHROPIC_KEY: &str = "sk-ant-test-0123456789abcdef";
const GEMINI_KEY: &str = "AIza-test-0123456789abcdef";

/// Fast retries, all three keys, every provider at `base`.
fn cfg(base: &str) -> LiveConfig {
    let mut c = LiveConfig {
        concurrency: 4,
        retries: 3,
        timeout: Duration::from_secs(5),
        backoff: Duration::from_millis(5),
        max_wait: Duration::from_secs(3),
        ..LiveConfig::default()
    };
    for p in ["openai", "anthropic", "gemini"] {
        c.base_urls.insert(p.to_string(), base.to_string());
    }
    c.keys.insert("OPENAI_API_KEY".into(), OPENAI_KEY.into());
    c.keys.insert("ANTHROPIC_API_KEY".into(), ANTHROPIC_KEY.into());
    c.keys.insert("GEMINI_API_KEY".into(), GEMINI_KEY.into());
    c
}

fn chat_job(name: &str) -> LiveJob {
    LiveJob {
        name: name.to_string(),
        format: RequestFormat::Openai,
        body: json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "Answer in JSON."},
                {"role": "user", "content": format!("case {name}: ü ✓ \"quoted\"")}
            ],
            "response_format": {"type": "json_object"},
            "temperature": 0
        }),
        model: None,
    }
}

const CHAT_REPLY: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1733000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"message":{"role":"assistant","content":"{\"status\":\"ok\"}","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}"#;

#[test]
fn openai_chat_is_sent_with_bearer_and_body_intact() {
    let server = serve(|_, _| (200, vec![], CHAT_REPLY.to_string()));
    let job = chat_job("a");
    let sent = job.body.clone();
    let out = live::send_all(vec![job], &cfg(&server.base));
    let reply = out[0].as_ref().expect("a reply");
    assert_eq!((reply.status, reply.attempts), (200, 1));
    assert_eq!(reply.body, CHAT_REPLY);
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    let s = &seen[0];
    assert_eq!(s.method, "POST");
    assert_eq!(s.target, "/v1/chat/completions");
    assert_eq!(s.header("authorization"), Some(format!("Bearer {OPENAI_KEY}").as_str()));
    assert_eq!(s.header("content-type"), Some("application/json"));
    assert_eq!(s.header("x-api-key"), None);
    assert_eq!(s.json(), sent);
}

#[test]
fn openai_responses_base_ending_in_v1_is_not_doubled_and_model_is_added() {
    let reply = r#"{"id":"resp_1","object":"response","status":"completed","model":"gpt-4.1","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"{\"a\":1}","annotations":[]}]}],"usage":{"input_tokens":10,"output_tokens":4,"total_tokens":14}}"#;
    let server = serve(move |_, _| (200, vec![], reply.to_string()));
    let mut c = cfg(&server.base);
    c.base_urls.insert("openai".into(), format!("{}/v1/", server.base));
    let job = LiveJob {
        name: "r".into(),
        format: RequestFormat::Responses,
        body: json!({"input": "Say {\"a\":1}", "text": {"format": {"type": "json_object"}}}),
        model: Some("gpt-4.1".into()),
    };
    let out = live::send_all(vec![job], &c);
    assert_eq!(out[0].as_ref().unwrap().body, reply);
    let s = &server.seen()[0];
    assert_eq!(s.target, "/v1/responses");
    assert_eq!(s.header("authorization"), Some(format!("Bearer {OPENAI_KEY}").as_str()));
    assert_eq!(
        s.json(),
        json!({"input": "Say {\"a\":1}", "text": {"format": {"type": "json_object"}}, "model": "gpt-4.1"})
    );
}

#[test]
fn anthropic_messages_use_x_api_key_and_version() {
    let reply = r#"{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"{\"ok\":true}"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":6}}"#;
    let server = serve(move |_, _| (200, vec![], reply.to_string()));
    let body = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Answer in JSON.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    });
    let job = LiveJob {
        name: "m".into(),
        format: RequestFormat::Anthropic,
        body: body.clone(),
        model: Some("ignored-because-body-has-one".into()),
    };
    let out = live::send_all(vec![job], &cfg(&server.base));
    assert_eq!(out[0].as_ref().unwrap().body, reply);
    let s = &server.seen()[0];
    assert_eq!(s.target, "/v1/messages");
    assert_eq!(s.header("x-api-key"), Some(ANTHROPIC_KEY));
    assert_eq!(s.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(s.header("authorization"), None);
    assert_eq!(s.header("content-type"), Some("application/json"));
    assert_eq!(s.json(), body);
    assert_eq!(s.header("anthropic-beta"), None);

    // Structured outputs in beta (`output_format`) need their beta header.
    let schema = json!({"type": "json_schema", "schema": {"type": "object"}});
    let mut beta = body.clone();
    beta["output_format"] = schema.clone();
    let mut ga = body.clone();
    ga["output_config"] = json!({"format": schema});
    let jobs = [beta, ga].map(|body| LiveJob { name: "m".into(), format: RequestFormat::Anthropic, body, model: None });
    let out = live::send_all(jobs.to_vec(), &cfg(&server.base));
    assert!(out.iter().all(Result::is_ok));
    let seen = server.seen();
    let beta_of = |marker: &str| {
        seen.iter()
            .find(|s| s.json().get(marker).is_some())
            .and_then(|s| s.header("anthropic-beta").map(str::to_string))
    };
    assert_eq!(beta_of("output_format").as_deref(), Some("structured-outputs-2025-11-13"));
    assert_eq!(beta_of("output_config"), None);
}

#[test]
fn gemini_model_goes_in_the_path_and_key_in_a_header_never_the_url() {
    let reply = r#"{"candidates":[{"content":{"parts":[{"text":"{\"ok\":true}"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":8,"candidatesTokenCount":5,"totalTokenCount":13},"modelVersion":"gemini-2.5-flash"}"#;
    let server = serve(move |_, _| (200, vec![], reply.to_string()));
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"responseMimeType": "application/json"}
    });
    let job = LiveJob {
        name: "g".into(),
        format: RequestFormat::Gemini,
        body: body.clone(),
        model: Some("models/gemini-2.5-flash".into()),
    };
    let out = live::send_all(vec![job], &cfg(&server.base));
    assert_eq!(out[0].as_ref().unwrap().body, reply);
    let s = &server.seen()[0];
    assert_eq!(s.target, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert!(!s.target.contains(GEMINI_KEY) && !s.target.contains("key="));
    assert_eq!(s.header("x-goog-api-key"), Some(GEMINI_KEY));
    assert_eq!(s.header("authorization"), None);
    assert_eq!(s.json(), body, "no model is added to a Gemini body");

    let no_model = LiveJob { model: None, ..chat_job("x") };
    let no_model = LiveJob { format: RequestFormat::Gemini, body: json!({"contents": []}), ..no_model };
    let err = live::send_all(vec![no_model], &cfg(&server.base)).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::NoModel { .. }), "{err:?}");
    assert_eq!(server.requests(), 1, "nothing sent without a model");
}

#[test]
fn a_429_with_retry_after_is_waited_for_then_retried() {
    let server = serve(|_, n| {
        if n == 0 {
            (
                429,
                vec![("retry-after", "1".to_string())],
                r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#
                    .to_string(),
            )
        } else {
            (200, vec![], CHAT_REPLY.to_string())
        }
    });
    let start = Instant::now();
    let out = live::send_all(vec![chat_job("a")], &cfg(&server.base));
    let took = start.elapsed();
    let reply = out[0].as_ref().expect("success on the second attempt");
    assert_eq!(reply.attempts, 2);
    assert_eq!(server.requests(), 2);
    assert!(took >= Duration::from_millis(950), "Retry-After: 1 honoured, waited {took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn retry_after_is_capped_by_max_wait() {
    let server = serve(|_, n| {
        if n == 0 {
            (503, vec![("retry-after", "3600".to_string())], "{}".to_string())
        } else {
            (200, vec![], CHAT_REPLY.to_string())
        }
    });
    let mut c = cfg(&server.base);
    c.max_wait = Duration::from_millis(100);
    let start = Instant::now();
    let out = live::send_all(vec![chat_job("a")], &c);
    assert_eq!(out[0].as_ref().unwrap().attempts, 2);
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

#[test]
fn a_500_twice_then_success_and_retries_run_out() {
    let server = serve(|_, n| {
        if n < 2 {
            (500, vec![], r#"{"error":{"message":"internal"}}"#.to_string())
        } else {
            (200, vec![], CHAT_REPLY.to_string())
        }
    });
    let out = live::send_all(vec![chat_job("a")], &cfg(&server.base));
    assert_eq!(out[0].as_ref().unwrap().attempts, 3);
    assert_eq!(server.requests(), 3);

    let server = serve(|_, _| {
        (529, vec![], r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.to_string())
    });
    let mut c = cfg(&server.base);
    c.retries = 1;
    let err = live::send_all(vec![chat_job("a")], &c).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::Http { status: 529, attempts: 2, .. }), "{err:?}");
    assert_eq!(server.requests(), 2);
    let shown = err.to_string();
    assert!(
        shown.contains(&format!("HTTP 529 from {}/v1/chat/completions after 2 attempts: ", server.base)),
        "{shown}"
    );
    assert!(shown.contains("Overloaded"), "{shown}");
}

#[test]
fn a_400_is_not_retried_nor_a_500_the_server_says_not_to_retry() {
    let server = serve(|_, _| {
        (
            400,
            vec![],
            r#"{"error":{"message":"Unrecognized request argument supplied: foo","type":"invalid_request_error"}}"#
                .to_string(),
        )
    });
    let err = live::send_all(vec![chat_job("a")], &cfg(&server.base)).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::Http { status: 400, attempts: 1, .. }), "{err:?}");
    assert!(err.to_string().contains("Unrecognized request argument"), "{err}");
    assert_eq!(server.requests(), 1);

    let server = serve(|_, _| (500, vec![("x-should-retry", "false".to_string())], "{}".to_string()));
    let err = live::send_all(vec![chat_job("a")], &cfg(&server.base)).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::Http { status: 500, attempts: 1, .. }), "{err:?}");
    assert_eq!(server.requests(), 1);
}

#[test]
fn concurrency_is_bounded_and_results_keep_job_order() {
    let server = serve(|seen, n| {
        // Later requests answer sooner, so completion order differs from job order.
        std::thread::sleep(Duration::from_millis(200u64.saturating_sub(15 * n as u64)));
        let case = seen.json()["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        (200, vec![], json!({"echo": case}).to_string())
    });
    let mut c = cfg(&server.base);
    c.concurrency = 3;
    let jobs: Vec<LiveJob> = (0..9).map(|i| chat_job(&format!("c{i}"))).collect();
    let out = live::send_all(jobs, &c);
    assert_eq!(out.len(), 9);
    for (i, r) in out.iter().enumerate() {
        let body: Value = serde_json::from_str(&r.as_ref().unwrap().body).unwrap();
        assert!(body["echo"].as_str().unwrap().starts_with(&format!("case c{i}:")), "{i}: {body}");
    }
    assert_eq!(server.requests(), 9);
    assert_eq!(server.stats.max_in_flight.load(Ordering::SeqCst), 3, "3 at once, never more");
}

#[test]
fn a_missing_key_is_reported_before_any_connection() {
    let server = serve(|_, _| (200, vec![], CHAT_REPLY.to_string()));
    let mut c = cfg(&server.base);
    c.keys.remove("ANTHROPIC_API_KEY");
    c.keys.insert("OPENAI_API_KEY".into(), "  ".into());
    let jobs = vec![
        chat_job("a"),
        LiveJob {
            format: RequestFormat::Anthropic,
            body: json!({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": []}),
            ..chat_job("b")
        },
    ];
    assert_eq!(live::check(&jobs, &c), Err(LiveError::NoKey { var: "OPENAI_API_KEY" }));
    let out = live::send_all(jobs, &c);
    assert_eq!(out[0], Err(LiveError::NoKey { var: "OPENAI_API_KEY" }));
    assert_eq!(out[1], Err(LiveError::NoKey { var: "ANTHROPIC_API_KEY" }));
    assert!(out[1].as_ref().unwrap_err().to_string().contains("set ANTHROPIC_API_KEY"));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(server.connections(), 0, "no connection was made");
}

#[test]
fn bedrock_and_streamed_requests_are_refused_without_sending() {
    let server = serve(|_, _| (200, vec![], "{}".to_string()));
    let c = cfg(&server.base);
    let bedrock = LiveJob {
        format: RequestFormat::Bedrock,
        body: json!({"messages": [{"role": "user", "content": [{"text": "hi"}]}]}),
        model: Some("anthropic.claude-3-haiku-20240307-v1:0".into()),
        ..chat_job("b")
    };
    let mut streamed = chat_job("s");
    streamed.body["stream"] = json!(true);
    let out = live::send_all(vec![bedrock, streamed], &c);
    let e0 = out[0].as_ref().unwrap_err();
    assert!(matches!(e0, LiveError::Unsupported { format: "bedrock", .. }), "{e0:?}");
    assert!(e0.to_string().contains("SigV4"), "{e0}");
    let e1 = out[1].as_ref().unwrap_err();
    assert!(e1.to_string().contains("\"stream\": true"), "{e1}");
    assert_eq!(server.connections(), 0);

    let mut bad = c.clone();
    bad.base_urls.insert("openai".into(), "file:///etc/passwd".into());
    let err = live::check(&[chat_job("a")], &bad).unwrap_err();
    assert!(matches!(err, LiveError::BadBaseUrl { provider: "openai", .. }), "{err:?}");
}

#[test]
fn a_key_echoed_by_the_provider_is_masked_in_errors() {
    let server = serve(|seen, _| {
        let auth = seen.header("authorization").unwrap_or_default().to_string();
        let key = auth.trim_start_matches("Bearer ");
        (
            401,
            vec![],
            json!({"error": {"message": format!("Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."), "type": "invalid_request_error", "code": "invalid_api_key"}}).to_string(),
        )
    });
    let err = live::send_all(vec![chat_job("a")], &cfg(&server.base)).remove(0).unwrap_err();
    let LiveError::Http { status, body, .. } = &err else { panic!("{err:?}") };
    assert_eq!(*status, 401);
    assert!(!body.contains(OPENAI_KEY), "{body}");
    assert!(body.contains("Incorrect API key provided: [API key]."), "{body}");
    assert!(!err.to_string().contains(OPENAI_KEY));
    assert!(!format!("{err:?}").contains(OPENAI_KEY));
}

#[test]
fn transport_errors_are_retried_then_reported() {
    // A port with nothing listening.
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut c = cfg(&format!("http://127.0.0.1:{port}"));
    c.retries = 2;
    let err = live::send_all(vec![chat_job("a")], &c).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::Transport { attempts: 3, .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "request failed after 3 attempts: POST http://127.0.0.1:{port}/v1/chat/completions: "
        )),
        "{err}"
    );

    // A server slower than the timeout.
    let server = serve(|_, _| {
        std::thread::sleep(Duration::from_millis(800));
        (200, vec![], CHAT_REPLY.to_string())
    });
    let mut c = cfg(&server.base);
    c.retries = 0;
    c.timeout = Duration::from_millis(200);
    let start = Instant::now();
    let err = live::send_all(vec![chat_job("a")], &c).remove(0).unwrap_err();
    assert!(matches!(err, LiveError::Transport { attempts: 1, .. }), "{err:?}");
    assert!(start.elapsed() < Duration::from_millis(700), "{:?}", start.elapsed());
}

#[test]
fn record_writes_each_successful_body_and_nothing_else() {
    let dir = std::env::temp_dir().join(format!("pep-live-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let server = serve(|seen, _| {
        if seen.json()["messages"][1]["content"].as_str().unwrap_or_default().starts_with("case bad") {
            (400, vec![], r#"{"error":{"message":"bad"}}"#.to_string())
        } else {
            (200, vec![], CHAT_REPLY.to_string())
        }
    });
    let mut c = cfg(&server.base);
    c.record = Some(dir.join("rec"));
    let out = live::send_all(vec![chat_job("one"), chat_job("bad"), chat_job("../escape")], &c);
    assert!(out[0].is_ok());
    assert_eq!(std::fs::read_to_string(dir.join("rec/output_one.json")).unwrap(), CHAT_REPLY);
    assert!(matches!(out[1], Err(LiveError::Http { status: 400, .. })));
    assert!(!dir.join("rec/output_bad.json").exists());
    let e2 = out[2].as_ref().unwrap_err();
    assert!(matches!(e2, LiveError::Record { .. }), "{e2:?}");
    assert!(e2.to_string().contains("not usable in a file name"), "{e2}");
    assert!(!dir.join("output_escape.json").exists());
    let names: Vec<String> = std::fs::read_dir(dir.join("rec"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["output_one.json".to_string()], "no temporary file left");
    let _ = std::fs::remove_dir_all(&dir);
}

// `pep test --live` end to end: the binary reads the key and base URL from the environment,
// sends each case, takes the text from the reply, records it, and a later `--outputs` replays it.

fn suite(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let prompt = json!({
        "model": "gpt-4o-mini",
        "temperature": 0,
        "messages": [
            {"role": "system", "content": "You triage support tickets. Answer with JSON only: category (billing, outage or account), priority (1-4) and a one-sentence summary."},
            {"role": "user", "content": "Ticket {{ticket_id}}: {{body}}"}
        ],
        "response_format": {"type": "json_schema", "json_schema": {"name": "Triage", "strict": true, "schema": {
            "type": "object", "additionalProperties": false, "required": ["category", "priority", "summary"],
            "properties": {
                "category": {"type": "string", "enum": ["billing", "outage", "account"]},
                "priority": {"type": "integer", "minimum": 1, "maximum": 4},
                "summary": {"type": "string"}
            }
        }}}
    });
    std::fs::write(dir.join("prompt.json"), serde_json::to_string_pretty(&prompt).unwrap()).unwrap();
    std::fs::write(dir.join("pep-test.toml"), "prompt = \"prompt.json\"\n\n[match]\nfuzzy = { \"/summary\" = 0.6 }\n")
        .unwrap();
    for (case, id, body, golden) in [
        (
            "refund",
            "T-1",
            "I was charged twice",
            json!({"category": "billing", "priority": 2, "summary": "Customer was charged twice."}),
        ),
        (
            "down",
            "T-2",
            "The site is down",
            json!({"category": "outage", "priority": 1, "summary": "The site is down for the customer."}),
        ),
    ] {
        std::fs::write(dir.join(format!("input_{case}.json")), json!({"ticket_id": id, "body": body}).to_string())
            .unwrap();
        std::fs::write(dir.join(format!("output_{case}.json")), golden.to_string()).unwrap();
    }
}

/// A Chat Completions server answering each ticket as its golden output says.
fn triage_server() -> Server {
    serve(|seen, _| {
        let user = seen.json()["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        let answer = if user.starts_with("Ticket T-1:") {
            json!({"category": "billing", "priority": 2, "summary": "The customer was charged twice."})
        } else {
            json!({"category": "outage", "priority": 1, "summary": "The site is down for this customer."})
        };
        let reply = json!({
            "id": "chatcmpl-2", "object": "chat.completion", "created": 1733000000, "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.to_string(), "refusal": null}, "logprobs": null, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 60, "completion_tokens": 20, "total_tokens": 80}
        });
        (200, vec![], reply.to_string())
    })
}

fn pep(args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pep"));
    cmd.args(args);
    for var in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GEMINI_BASE_URL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.output().unwrap()
}

#[test]
fn pep_test_live_sends_records_and_replays() {
    let tmp = std::env::temp_dir().join(format!("pep-live-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let dir = tmp.join("triage");
    suite(&dir);
    let rec = tmp.join("rec");
    let server = triage_server();
    let out = pep(
        &[
            "test".as_ref(),
            dir.as_os_str(),
            "--live".as_ref(),
            "--record".as_ref(),
            rec.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ],
        &[("OPENAI_API_KEY", OPENAI_KEY), ("OPENAI_BASE_URL", &server.base)],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stdout: {stdout}\nstderr: {stderr}");
    let report: Value = serde_json::from_str(&stdout).expect("a JSON report");
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2, "{report}");
    assert!(cases.iter().all(|c| c["status"] == "pass"), "{report}");
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    for s in &seen {
        assert_eq!(s.target, "/v1/chat/completions");
        assert_eq!(s.header("authorization"), Some(format!("Bearer {OPENAI_KEY}").as_str()));
        let user = s.json()["messages"][1]["content"].as_str().unwrap().to_string();
        assert!(user == "Ticket T-1: I was charged twice" || user == "Ticket T-2: The site is down", "{user}");
    }
    assert!(!stdout.contains(OPENAI_KEY) && !stderr.contains(OPENAI_KEY));
    for case in ["refund", "down"] {
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(rec.join(format!("output_{case}.json"))).unwrap()).unwrap();
        assert_eq!(recorded["object"], "chat.completion", "the raw reply is recorded");
    }

    // Replay: no key, no server, the recorded replies.
    let out = pep(&["test".as_ref(), dir.as_os_str(), "--outputs".as_ref(), rec.as_os_str()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(server.requests(), 2, "the replay sends nothing");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn pep_test_live_without_a_key_is_a_broken_run_that_sends_nothing() {
    let tmp = std::env::temp_dir().join(format!("pep-live-cli-nokey-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let dir = tmp.join("triage");
    suite(&dir);
    let server = triage_server();
    let out = pep(&["test".as_ref(), dir.as_os_str(), "--live".as_ref()], &[("OPENAI_BASE_URL", &server.base)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(server.connections(), 0);
    let _ = std::fs::remove_dir_all(&tmp);
}
