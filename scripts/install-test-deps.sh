#!/usr/bin/env bash
# install-test-deps.sh installs what the tests start on loopback: the
# CalDAV servers Radicale, Xandikos, Cyrus IMAP's CalDAV with its SASL
# user tool and DAViCal with php-cgi to serve it (internal/testkit/davtest),
# PostgreSQL
# (internal/testkit/pgtest, which runs Debian's initdb and pg_ctl from
# /usr/lib/postgresql/N/bin), Exim as the mail server invitations are
# sent to (internal/testkit/smtptest) and Chromium for the dashboard's headless
# browser test (cmd/unicald, through chromedp), all from Debian's packages. It does nothing
# when all are already installed, prints nothing on success, and shows
# apt-get's output only when a step fails.
set -euo pipefail

# Each package with the program that shows it is usable.
# Cyrus's programs live in /usr/lib/cyrus/bin, off PATH.
# DAViCal is PHP, so its "program" is the script that makes its database.
packages=(radicale xandikos cyrus-imapd cyrus-caldav sasl2-bin davical php-cgi postgresql exim4-daemon-light chromium)
declare -A program=([radicale]=radicale [xandikos]=xandikos [cyrus-imapd]=/usr/lib/cyrus/bin/master
	[cyrus-caldav]=/usr/lib/cyrus/bin/httpd [sasl2-bin]=saslpasswd2
	[davical]=/usr/share/davical/dba/create-database.sh [php-cgi]=php-cgi
	[postgresql]=initdb [exim4-daemon-light]=exim4 [chromium]=chromium)

# has reports whether a program is on PATH or, for PostgreSQL's, in
# Debian's versioned folder, which is not on PATH.
has() {
	command -v "$1" >/dev/null && return 0
	compgen -G "/usr/lib/postgresql/*/bin/$1" >/dev/null
}

missing=()
for pkg in "${packages[@]}"; do
	# dpkg-query succeeds for removed-but-configured packages too, so check
	# the status word, not just the exit code.
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	if [[ "$status" != "installed" ]] || ! has "${program[$pkg]}"; then
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
