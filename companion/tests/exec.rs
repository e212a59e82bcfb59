//! `fundraising-sandbox exec` with this crate's real companion binary: the companions of a
//! configuration come up for their applications before the command runs, answer the test
//! runner's origin, report their version, and are stopped afterwards; one that cannot start
//! stops exec before the command.
#![cfg(unix)]

use clap::Parser;
use fundraising_sandbox::exec::{exec, ExecArgs, RunDir};
use std::net::TcpStream;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    exec: ExecArgs,
}

fn args(extra: &[&str], script: &str) -> ExecArgs {
    let mut argv = vec![
        "exec",
        "--companion-bin",
        env!("CARGO_BIN_EXE_fundraising-companion"),
    ];
    argv.extend_from_slice(extra);
    argv.extend_from_slice(&["--", "sh", "-c", script]);
    Cli::parse_from(argv).exec
}

const CONFIG: &str = r#"[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "${FUNDRAISING_COMPANION_URL}/"

[[applications]]
app_id = "demo-bff"
secret = "bff-secret"
home_page = "${FUNDRAISING_BFF_COMPANION_URL}/"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"

[[companions]]
name = "bff"
app_id = "demo-bff"
args = ["--bff"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn companions_answer_for_their_applications_while_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sandbox.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let seen = dir.path().join("seen");
    let version = env!("CARGO_PKG_VERSION");
    // The command checks what it was given, and leaves the addresses for the test.
    let script = format!(
        r#"set -e
test "$FUNDRAISING_APP_ID" = demo-app
test "$FUNDRAISING_BFF_APP_ID" = demo-bff
curl -fsS "$FUNDRAISING_COMPANION_URL/healthz" | grep -q '"version":"{version}"'
# In BFF mode the companion proxies the resource API for its application.
curl -fsS -H "Origin: $FUNDRAISING_BFF_COMPANION_URL" -H "X-Fundraising-Client: 1" "$FUNDRAISING_BFF_COMPANION_URL/api/campaign/byshortname/demo-campaign" | grep -q CampaignGuid
# The test runner's origin may call the companion's auth endpoints.
curl -fsS -o /dev/null -D - -X OPTIONS "$FUNDRAISING_COMPANION_URL/auth/token" \
  -H "Origin: http://$WASM_BINDGEN_TEST_ADDRESS" -H "Access-Control-Request-Method: POST" \
  | grep -qi "access-control-allow-origin: http://$WASM_BINDGEN_TEST_ADDRESS"
echo "$FUNDRAISING_COMPANION_URL $FUNDRAISING_BFF_COMPANION_URL" > {seen}"#,
        seen = seen.display()
    );
    let run = RunDir::create(false).unwrap();
    let status = exec(
        &args(
            &["--config", config.to_str().unwrap(), "--companion"],
            &script,
        ),
        &run,
    )
    .await
    .unwrap();
    let logs = |name: &str| std::fs::read_to_string(run.path().join(name)).unwrap_or_default();
    assert_eq!(
        status,
        0,
        "{}\n{}",
        logs("companion.log"),
        logs("companion-bff.log")
    );
    let seen = std::fs::read_to_string(&seen).unwrap();
    for url in seen.split_whitespace() {
        let addr = url.trim_start_matches("http://");
        assert!(TcpStream::connect(addr).is_err(), "{url} still listens");
    }
    assert!(logs("companion-bff.log").contains("stopped"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_companion_that_cannot_start_stops_exec_before_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let run = RunDir::create(false).unwrap();
    let error = exec(
        &args(
            &["--companion", "--companion-arg=--redis-url=ftp://nowhere"],
            &format!("touch {}", marker.display()),
        ),
        &run,
    )
    .await
    .unwrap_err();
    assert_eq!(error.exit_code(), 125);
    assert!(error.to_string().contains("--redis-url"), "{error}");
    assert!(!marker.exists(), "the command ran");

    let unknown = exec(&args(&["--companion", "no-such-app"], "true"), &run)
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("no-such-app"), "{unknown}");
}
