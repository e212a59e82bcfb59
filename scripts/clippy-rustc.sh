#!/bin/sh
# rustc with clippy's lints, each denied as an error: the RUSTC_WORKSPACE_WRAPPER of the
# component crates' and the examples' wasm32 test builds in `make test`, so that those builds
# are the lint as well and Leptos and Dioxus are not compiled twice (once checked by
# `cargo clippy`, once built to run). Cargo runs it for the local (path) crates only, as
# `scripts/clippy-rustc.sh <rustc> ARGS...`; clippy-driver takes that form.
exec clippy-driver "$@" -D warnings
