#!/usr/bin/env bash
# bench-http.sh measures `unicald serve` under HTTP load against a bare
# net/http server that returns the same bytes, in the same run, so that the
# ratio full/bare holds on a busy machine where absolute numbers drift.
#
# It builds unicald and scripts/benchhttp once, seeds a temporary data
# folder (one application, ACCOUNTS PROVIDER_A accounts, sealed credentials)
# with the library, starts `unicald serve` on it as served by default, and
# captures its answers to
#   GET /v1/endUserAccounts/{id}
#   GET /v1/endUserAccounts?limit=50
# which the bare server then repeats byte for byte with the same headers.
# wrk loads each route at 16 and 64 connections, bare and full in turn,
# RUNS times; the table shows the median requests/s and p99 latency of each
# and the ratio of the medians. It also prints unicald's resident memory
# (VmRSS) when idle after a few requests, and after the load.
#
# Everything listens on 127.0.0.1 and stops when the script ends. Settings:
#   BENCH_DURATION     length of one wrk run (default 5s)
#   BENCH_RUNS         runs of each pair (default 3)
#   BENCH_THREADS      wrk threads (default 2)
#   BENCH_SERVE_ARGS   extra `unicald serve` flags (default: the rate limits
#                      raised to 1e6/s, so that the limiters run on every
#                      request but a load from one address and key is not
#                      answered 429)
#   BENCH_STORE        "postgres": serve from a PostgreSQL store (--store) in a
#                      throwaway cluster this script starts on loopback with
#                      initdb and pg_ctl (Debian's postgresql; default
#                      durability), instead of bbolt in a data folder. Run the
#                      script once with and once without it: full/bare of each
#                      against the same bare baseline gives their ratio.
#   BENCH_PPROF        a folder: build unicald with -tags pprof (cmd/unicald/pprof.go)
#                      and save a CPU profile of its first run of each route at
#                      64 connections there, for `go tool pprof DIR/unicald DIR/*.pprof`
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-5s}
runs=${BENCH_RUNS:-3}
threads=${BENCH_THREADS:-2}
conns=(16 64)
accounts=50

if ! command -v wrk >/dev/null; then
	sudo=()
	if ((EUID != 0)); then
		sudo=(sudo)
	fi
	echo "installing wrk (Debian package)..." >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends wrk >/dev/null ||
		{ "${sudo[@]}" apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends wrk >/dev/null; }
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
pg_stop=()
cleanup_all() {
	if ((${#pg_stop[@]} > 0)); then
		"${pg_stop[@]}" >/dev/null 2>&1 || true
	fi
	cleanup
}
trap cleanup_all EXIT
trap 'exit 130' INT TERM

echo "building..." >&2
if [[ -n "${BENCH_PPROF:-}" ]]; then
	mkdir -p "$BENCH_PPROF"
	go build -tags pprof -o "$BENCH_PPROF/unicald" ./cmd/unicald
	cp "$BENCH_PPROF/unicald" "$tmp/unicald"
	pprof_port=$((20000 + RANDOM % 20000))
	export UNICALD_PPROF_ADDR=127.0.0.1:$pprof_port
else
	go build -o "$tmp/unicald" ./cmd/unicald
fi
go build -o "$tmp/benchhttp" ./scripts/benchhttp

store_args=(--data "$tmp/data")
if [[ "${BENCH_STORE:-}" == postgres ]]; then
	# A throwaway cluster, as internal/pgtest starts one: initdb and
	# postgres refuse to run as root, so as root they run as the postgres
	# user, in a folder it owns.
	pgbin=$(dirname "$(readlink -f "$(command -v initdb 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n1)")")
	as_pg=()
	if ((EUID == 0)); then
		as_pg=(runuser -u postgres --)
		chmod 755 "$tmp"
		mkdir "$tmp/pg" && chown postgres "$tmp/pg"
	else
		mkdir "$tmp/pg"
	fi
	pgport=$((20000 + RANDOM % 20000))
	"${as_pg[@]}" "$pgbin/initdb" -D "$tmp/pg/data" -U unical --auth=trust --no-locale -E UTF8 >/dev/null
	printf "listen_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\n" "$pgport" >>"$tmp/pg/data/postgresql.conf"
	"${as_pg[@]}" "$pgbin/pg_ctl" start -w -D "$tmp/pg/data" -l "$tmp/pg/server.log" >/dev/null
	pg_stop=("${as_pg[@]}" "$pgbin/pg_ctl" stop -m immediate -D "$tmp/pg/data")
	"${as_pg[@]}" "$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U unical -d postgres -qc "CREATE DATABASE bench" >/dev/null
	UNICAL_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
	export UNICAL_MASTER_KEY
	store_args=(--store "postgres://unical@127.0.0.1:$pgport/bench?sslmode=disable")
	echo "store: PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pgport" >&2
fi
seed_args=(-data "$tmp/data")
if [[ "${store_args[0]}" == --store ]]; then
	seed_args=(-store "${store_args[1]}")
fi

read -r apikey account < <("$tmp/benchhttp" seed "${seed_args[@]}" -accounts "$accounts")
[[ -n "$account" ]] || { echo "bench-http: seeding failed" >&2; exit 1; }

# read_addr waits up to 10 s for a line of file to name 127.0.0.1:PORT.
read_addr() {
	local file=$1 addr=""
	for _ in $(seq 100); do
		addr=$(grep -o '127\.0\.0\.1:[0-9]\+' "$file" 2>/dev/null | head -n1 || true)
		[[ -n "$addr" ]] && { echo "$addr"; return; }
		sleep 0.1
	done
	echo "bench-http: no address in $file:" >&2
	cat "$file" >&2
	exit 1
}

# shellcheck disable=SC2086 # BENCH_SERVE_ARGS is a list of flags
"$tmp/unicald" serve --addr 127.0.0.1:0 "${store_args[@]}" ${BENCH_SERVE_ARGS---rate-limit-key 1e6 --rate-limit-ip 1e6} >"$tmp/unicald.out" 2>"$tmp/unicald.log" &
upid=$!
pids+=("$upid")
full=$(read_addr "$tmp/unicald.log")

paths=("/v1/endUserAccounts/$account" "/v1/endUserAccounts")
queries=("" "?limit=$accounts")
names=("GET /v1/endUserAccounts/{id}" "GET /v1/endUserAccounts?limit=$accounts")

bare_args=()
for i in "${!paths[@]}"; do
	"$tmp/benchhttp" fetch -key "$apikey" -out "$tmp/body$i" "http://$full${paths[$i]}${queries[$i]}"
	bare_args+=(-route "${paths[$i]}=$tmp/body$i")
done
listed=$(grep -o '"id":"acc_' "$tmp/body1" | wc -l)
if ((listed != accounts)); then
	echo "bench-http: the list holds $listed accounts, want $accounts" >&2
	exit 1
fi

"$tmp/benchhttp" bare "${bare_args[@]}" >"$tmp/bare.out" 2>&1 &
bpid=$!
pids+=("$bpid")
bare=$(read_addr "$tmp/bare.out")

rss() { awk '/^VmRSS:/ {printf "%.1f MB", $2/1024}' "/proc/$upid/status"; }

# A few requests, then the idle footprint.
for _ in $(seq 5); do
	for i in "${!paths[@]}"; do
		"$tmp/benchhttp" fetch -key "$apikey" -out "$tmp/scratch" "http://$full${paths[$i]}${queries[$i]}"
	done
done
sleep 1
idle_rss=$(rss)

# ticks prints the CPU time (user + system, in clock ticks) process $1 has
# used so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run_wrk URL CONNS PID prints "req/s p99-ms failures requests
# server-ticks wrk-ticks": wrk's numbers, the answers that were not 2xx or
# failed, and the CPU time the server (PID) and wrk used meanwhile.
run_wrk() {
	local before after
	before=$(ticks "$3")
	# The subshell's children time is wrk's, once wrk has ended.
	out=$(
		wrk -t"$threads" -c"$2" -d"$duration" --timeout 10s --latency -H "x-api-key: $apikey" "$1"
		awk '{print "wrk-cpu", $16 + $17}' "/proc/$BASHPID/stat"
	)
	after=$(ticks "$3")
	awk -v server=$((after - before)) '
		function ms(v) {
			if (v ~ /us$/) { sub(/us$/, "", v); return v / 1000 }
			if (v ~ /ms$/) { sub(/ms$/, "", v); return v + 0 }
			if (v ~ /s$/) { sub(/s$/, "", v); return v * 1000 }
			if (v ~ /m$/) { sub(/m$/, "", v); return v * 60000 }
			return v + 0
		}
		/^Requests\/sec:/ { rps = $2 }
		$1 == "99%" { p99 = ms($2) }
		/ requests in / { n = $1 }
		/Non-2xx or 3xx responses:/ { bad += $NF }
		/Socket errors:/ { for (i = 4; i <= NF; i += 2) { v = $i; sub(/,/, "", v); bad += v } }
		$1 == "wrk-cpu" { wrk = $2 }
		END { if (n + 0 == 0) { bad++; n = 1 }; printf "%s %s %d %d %d %d\n", rps, p99, bad, n, server, wrk }' <<<"$out"
}

# median prints the middle of its arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "warming up..." >&2
for i in "${!paths[@]}"; do
	run_wrk "http://$bare${paths[$i]}${queries[$i]}" 16 "$bpid" >/dev/null
	run_wrk "http://$full${paths[$i]}${queries[$i]}" 16 "$upid" >/dev/null
done

# cpu_us TICKS REQUESTS prints CPU microseconds per request.
hz=$(getconf CLK_TCK)
cpu_us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}'; }

bad_total=0
rows=()
for i in "${!paths[@]}"; do
	for c in "${conns[@]}"; do
		bare_rps=() bare_p99=() full_rps=() full_p99=() ratios=()
		bare_cpu=() full_cpu=() wrk_cpu=() cpu_ratios=()
		for r in $(seq "$runs"); do
			read -r brps bp99 bbad bn bsrv bwrk < <(run_wrk "http://$bare${paths[$i]}${queries[$i]}" "$c" "$bpid")
			if [[ -n "${BENCH_PPROF:-}" && $r == 1 && $c == 64 ]]; then
				seconds=$(awk -v d="${duration%s}" 'BEGIN {s = int(d) - 1; print (s < 1 ? 1 : s)}')
				"$tmp/benchhttp" fetch -out "$BENCH_PPROF/route$i.pprof" "http://$UNICALD_PPROF_ADDR/debug/pprof/profile?seconds=$seconds" &
				pids+=("$!")
			fi
			read -r frps fp99 fbad fn fsrv fwrk < <(run_wrk "http://$full${paths[$i]}${queries[$i]}" "$c" "$upid")
			bad_total=$((bad_total + bbad + fbad))
			bare_rps+=("$brps") bare_p99+=("$bp99") full_rps+=("$frps") full_p99+=("$fp99")
			ratios+=("$(awk -v f="$frps" -v b="$brps" 'BEGIN {printf "%.2f", f / b}')")
			bare_cpu+=("$(cpu_us "$bsrv" "$bn")") full_cpu+=("$(cpu_us "$fsrv" "$fn")")
			wrk_cpu+=("$(cpu_us "$((bwrk + fwrk))" "$((bn + fn))")")
			# The throughput ratio if the cores did nothing but serve and
			# load: CPU per request of wrk plus bare over wrk plus full.
			cpu_ratios+=("$(awk -v bs="$bsrv" -v bw="$bwrk" -v bn="$bn" -v fs="$fsrv" -v fw="$fwrk" -v fn="$fn" \
				'BEGIN {printf "%.2f", ((bs + bw) / bn) / ((fs + fw) / fn)}')")
			echo "  ${names[$i]} c=$c run $r: bare $brps req/s p99 ${bp99} ms ${bare_cpu[-1]} µs/req," \
				"full $frps req/s p99 ${fp99} ms ${full_cpu[-1]} µs/req, wrk ${wrk_cpu[-1]} µs/req" >&2
		done
		mb=$(median "${bare_rps[@]}") mf=$(median "${full_rps[@]}")
		rows+=("$(awk -v n="${names[$i]}" -v c="$c" -v mb="$mb" -v mf="$mf" \
			-v bp="$(median "${bare_p99[@]}")" -v fp="$(median "${full_p99[@]}")" -v rs="${ratios[*]}" \
			-v bc="$(median "${bare_cpu[@]}")" -v fc="$(median "${full_cpu[@]}")" -v wc="$(median "${wrk_cpu[@]}")" \
			-v cr="$(median "${cpu_ratios[@]}")" \
			'BEGIN {printf "| %s | %d | %.0f | %.0f | **%.2f** | %s | %.2f | %.2f | %s | %s | %s | %.2f |", n, c, mb, mf, mf / mb, rs, bp, fp, bc, fc, wc, cr}')")
	done
done
load_rss=$(rss)

echo
echo "unicald serve (store: ${BENCH_STORE:-bolt}) vs bare net/http, same bytes, wrk -t$threads -d$duration, median of $runs ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
echo
echo "| route | connections | bare req/s | full req/s | full/bare | per-run ratios | bare p99 ms | full p99 ms | bare CPU µs/req | full CPU µs/req | wrk CPU µs/req | CPU-bound ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "full/bare is the ratio of the median req/s. CPU-bound ratio: (wrk + bare CPU per request) / (wrk + full CPU per request),"
echo "median of the runs: the throughput ratio on cores that do nothing else, steadier than req/s on a busy machine."
echo
echo "unicald VmRSS: idle after start and 10 requests $idle_rss; after the load $load_rss"
if ((bad_total > 0)); then
	echo
	echo "bench-http: $bad_total answers were not 2xx or failed: the numbers above are not valid." >&2
	if "$tmp/unicald" serve -h 2>&1 | grep -i 'rate' >&2; then
		echo "If a rate limit answered 429, turn it off with BENCH_SERVE_ARGS (flags above)." >&2
	fi
	exit 1
fi
