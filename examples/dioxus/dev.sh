#!/bin/sh
# The dev loop: `trunk serve` on exec's dev-server address, the application's registered home
# page, with its proxy passing /auth to exec's companion, so that the page, the companion and
# the home page share one origin (docs/local-development.md). Run it as
#   fundraising-sandbox exec --dev-server --companion -- ./dev.sh
set -eu
: "${FUNDRAISING_DEV_SERVER_URL:?run me under fundraising-sandbox exec --dev-server --companion}"
exec trunk serve --offline --port "${FUNDRAISING_DEV_SERVER_URL##*:}" \
  --proxy-backend "$FUNDRAISING_COMPANION_URL/auth" "$@"
