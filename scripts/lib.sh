# Shared by the scripts that start a sandbox (sourced, not run).

# write_sandbox_config FILE HOME_PAGE: the demo application and user, registered with the
# given home page (the companion's "/", which is the redirect URI).
write_sandbox_config() {
  cat >"$1" <<TOML
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
