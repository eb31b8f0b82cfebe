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
# which the bare server then repeats byte for byte with the same headers,
# at the same garbage-collection target (GOGC, default unicald serve's 200).
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
#   BENCH_STORE        "bolt" (default): bbolt in a data folder. "postgres": a
#                      PostgreSQL store (--store) in a throwaway cluster this
#                      script starts on loopback with initdb and pg_ctl
#                      (Debian's postgresql; default durability). "both": one
#                      unicald on each, measured in turn in the same run, each
#                      against a bare server repeating its own answers, and a
#                      second table of PostgreSQL / bbolt per route.
#   BENCH_PPROF        a folder: build unicald with -tags pprof (cmd/unicald/pprof.go)
#                      and save a CPU profile of its first run of each route at
#                      64 connections there (routeN-STORE.pprof), for
#                      `go tool pprof DIR/unicald DIR/*.pprof`
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${BENCH_DURATION:-5s}
runs=${BENCH_RUNS:-3}
threads=${BENCH_THREADS:-2}
conns=(16 64)
accounts=50
case "${BENCH_STORE:-bolt}" in
bolt) stores=(bolt) ;;
postgres) stores=(postgres) ;;
both) stores=(bolt postgres) ;;
*) echo "bench-http: BENCH_STORE must be bolt, postgres or both" >&2; exit 2 ;;
esac

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
else
	go build -o "$tmp/unicald" ./cmd/unicald
fi
go build -o "$tmp/benchhttp" ./scripts/benchhttp

# start_postgres starts a throwaway cluster, as internal/testkit/pgtest starts one,
# and sets pg_url: initdb and postgres refuse to run as root, so as root
# they run as the postgres user, in a folder it owns.
start_postgres() {
	local pgbin pgport
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
	pg_url="postgres://unical@127.0.0.1:$pgport/bench?sslmode=disable"
	echo "store: PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pgport" >&2
}

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

# Per store (index k of stores): its API key, the unicald and bare
# servers' addresses and process ids, and the paths of its two routes.
names=("GET /v1/endUserAccounts/{id}" "GET /v1/endUserAccounts?limit=$accounts")
apikeys=() fulls=() upids=() bares=() bpids=() idle_rss=() routes0=() routes1=()
rss() { awk '/^VmRSS:/ {printf "%.1f MB", $2/1024}' "/proc/$1/status"; }

for k in "${!stores[@]}"; do
	st=${stores[$k]}
	dir="$tmp/$st"
	mkdir -p "$dir"
	if [[ $st == postgres ]]; then
		start_postgres
		if [[ -z "${UNICAL_MASTER_KEY:-}" ]]; then
			UNICAL_MASTER_KEY=$(head -c 32 /dev/urandom | base64)
			export UNICAL_MASTER_KEY
		fi
		store_args=(--store "$pg_url")
		seed_args=(-store "$pg_url")
	else
		store_args=(--data "$dir/data")
		seed_args=(-data "$dir/data")
	fi
	read -r apikey account < <("$tmp/benchhttp" seed "${seed_args[@]}" -accounts "$accounts")
	[[ -n "$account" ]] || { echo "bench-http: seeding $st failed" >&2; exit 1; }

	env_pprof=()
	if [[ -n "${BENCH_PPROF:-}" ]]; then
		env_pprof=(env "UNICALD_PPROF_ADDR=127.0.0.1:$((20000 + RANDOM % 20000))")
	fi
	# shellcheck disable=SC2086 # BENCH_SERVE_ARGS is a list of flags
	"${env_pprof[@]}" "$tmp/unicald" serve --addr 127.0.0.1:0 "${store_args[@]}" ${BENCH_SERVE_ARGS---rate-limit-key 1e6 --rate-limit-ip 1e6} >"$dir/unicald.out" 2>"$dir/unicald.log" &
	upid=$!
	pids+=("$upid")
	full=$(read_addr "$dir/unicald.log")

	paths=("/v1/endUserAccounts/$account" "/v1/endUserAccounts?limit=$accounts")
	bare_args=()
	for i in "${!paths[@]}"; do
		"$tmp/benchhttp" fetch -key "$apikey" -out "$dir/body$i" "http://$full${paths[$i]}"
		bare_args+=(-route "${paths[$i]%%\?*}=$dir/body$i")
	done
	listed=$(grep -o '"id":"acc_' "$dir/body1" | wc -l)
	if ((listed != accounts)); then
		echo "bench-http: the list of $st holds $listed accounts, want $accounts" >&2
		exit 1
	fi
	# The bare server collects garbage at the target unicald serve runs
	# with (serveGCPercent in cmd/unicald/gc.go, or GOGC when set), so the
	# two differ only in what they do per request.
	GOGC=${GOGC:-200} "$tmp/benchhttp" bare "${bare_args[@]}" >"$dir/bare.out" 2>&1 &
	bpid=$!
	pids+=("$bpid")
	bare=$(read_addr "$dir/bare.out")

	# A few requests, then the idle footprint.
	for _ in $(seq 5); do
		for i in "${!paths[@]}"; do
			"$tmp/benchhttp" fetch -key "$apikey" -out "$dir/scratch" "http://$full${paths[$i]}"
		done
	done
	sleep 1
	apikeys+=("$apikey") fulls+=("$full") upids+=("$upid") bares+=("$bare") bpids+=("$bpid")
	idle_rss+=("$(rss "$upid")") routes0+=("${paths[0]}") routes1+=("${paths[1]}")
done

# route K I prints route I of store K.
route() {
	if (($2 == 0)); then echo "${routes0[$1]}"; else echo "${routes1[$1]}"; fi
}

# ticks prints the CPU time (user + system, in clock ticks) process $1 has
# used so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run_wrk URL CONNS PID KEY prints "req/s p99-ms failures requests
# server-ticks wrk-ticks": wrk's numbers, the answers that were not 2xx or
# failed, and the CPU time the server (PID) and wrk used meanwhile.
run_wrk() {
	local before after
	before=$(ticks "$3")
	# The subshell's children time is wrk's, once wrk has ended.
	out=$(
		wrk -t"$threads" -c"$2" -d"$duration" --timeout 10s --latency -H "x-api-key: $4" "$1"
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
for k in "${!stores[@]}"; do
	for i in 0 1; do
		run_wrk "http://${bares[$k]}$(route "$k" "$i")" 16 "${bpids[$k]}" "${apikeys[$k]}" >/dev/null
		run_wrk "http://${fulls[$k]}$(route "$k" "$i")" 16 "${upids[$k]}" "${apikeys[$k]}" >/dev/null
	done
done

# cpu_us TICKS REQUESTS prints CPU microseconds per request.
hz=$(getconf CLK_TCK)
cpu_us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN {printf "%.1f", t / hz * 1e6 / n}'; }

# col N prints column N of the runs of store k at route i and c
# connections, from the file the runs append to, whose columns are: store,
# bare req/s, bare p99, full req/s, full p99, bare CPU µs/req, full CPU
# µs/req, wrk CPU µs/req, then the ticks of bare, its wrk, its requests,
# and of full, its wrk, its requests.
col() { awk -v k="$k" -v n="$1" '$1 == k {print $n}' "$tmp/runs-$i-$c"; }

bad_total=0
rows=()     # per store and route, the full/bare table
pg_rows=()  # with both stores, PostgreSQL against bbolt
for i in 0 1; do
	for c in "${conns[@]}"; do
		med_full=()
		for r in $(seq "$runs"); do
			# The stores take turns within each run, so that a change in
			# the machine's load falls on both.
			for k in "${!stores[@]}"; do
				st=${stores[$k]}
				url_path=$(route "$k" "$i")
				read -r brps bp99 bbad bn bsrv bwrk < <(run_wrk "http://${bares[$k]}$url_path" "$c" "${bpids[$k]}" "${apikeys[$k]}")
				if [[ -n "${BENCH_PPROF:-}" && $r == 1 && $c == 64 ]]; then
					seconds=$(awk -v d="${duration%s}" 'BEGIN {s = int(d) - 1; print (s < 1 ? 1 : s)}')
					pprof_addr=$(tr '\0' '\n' <"/proc/${upids[$k]}/environ" | sed -n 's/^UNICALD_PPROF_ADDR=//p')
					"$tmp/benchhttp" fetch -out "$BENCH_PPROF/route$i-$st.pprof" "http://$pprof_addr/debug/pprof/profile?seconds=$seconds" &
					pids+=("$!")
				fi
				read -r frps fp99 fbad fn fsrv fwrk < <(run_wrk "http://${fulls[$k]}$url_path" "$c" "${upids[$k]}" "${apikeys[$k]}")
				bad_total=$((bad_total + bbad + fbad))
				echo "$k $brps $bp99 $frps $fp99 $(cpu_us "$bsrv" "$bn") $(cpu_us "$fsrv" "$fn") $(cpu_us "$((bwrk + fwrk))" "$((bn + fn))") $bsrv $bwrk $bn $fsrv $fwrk $fn" >>"$tmp/runs-$i-$c"
				echo "  ${names[$i]} c=$c run $r $st: bare $brps req/s p99 ${bp99} ms, full $frps req/s p99 ${fp99} ms" >&2
			done
		done
		for k in "${!stores[@]}"; do
			st=${stores[$k]}
			mapfile -t b < <(col 2)
			mapfile -t f < <(col 4)
			rs=$(awk -v k="$k" '$1 == k {printf "%s%.2f", sep, $4 / $2; sep = " "}' "$tmp/runs-$i-$c")
			cr=$(median $(awk -v k="$k" '$1 == k {printf "%.2f\n", (($9 + $10) / $11) / (($12 + $13) / $14)}' "$tmp/runs-$i-$c"))
			mb=$(median "${b[@]}") mf=$(median "${f[@]}")
			med_full[$k]=$mf
			rows+=("$(awk -v n="${names[$i]}" -v st="$st" -v c="$c" -v mb="$mb" -v mf="$mf" \
				-v bp="$(median $(col 3))" -v fp="$(median $(col 5))" -v rs="$rs" \
				-v bc="$(median $(col 6))" -v fc="$(median $(col 7))" -v wc="$(median $(col 8))" -v cr="$cr" \
				'BEGIN {printf "| %s | %s | %d | %.0f | %.0f | **%.2f** | %s | %.2f | %.2f | %s | %s | %s | %.2f |", n, st, c, mb, mf, mf / mb, rs, bp, fp, bc, fc, wc, cr}')")
		done
		if ((${#stores[@]} == 2)); then
			# Per run, PostgreSQL's req/s over bbolt's, and the same for the
			# CPU-bound estimate (each store's full/bare CPU-bound ratio).
			pr=$(awk '{rps[$1] = rps[$1] " " $4} END {n = split(rps[0], a, " "); split(rps[1], b, " "); for (j = 1; j <= n; j++) printf "%s%.2f", (j > 1 ? " " : ""), b[j] / a[j]}' "$tmp/runs-$i-$c")
			# CPU per request of wrk and unicald, bbolt's over PostgreSQL's.
			cr=$(median $(awk '{cpu[$1] = cpu[$1] " " ($12 + $13) / $14} END {n = split(cpu[0], a, " "); split(cpu[1], b, " "); for (j = 1; j <= n; j++) printf "%.2f\n", a[j] / b[j]}' "$tmp/runs-$i-$c"))
			pg_rows+=("$(awk -v n="${names[$i]}" -v c="$c" -v mb="${med_full[0]}" -v mp="${med_full[1]}" -v pr="$pr" -v cr="$cr" \
				'BEGIN {printf "| %s | %d | %.0f | %.0f | **%.2f** | %s | %.2f |", n, c, mb, mp, mp / mb, pr, cr}')")
		fi
	done
done

echo
echo "unicald serve vs bare net/http, same bytes, both at GOGC=${GOGC:-200}, wrk -t$threads -d$duration, median of $runs ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| route | store | connections | bare req/s | full req/s | full/bare | per-run ratios | bare p99 ms | full p99 ms | bare CPU µs/req | full CPU µs/req | wrk CPU µs/req | CPU-bound ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "full/bare is the ratio of the median req/s. CPU-bound ratio: (wrk + bare CPU per request) / (wrk + full CPU per request),"
echo "median of the runs: the throughput ratio on cores that do nothing else, steadier than req/s on a busy machine."
if ((${#pg_rows[@]} > 0)); then
	echo
	echo "| route | connections | bbolt req/s | PostgreSQL req/s | PostgreSQL / bbolt | per-run ratios | CPU-bound ratio |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${pg_rows[@]}"
	echo
	echo "CPU-bound ratio here: (wrk + unicald CPU per request on bbolt) / (the same on PostgreSQL), median of the runs;"
	echo "PostgreSQL's own CPU (the server runs on the same cores) is not in it, nor in unicald's CPU per request above."
fi
echo
for k in "${!stores[@]}"; do
	echo "unicald VmRSS (${stores[$k]}): idle after start and 10 requests ${idle_rss[$k]}; after the load $(rss "${upids[$k]}")"
done
if ((bad_total > 0)); then
	echo
	echo "bench-http: $bad_total answers were not 2xx or failed: the numbers above are not valid." >&2
	if "$tmp/unicald" serve -h 2>&1 | grep -i 'rate' >&2; then
		echo "If a rate limit answered 429, turn it off with BENCH_SERVE_ARGS (flags above)." >&2
	fi
	exit 1
fi
