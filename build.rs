//! Release builds for the browser split the app's WebAssembly at its split
//! points (`src/split.rs`): `cfg(pep_split)` turns them into `wasm_split`
//! functions, and the link keeps its relocations (`--emit-relocs`), which the
//! split step (`crates/split-step`, run by `scripts/postbuild.mjs`) needs.
//! Debug builds, tests and native builds call the views directly.
//! `PEP_NO_SPLIT=1` builds a release without split points (for experiments:
//! not optimized by wasm-opt either, which scripts/split.mjs runs per split part).
fn main() {
    println!("cargo::rustc-check-cfg=cfg(pep_split)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PEP_NO_SPLIT");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let opted_out = std::env::var_os("PEP_NO_SPLIT").is_some_and(|v| !v.is_empty());
    if wasm && release && !opted_out {
        println!("cargo::rustc-cfg=pep_split");
        println!("cargo::rustc-link-arg-bins=--emit-relocs");
    }
}
