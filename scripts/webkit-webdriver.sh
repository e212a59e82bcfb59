#!/usr/bin/env bash
# WebKitWebDriver, whose MiniBrowser reaches wasm-bindgen-test-runner's page server through
# scripts/runner-proxy.py (docs/browsers.md says why) and every other server of
# scripts/with-servers.sh directly. scripts/browser-tests.sh names it as SAFARIDRIVER; the runner
# starts it with --port and sends it no capabilities, so the proxy is set where WebKitGTK reads
# it: GLib's proxy settings (the GNOME resolver, from a settings file of this run's own).
#
#   RUNNER_PROXY_ADDRESS=127.0.0.1:PORT scripts/webkit-webdriver.sh --port=N
set -euo pipefail
: "${RUNNER_PROXY_ADDRESS:?run this inside scripts/with-servers.sh, which starts the proxy}"
config="${FUNDRAISING_RUN_DIR:?run this inside scripts/with-servers.sh}/webkit-config"
mkdir -p "$config/glib-2.0/settings"
ignore=$(env | sed -nE "s|^FUNDRAISING_[A-Z_]*_URL=https?://([^/]+).*|'\\1'|p" | sort -u | paste -sd, -)
cat >"$config/glib-2.0/settings/keyfile.partial" <<KEYFILE
[system/proxy]
mode='manual'
ignore-hosts=[$ignore]

[system/proxy/http]
host='${RUNNER_PROXY_ADDRESS%:*}'
port=${RUNNER_PROXY_ADDRESS##*:}
KEYFILE
mv "$config/glib-2.0/settings/keyfile.partial" "$config/glib-2.0/settings/keyfile"
export XDG_CONFIG_HOME="$config" GSETTINGS_BACKEND=keyfile XDG_CURRENT_DESKTOP=GNOME GIO_USE_PROXY_RESOLVER=gnome
exec WebKitWebDriver "$@"
