#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through Playwright; Playwright never downloads its own browser.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing: install Debian's 'chromium' package (needs root), then re-run" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
