fn main() {
    // The o200k_base encoder builds a ~1.2 MB table on the stack at start;
    // WASM's default stack is 1 MiB. Only this crate's binary (the worker)
    // gets the larger stack; the app keeps the default.
    println!("cargo:rustc-link-arg-bins=-zstack-size=4194304");
    println!("cargo:rerun-if-changed=build.rs");
}
