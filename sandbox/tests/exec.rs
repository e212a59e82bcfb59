//! `fundraising-sandbox exec` as a user's CI runs it: the command sees the servers' addresses
//! and reaches them, its status is passed on, the servers are gone afterwards, placeholders in
//! the configuration are filled in, and a failure to start or a signal still stops everything.
//! (The companion it starts is tested in companion/tests/exec.rs, with the real companion.)
#![cfg(unix)]

use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EXE: &str = env!("CARGO_BIN_EXE_fundraising-sandbox");

fn exec(args: &[&str], script: &str) -> (i32, String) {
    let out = Command::new(EXE)
        .arg("exec")
        .args(args)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().expect("exec ends with a status"),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `KEY=value` lines of `env`, as the command printed them.
fn variable<'a>(output: &'a str, name: &str) -> &'a str {
    output
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} was not exported:\n{output}"))
}

fn listening(url: &str) -> bool {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    TcpStream::connect(addr).is_ok()
}

#[test]
fn the_command_reaches_the_sandbox_and_its_status_is_passed_on() {
    let script = r#"env | grep -E '^(FUNDRAISING|WASM_BINDGEN)_' | sort
curl -fsS "$FUNDRAISING_BASE_URL/$FUNDRAISING_APP_ID/v1/campaign/byshortname/demo-campaign" | grep -q CampaignGuid || exit 90
curl -fsS "$FUNDRAISING_AUTH_URL/.well-known/openid-configuration" | grep -q "\"issuer\":\"$FUNDRAISING_AUTH_URL\"" || exit 91
exit 7"#;
    let (status, output) = exec(&[], script);
    assert_eq!(status, 7, "{output}");
    assert_eq!(variable(&output, "FUNDRAISING_APP_ID"), "demo-app");
    let base = variable(&output, "FUNDRAISING_BASE_URL");
    let auth = variable(&output, "FUNDRAISING_AUTH_URL");
    assert!(base.starts_with("http://127.0.0.1:") && auth.starts_with("http://127.0.0.1:"));
    assert_ne!(base, auth);
    assert!(variable(&output, "WASM_BINDGEN_TEST_ADDRESS").starts_with("127.0.0.1:"));
    assert_eq!(
        variable(&output, "WASM_BINDGEN_TEST_NO_ORIGIN_ISOLATION"),
        "1"
    );
    // Stopped: nothing listens there any more, and the run folder is gone.
    assert!(!listening(base) && !listening(auth), "{output}");
    assert!(!Path::new(variable(&output, "FUNDRAISING_RUN_DIR")).exists());
    // The failed command gets the servers' logs on stderr.
    assert!(output.contains("sandbox.log (last lines)"), "{output}");

    let (status, output) = exec(&[], "exit 0");
    assert_eq!(status, 0, "{output}");
    assert!(!output.contains("last lines"), "{output}");
}

#[test]
fn the_configuration_comes_from_a_file_with_placeholders_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("sandbox.toml");
    std::fs::write(
        &config,
        r#"enable_test_routes = true

[[applications]]
app_id = "my-app"
secret = "my-secret"
home_page = "${MY_SITE}/"

[[users]]
email = "tester@example.org"
password = "tester-password"
name = "Tester"

[[staged_donations]]
reference = "staged-1"
final_after_secs = 0
"#,
    )
    .unwrap();
    let script = r#"test "$FUNDRAISING_APP_ID" = my-app || exit 90
curl -fsS "$FUNDRAISING_BASE_URL/my-app/v1/donation/ref/staged-1" | grep -q Accepted || exit 91
location=$(curl -sS -o /dev/null -w '%{redirect_url}' "$FUNDRAISING_AUTH_URL/connect/authorize?client_id=my-app&response_type=code&scope=openid+profile&nonce=n&redirect_uri=http%3A%2F%2Fsite.test%2F")
case "$location" in */connect/login*) exit 0;; *) echo "authorize went to: $location"; exit 92;; esac"#;
    let out = Command::new(EXE)
        .args(["exec", "--config"])
        .arg(&config)
        .args(["--", "sh", "-c", script])
        .env("MY_SITE", "http://site.test")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    // A placeholder nobody sets stops exec before the command runs, with 125.
    let marker = dir.path().join("ran");
    let out = Command::new(EXE)
        .args(["exec", "--config"])
        .arg(&config)
        .args(["--", "touch"])
        .arg(&marker)
        .env_remove("MY_SITE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("${MY_SITE}"));
    assert!(!marker.exists(), "the command ran");
}

#[test]
fn a_command_that_cannot_be_run_gets_127_or_126() {
    let (status, output) = exec(&[], "exec /no/such/program");
    assert_eq!(status, 127, "{output}");
    let out = Command::new(EXE)
        .args(["exec", "--", "/no/such/program"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/program"));
    let out = Command::new(EXE)
        .args(["exec", "--", "/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126));
}

#[test]
fn a_missing_companion_program_stops_exec_before_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let out = Command::new(EXE)
        .args([
            "exec",
            "--companion",
            "--companion-bin",
            "/no/such/companion",
            "--",
            "touch",
        ])
        .arg(&marker)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/companion"));
    assert!(!marker.exists(), "the command ran");
}

#[test]
fn sigterm_reaches_the_command_and_everything_stops() {
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join("env");
    let got = dir.path().join("got-term");
    // The command records the addresses, then waits; on SIGTERM it notes it and ends with 42.
    let script = format!(
        "trap 'touch {got}; exit 42' TERM; env > {env}.tmp; mv {env}.tmp {env}; while :; do sleep 0.05; done",
        got = got.display(),
        env = env_file.display()
    );
    let mut child = Command::new(EXE)
        .args(["exec", "--", "sh", "-c", &script])
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !env_file.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let env = std::fs::read_to_string(&env_file).unwrap();
    let base = variable(&env, "FUNDRAISING_BASE_URL").to_owned();
    assert!(listening(&base));
    // SAFETY: kill(2) on the child this test started.
    unsafe {
        libc_kill(child.id() as i32, 15);
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(42));
    assert!(got.exists(), "the command did not get SIGTERM");
    assert!(!listening(&base), "the sandbox still listens");
}

extern "C" {
    #[link_name = "kill"]
    fn libc_kill(pid: i32, sig: i32) -> i32;
}

/// Whether the process `pid` has ended (gone, or a zombie waiting for its parent to reap it).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

/// Waits until `condition` holds; panics with `what` after `secs` seconds.
fn wait_until(secs: u64, what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !condition() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn send(pid: u32, sig: i32) {
    // SAFETY: kill(2) on a process this test started.
    unsafe {
        libc_kill(pid as i32, sig);
    }
}

/// How `exec` itself is started: with SIGINT and SIGQUIT at their defaults (a terminal's
/// foreground job), or ignored (a background job of a non-interactive shell, `cmd &`, which
/// POSIX starts so). Each test names the one it tests instead of inheriting its runner's.
#[derive(Debug, Clone, Copy)]
enum Start {
    Default,
    Background,
}

impl Start {
    fn apply(self, command: &mut Command) -> &mut Command {
        use std::os::unix::process::CommandExt;
        let disposition = match self {
            Start::Default => libc::SIG_DFL,
            Start::Background => libc::SIG_IGN,
        };
        // SAFETY: signal(2) only, between fork and exec; nothing is allocated.
        unsafe {
            command.pre_exec(move || {
                libc::signal(libc::SIGINT, disposition);
                libc::signal(libc::SIGQUIT, disposition);
                Ok(())
            })
        }
    }
}

/// Starts `exec -- sh -c SCRIPT` and waits until the script has written `ready`.
fn started(args: &[&str], script: &str, ready: &Path) -> std::process::Child {
    started_as(Start::Default, args, script, ready)
}

fn started_as(start: Start, args: &[&str], script: &str, ready: &Path) -> std::process::Child {
    let child = start
        .apply(&mut Command::new(EXE))
        .arg("exec")
        .args(args)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until(30, "the command never started", || ready.exists());
    child
}

#[test]
fn the_run_folder_is_private_to_its_owner_and_removed() {
    let (status, output) = exec(
        &[],
        r#"echo "mode=$(stat -c %a "$FUNDRAISING_RUN_DIR")"; echo "FUNDRAISING_RUN_DIR=$FUNDRAISING_RUN_DIR""#,
    );
    assert_eq!(status, 0, "{output}");
    assert_eq!(variable(&output, "mode"), "700");
    assert!(!Path::new(variable(&output, "FUNDRAISING_RUN_DIR")).exists());
}

/// A shell waiting for its child gets SIGINT with the child: `exec` ends at once, not when
/// the child would have, with 130 and none of the failure's output; and so it does when
/// `exec` was started with SIGINT ignored.
#[test]
fn sigint_reaches_the_commands_whole_group() {
    for start in [Start::Default, Start::Background] {
        let dir = tempfile::tempdir().unwrap();
        let ready = dir.path().join("ready");
        let script = format!("touch {}; sleep 30; :", ready.display());
        let child = started_as(start, &[], &script, &ready);
        let sent = Instant::now();
        send(child.id(), 2);
        let out = child.wait_with_output().unwrap();
        assert!(
            sent.elapsed() < Duration::from_secs(10),
            "{start:?}: {:?}",
            sent.elapsed()
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{start:?}: {stderr}");
        // A stop asked for is no failure: no servers' logs.
        assert!(!stderr.contains("last lines"), "{start:?}: {stderr}");
    }
}

/// The command gets SIGINT and SIGQUIT at their defaults even when `exec` was started with
/// them ignored (the signal mask of ignored signals, as the kernel reports it).
#[test]
fn the_command_starts_with_sigint_and_sigquit_at_their_defaults() {
    let out = Start::Background
        .apply(&mut Command::new(EXE))
        .args(["exec", "--", "sh", "-c"])
        .arg("grep '^SigIgn:' /proc/$$/status; grep '^SigIgn:' /proc/self/status")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let masks: Vec<u64> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("SigIgn:"))
        .map(|mask| u64::from_str_radix(mask.trim(), 16).unwrap())
        .collect();
    assert_eq!(masks.len(), 2, "{stdout}");
    let int_or_quit = (1 << (libc::SIGINT - 1)) | (1 << (libc::SIGQUIT - 1));
    for mask in masks {
        assert_eq!(mask & int_or_quit, 0, "ignored signals {mask:#x}");
    }
}

/// What the command started in the background ends with it: on SIGTERM to exec, and when
/// the command ends by itself.
#[test]
fn no_grandchild_outlives_exec() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild");
    let ready = dir.path().join("ready");
    let script = format!(
        "sleep 300 & echo $! > {pid}; touch {ready}; wait",
        pid = pid_file.display(),
        ready = ready.display()
    );
    let mut child = started(&[], &script, &ready);
    let grandchild = read_pid(&pid_file);
    send(child.id(), 15);
    child.wait().unwrap();
    wait_until(10, "the grandchild survived SIGTERM", || gone(grandchild));

    let script = format!("sleep 300 & echo $! > {}; exit 3", pid_file.display());
    let (status, output) = exec(&[], &script);
    assert_eq!(status, 3, "{output}");
    let grandchild = read_pid(&pid_file);
    wait_until(10, "the grandchild survived the command", || {
        gone(grandchild)
    });
}

/// A stand-in companion: answers every GET with 200 on its `--listen` address, and leaves a
/// file named after its pid in the folder given as `--pids`, holding its arguments and its
/// environment (JSON).
const FAKE_COMPANION: &str = r#"#!/usr/bin/env python3
import http.server, json, os, sys
args = sys.argv[1:]
host, port = args[args.index("--listen") + 1].rsplit(":", 1)
with open(os.path.join(args[args.index("--pids") + 1], str(os.getpid())), "w") as f:
    json.dump({"args": args, "env": dict(os.environ)}, f)
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer((host, int(port)), Handler).serve_forever()
"#;

/// The stand-in companion in `dir` and the folder its pid files go to.
fn fake_companion(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let fake = dir.join("fake-companion");
    std::fs::write(&fake, FAKE_COMPANION).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let pids = dir.join("pids");
    std::fs::create_dir(&pids).unwrap();
    (fake, pids)
}

/// A companion gets the application's secret, a cookie key of the run's, and of `exec`'s
/// environment only what locates programs and files: no `COMPANION_*` variable (which would
/// set its flags, e.g. another deployment's Redis) and no proxy variable.
#[test]
fn a_companion_gets_only_the_environment_exec_means_it_to() {
    let dir = tempfile::tempdir().unwrap();
    let (fake, pids) = fake_companion(dir.path());
    let out = Command::new(EXE)
        .args(["exec", "--companion", "--companion-bin"])
        .arg(&fake)
        .arg("--companion-arg=--pids")
        .arg(format!("--companion-arg={}", pids.display()))
        .args(["--", "true"])
        .env("COMPANION_REDIS_URL", "redis://elsewhere.example:6379")
        .env("COMPANION_STATIC_DIR", "/")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("https_proxy", "http://127.0.0.1:9")
        .env("ALL_PROXY", "http://127.0.0.1:9")
        .env("SOME_SECRET_OF_THE_SHELL", "x")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = std::fs::read_dir(&pids)
        .unwrap()
        .next()
        .expect("the companion started")
        .unwrap()
        .path();
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(seen).unwrap()).unwrap();
    let env = seen["env"].as_object().unwrap();
    assert_eq!(env["FUNDRAISING_CLIENT_SECRET"], "demo-secret", "{env:?}");
    assert!(env.contains_key("PATH"), "{env:?}");
    for name in [
        "COMPANION_REDIS_URL",
        "COMPANION_STATIC_DIR",
        "HTTP_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "SOME_SECRET_OF_THE_SHELL",
    ] {
        assert!(!env.contains_key(name), "the companion inherited {name}");
    }
    // Nor anything else of the test's own environment (but what a shell script in front of
    // the interpreter, a pyenv shim, sets again).
    for (name, _) in std::env::vars() {
        let relaunched = ["PWD", "OLDPWD", "SHLVL", "_"].contains(&name.as_str())
            || name.trim_start_matches('_').starts_with("PYENV");
        assert!(
            relaunched
                || fundraising_sandbox::exec::COMPANION_ENV.contains(&name.as_str())
                || !env.contains_key(&name),
            "the companion inherited {name}"
        );
    }
    let args: Vec<&str> = seen["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let key = args.iter().position(|a| *a == "--cookie-key-file");
    assert!(key.is_some(), "{args:?}");
}

/// SIGKILL to exec: nothing can run in exec any more, and still the companion, the command
/// with what it started, and the run folder are all gone shortly after.
#[test]
fn sigkill_to_exec_leaves_no_process_and_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (fake, pids) = fake_companion(dir.path());
    let ready = dir.path().join("ready");
    let script = format!(
        "echo \"$FUNDRAISING_RUN_DIR\" > {dir}/run; sleep 300 & echo $! > {dir}/grandchild; echo $$ > {dir}/command; touch {ready}; wait",
        dir = dir.path().display(),
        ready = ready.display()
    );
    let mut child = Command::new(EXE)
        .args(["exec", "--companion", "--companion-bin"])
        .arg(&fake)
        .arg("--companion-arg=--pids")
        .arg(format!("--companion-arg={}", pids.display()))
        .args(["--", "sh", "-c", &script])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    wait_until(30, "the command never started", || ready.exists());
    let companion: u32 = std::fs::read_dir(&pids)
        .unwrap()
        .next()
        .expect("the companion started")
        .unwrap()
        .file_name()
        .to_string_lossy()
        .parse()
        .unwrap();
    let run_dir = std::path::PathBuf::from(
        std::fs::read_to_string(dir.path().join("run"))
            .unwrap()
            .trim(),
    );
    let command = read_pid(&dir.path().join("command"));
    let grandchild = read_pid(&dir.path().join("grandchild"));
    assert!(run_dir.exists() && !gone(companion) && !gone(command));

    send(child.id(), 9);
    child.wait().unwrap();
    wait_until(10, "the companion outlived exec", || gone(companion));
    wait_until(10, "the command outlived exec", || gone(command));
    wait_until(10, "the command's child outlived exec", || gone(grandchild));
    wait_until(10, "the run folder stayed", || !run_dir.exists());
}

/// The test runner's browsers get a proxy that sends each request upstream on a connection of
/// its own, closed after the answer (a keep-alive connection to the runner's tiny_http server
/// holds one of its four threads): two requests on one connection to the proxy reach a server
/// that keeps connections open as two connections, each asked to close, and the capabilities
/// exported for the runner name that proxy, with the sandbox's servers reached directly.
#[test]
fn the_runners_browsers_get_a_proxy_with_one_connection_per_request() {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::{Arc, Mutex};

    // A server that serves any number of requests on a connection until told to close, and
    // notes each connection's requests and their Connection header.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = server.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let notes = seen.clone();
    std::thread::spawn(move || {
        for stream in server.incoming() {
            let mut stream = stream.unwrap();
            let notes = notes.clone();
            std::thread::spawn(move || {
                let index = {
                    let mut notes = notes.lock().unwrap();
                    notes.push(Vec::new());
                    notes.len() - 1
                };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut connection = String::from("-");
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        if let Some(value) = header.to_ascii_lowercase().strip_prefix("connection:")
                        {
                            connection = value.trim().to_owned();
                        }
                    }
                    let request = line.split(' ').take(2).collect::<Vec<_>>().join(" ");
                    notes.lock().unwrap()[index].push(format!("{request} connection={connection}"));
                    stream
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .unwrap();
                    if connection == "close" {
                        return;
                    }
                }
            });
        }
    });

    let script = format!(
        r#"set -e
test "$(curl -fsS -x "http://$FUNDRAISING_RUNNER_PROXY" http://{upstream}/a http://{upstream}/b)" = okok
port=${{FUNDRAISING_RUNNER_PROXY##*:}}
grep -q "\"proxy-server=http=127.0.0.1:$port\"" "$WASM_BINDGEN_TEST_WEBDRIVER_JSON"
grep -q "\"network.proxy.http_port\":$port" "$WASM_BINDGEN_TEST_WEBDRIVER_JSON"
grep -q "<-loopback>;${{FUNDRAISING_BASE_URL#http://}};${{FUNDRAISING_AUTH_URL#http://}}" "$WASM_BINDGEN_TEST_WEBDRIVER_JSON"
echo passed"#
    );
    let (status, output) = exec(&[], &script);
    assert_eq!(status, 0, "{output}");
    assert!(output.contains("passed"), "{output}");
    let mut seen = seen.lock().unwrap().clone();
    seen.sort();
    assert_eq!(
        seen,
        [
            vec!["GET /a connection=close".to_owned()],
            vec!["GET /b connection=close".to_owned()]
        ]
    );
}
