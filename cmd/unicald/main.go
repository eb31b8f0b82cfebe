// Command unicald runs the unical /v1 REST server on the embedded bbolt
// store, and administers its applications and API keys.
//
//	unicald serve                      run the server
//	unicald apps create --name N --json
//	unicald apps update --id ID [flags]
//	unicald apps list
//	unicald apps delete --id ID [--cascade]
//	unicald keys create --app ID
//	unicald keys list --app ID
//	unicald keys revoke --app ID --key KEY_ID
//
// The apps and keys commands open the data folder while the server is
// stopped; with --server URL they call the admin API (/admin/v1) of a
// running server instead, with the token in UNICAL_ADMIN_TOKEN.
//
// Settings come from flags or the environment: UNICAL_ADDR (default
// 127.0.0.1:8080), UNICAL_DATA_DIR (default ./unicald-data),
// UNICAL_PUBLIC_URL, UNICAL_MASTER_KEY (else a 0600 key file in the data
// folder, created on first start), UNICAL_ADMIN_TOKEN (else one made and
// printed on first start), UNICAL_METRICS_ADDR,
// UNICAL_POLL_INTERVAL, UNICAL_RETRY_SCHEDULE and UNICAL_RETRY_JITTER.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // time zones work on machines without a tz database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	if err := m.Run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "unicald:", err)
		os.Exit(exitCode(err))
	}
}

// usageError marks a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitCode(err error) int {
	if _, ok := err.(usageError); ok {
		return 2
	}
	return 1
}

const usage = `usage:
  unicald serve [--addr ADDR] [--data DIR | --store URL] [--public-url URL] [--metrics-addr ADDR]
                [--poll-interval 1m] [--retry-schedule 5s,5m,30m,2h,5h,10h,10h] [--retry-jitter 0.2]
                [--allow-private-targets] [--delivery-timeout 15s] [--delivery-lease 2m]
                [--endpoint-disable-after 120h] [--rate-limit-key 100] [--rate-limit-ip 200]
                [--trust-forwarded-for] [--request-timeout 30s]
                [--sweep-interval 5m] [--delivered-retention 168h] [--failed-retention 720h]
                [--delivery-log-ttl 168h] [--reconcile-interval 15m]
  unicald apps create --name NAME [--json] [--redirect-url URL]...
  unicald apps update --id APP_ID [--name NAME] [--redirect-url URL]... [--webhook-url URL]
                      [--provider provider_a|provider_b|provider_c --client-id ID --client-secret-file FILE
                       --auth-url URL --token-url URL --userinfo-url URL --api-base-url URL --server-url URL --tenant T]
  unicald apps list
  unicald apps delete --id APP_ID [--cascade]
  unicald keys create --app APP_ID
  unicald keys list --app APP_ID
  unicald keys revoke --app APP_ID --key KEY_ID
every command also takes --data DIR (bbolt, the default) or --store postgres://USER:PASSWORD@HOST/DB
(env UNICAL_STORE_URL; needs UNICAL_MASTER_KEY, the same on every replica); apps and keys take
--server URL to call the admin API of a running server instead (admin token from UNICAL_ADMIN_TOKEN)`

func writeUsage(w io.Writer) { fmt.Fprintln(w, usage) }
