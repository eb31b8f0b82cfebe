#!/usr/bin/env bash
# lint.sh runs the lint gate: golangci-lint, at the version pinned here,
# with the linters .golangci.yml turns on (docs/development.md says why
# each). The binary is built from the Go module proxy once into the user's
# cache and reused; it is not a dependency of the module, so programs that
# import unical never download it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.0
bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/unical-tools/golangci-lint-$version"
bin="$bin_dir/golangci-lint"
if [ ! -x "$bin" ]; then
	mkdir -p "$bin_dir"
	GOBIN="$bin_dir" go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$version"
fi
exec "$bin" run ./...
