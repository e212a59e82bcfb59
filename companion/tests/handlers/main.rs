//! Handler tests of the companion against the real sandbox identity server (in process, on a
//! loopback port), plus a provider of the tests' own for id_tokens the sandbox never issues.

#[path = "../common/mod.rs"]
mod common;

mod bff;
mod errors;
mod exchange;
mod id_token;
mod logout;
mod logs;
mod refresh;
mod serving;
mod upstream;
