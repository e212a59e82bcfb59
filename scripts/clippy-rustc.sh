#!/bin/sh
# rustc with clippy's lints, each denied as an error: the RUSTC_WORKSPACE_WRAPPER of the test
# builds in `make test`, so that they are the lint as well and the crates are not compiled twice
# (once checked by `cargo clippy`, once built to run). Cargo runs it for the workspace's own
# crates only, as `scripts/clippy-rustc.sh <rustc> ARGS...`; clippy-driver takes that form.
exec clippy-driver "$@" -D warnings
