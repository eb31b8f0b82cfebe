#!/usr/bin/env bash
# bench-instr.sh counts the instructions `unicald serve` and the bare
# net/http server of scripts/bench-http.sh (same bytes, same headers)
# execute per GET /v1/endUserAccounts/{id} over HTTP, under callgrind: a
# measure of CPU per request that the machine's load does not move, unlike
# the req/s of bench-http.sh.
#
# Both servers run with GOMAXPROCS=1 and GODEBUG=asyncpreemptoff=1, with
# garbage collection on, as in production. After BENCH_WARMUP requests the
# counters are zeroed, BENCH_REQUESTS requests are sent one after another
# on one kept-alive connection (benchhttp load), and the counters are read.
# Not counted: the kernel (a system call is one instruction) and the load
# generator. One garbage collection more or less moves a count by about
# 5 million instructions, so BENCH_REQUESTS should be in the thousands;
# and unicald's background work (webhook polling) runs for as long as the
# slowed-down run lasts, which overstates its count a little.
#   BENCH_REQUESTS   measured requests (default 12000)
#   BENCH_WARMUP     requests before the counters are zeroed (default 500)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v callgrind_control >/dev/null; then
	echo "bench-instr: needs valgrind (Debian: apt-get install valgrind)" >&2
	exit 2
fi
n=${BENCH_REQUESTS:-12000}
warmup=${BENCH_WARMUP:-500}

tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	sleep 0.5
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "building..." >&2
go build -o "$tmp/unicald" ./cmd/unicald
go build -o "$tmp/benchhttp" ./scripts/benchhttp
read -r key account < <("$tmp/benchhttp" seed -data "$tmp/data" -accounts 50)
path=/v1/endUserAccounts/$account

# callgrind NAME COMMAND... starts COMMAND under callgrind in the
# background, with its output in $tmp/NAME.out and NAME.log.
callgrind() {
	local name=$1
	shift
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.cg" "$@" >"$tmp/$name.out" 2>"$tmp/$name.log" &
	pids+=("$!")
	disown # cleanup kills it; bash need not report that
}

# address FILE PATTERN waits up to a minute for PATTERN in FILE and prints
# the 127.0.0.1:PORT in it.
address() {
	local a
	for _ in $(seq 600); do
		a=$(grep -o "$2" "$1" 2>/dev/null | head -n1 | grep -o '127\.0\.0\.1:[0-9]*' || true)
		[[ -n "$a" ]] && { echo "$a"; return; }
		sleep 0.1
	done
	echo "bench-instr: no address in $1:" >&2
	cat "$1" >&2
	exit 1
}

echo "starting both servers under callgrind..." >&2
callgrind full "$tmp/unicald" serve --addr 127.0.0.1:0 --data "$tmp/data" --rate-limit-key 1e6 --rate-limit-ip 1e6
full=$(address "$tmp/full.log" '"addr":"127\.0\.0\.1:[0-9]*')
"$tmp/benchhttp" fetch -key "$key" -out "$tmp/body" "http://$full$path"
# At unicald serve's garbage-collection target (cmd/unicald/gc.go).
GOGC=${GOGC:-200} callgrind bare "$tmp/benchhttp" bare -route "$path=$tmp/body"
bare=$(address "$tmp/bare.out" '127\.0\.0\.1:[0-9]*')

# count ADDR PID prints the instructions per request of the server at ADDR,
# process PID.
count() {
	"$tmp/benchhttp" load -key "$key" -n "$warmup" "http://$1$path"
	callgrind_control --zero "$2" >/dev/null 2>&1
	"$tmp/benchhttp" load -key "$key" -n "$n" "http://$1$path"
	callgrind_control -e Ir "$2" 2>/dev/null | awk -v n="$n" '$1 == "Th" {gsub(",", "", $3); ir += $3} END {printf "%.0f", ir / n}'
}
echo "counting $n requests each..." >&2
f=$(count "$full" "${pids[0]}")
b=$(count "$bare" "${pids[1]}")
echo "instructions per GET /v1/endUserAccounts/{id} over HTTP ($n requests, callgrind, GOMAXPROCS=1, $(date -u '+%Y-%m-%d %H:%M UTC')):"
echo "unicald serve $f, bare $b, full/bare $(awk -v f="$f" -v b="$b" 'BEGIN {printf "%.2f", f / b}')"
