#!/usr/bin/env bash
# Runs the whole test suite: installs the real CalDAV servers the tests
# start on loopback (Radicale and Xandikos, from Debian's packages) when
# they are missing, then vets and tests every package with the race
# detector. With CI=true a missing server fails the run instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-test-deps.sh
go vet ./...
go test -race -count=1 -timeout 25m ./...
