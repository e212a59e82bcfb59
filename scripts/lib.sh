# Shared by the scripts that start a sandbox (sourced, not run).

# write_sandbox_config FILE HOME_PAGE [test-routes]: the demo application and user, registered
# with the given home page (the companion's "/", which is the redirect URI); with `test-routes`,
# the sandbox's test-only route that stages donations is on (the test runs and the demo use it).
write_sandbox_config() {
  local test_routes=false
  [ "${3:-}" = test-routes ] && test_routes=true
  cat >"$1" <<TOML
enable_test_routes = $test_routes

[[applications]]
app_id = "demo-app"
secret = "demo-secret"
home_page = "$2"

[[users]]
email = "demo@example.org"
password = "demo-password"
name = "Demo Fundraiser"
TOML
}
