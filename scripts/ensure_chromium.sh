#!/usr/bin/env bash
# The browser test drives Debian's Chromium through Playwright (no browser download).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "Chromium is missing: sudo apt-get install -y chromium (the browser test will be skipped)" >&2
  fi
fi
