#!/bin/sh
# The dev loop with Dioxus's own dev server: `dx serve` on exec's dev-server address, the
# application's registered home page, with its proxy passing /auth to exec's companion
# (written into Dioxus.toml), so that the page, the companion and the home page share one
# origin (docs/local-development.md). Run it as
#   fundraising-sandbox exec --dev-server --companion -- ./dx.sh
set -eu
: "${FUNDRAISING_DEV_SERVER_URL:?run me under fundraising-sandbox exec --dev-server --companion}"
cat >Dioxus.toml <<TOML
[application]
name = "fundraising-dioxus-example"

[web.app]
title = "Fundraising with Dioxus"

[[web.proxy]]
backend = "$FUNDRAISING_COMPANION_URL/auth"
TOML
exec dx serve --platform web --addr 127.0.0.1 --port "${FUNDRAISING_DEV_SERVER_URL##*:}" "$@"
