//! The engine worker's entry point: answers the page's messages (see the
//! library's documentation for the protocol).

fn main() {
    #[cfg(target_arch = "wasm32")]
    pep_token_worker::serve();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("token-worker runs in a browser Web Worker; build it with trunk");
}
