fn main() {
    // Release builds abort on a panic with no hook (scripts/trunk.sh).
    #[cfg(not(panic = "immediate-abort"))]
    pep_app::install_panic_screen();
    leptos::mount::mount_to_body(pep_app::App);
}
