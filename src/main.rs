fn main() {
    pep_app::install_panic_screen();
    leptos::mount::mount_to_body(pep_app::App);
}
