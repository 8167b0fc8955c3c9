//! The app's split step (issue 11): the linked WebAssembly of a release
//! build (with relocations, `--emit-relocs`, see the app's `build.rs`) in,
//! the main module and one module per split point (plus chunks they share)
//! out, with the JavaScript that loads them on demand. `scripts/postbuild.mjs`
//! runs it between cargo and wasm-bindgen, as cargo-leptos `--split` does
//! (Trunk 0.21 has no such step: trunk-rs/trunk#1022).
//!
//! Usage: pep-split-step INPUT.wasm OUT_DIR MAIN_OUT.wasm LINK_NAME MAIN_MODULE
//!   LINK_NAME    the loader's module path as the main module imports it
//!                (relative to OUT_DIR too: the loader is written there)
//!   MAIN_MODULE  the path the loader imports wasm-bindgen's glue from
//! Prints JSON: `{"modules": [file names in OUT_DIR], "prefetch": {split: [file stems]}}`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, main_out, link_name, main_module] = args.as_slice() else {
        eprintln!("usage: pep-split-step INPUT.wasm OUT_DIR MAIN_OUT.wasm LINK_NAME MAIN_MODULE");
        return ExitCode::from(2);
    };
    match run(Path::new(input), Path::new(out_dir), Path::new(main_out), link_name, main_module) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pep-split-step: {e:?}");
            ExitCode::FAILURE
        }
    }
}

fn run(input: &Path, out_dir: &Path, main_out: &Path, link_name: &str, main_module: &str) -> Result<String, String> {
    let wasm = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let mut opts = wasm_split_cli_support::Options::new(&wasm);
    opts.output_dir = out_dir;
    opts.main_out_path = main_out;
    opts.link_name = link_name;
    opts.main_module = main_module;
    let split = wasm_split_cli_support::transform(opts).map_err(|e| format!("{}: {e:?}", input.display()))?;
    let modules: Vec<String> = split
        .split_modules
        .iter()
        .map(|p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    let mut prefetch: Vec<_> = split.prefetch_map.into_iter().collect();
    prefetch.sort();
    let prefetch: serde_json::Map<String, serde_json::Value> =
        prefetch.into_iter().map(|(k, v)| (k, serde_json::Value::from(v))).collect();
    Ok(serde_json::json!({ "modules": modules, "prefetch": prefetch }).to_string())
}
