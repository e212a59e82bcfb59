# Shared by the scripts that start a sandbox (sourced, not run).

# write_sandbox_config FILE HOME_PAGE [BFF_HOME_PAGE]: the demo application and user,
# registered with the given home page (the companion's "/", which is the redirect URI). With
# BFF_HOME_PAGE, a second application `demo-bff` (secret `demo-secret`) registered with that
# home page, for a second companion in BFF mode (the sandbox holds one home page per app).
# The sandbox's test-only route that stages donations is on: the demo shows the donation
# return flow with it, and the test runs use it (a sandbox run without this file has it off).
write_sandbox_config() {
  cat >"$1" <<TOML
enable_test_routes = true

[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "$2"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
TOML
  if [ -n "${3:-}" ]; then
    cat >>"$1" <<TOML

[[applications]]
app_id = "demo-bff"
secret = "demo-secret"
home_page = "$3"
TOML
  fi
}
