//! The binary `dx serve` builds: starts the app (see the library's `start`).
fn main() {
    fundraising_dioxus_example::start();
}
