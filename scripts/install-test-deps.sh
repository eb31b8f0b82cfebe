#!/usr/bin/env bash
# install-test-deps.sh installs what the tests start on loopback from
# Debian's packages: the CalDAV servers Radicale and Xandikos
# (internal/davtest), and Chromium for the dashboard's browser tests
# (cmd/unicald, headless, through chromedp).
# It does nothing when both are already installed, prints nothing on
# success, and shows apt-get's output only when a step fails.
set -euo pipefail

packages=(radicale xandikos chromium)

missing=()
for pkg in "${packages[@]}"; do
	# dpkg-query succeeds for removed-but-configured packages too, so check
	# the status word, not just the exit code.
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	if [[ "$status" != "installed" ]] || ! command -v "$pkg" >/dev/null; then
		missing+=("$pkg")
	fi
done
if ((${#missing[@]} == 0)); then
	exit 0
fi

sudo=()
if ((EUID != 0)); then
	sudo=(sudo)
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run runs a command quietly, printing its output only if it fails.
run() {
	if ! "$@" >"$log" 2>&1; then
		cat "$log" >&2
		echo "install-test-deps: failed: $*" >&2
		exit 1
	fi
}

export DEBIAN_FRONTEND=noninteractive
run "${sudo[@]}" apt-get update
run "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
