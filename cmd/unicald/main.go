// Command unicald runs the unical /v1 REST server on the embedded bbolt
// store (or PostgreSQL), and administers its applications and API keys.
//
//	unicald serve                      run the server
//	unicald apps create --name N --json
//	unicald apps update --id ID [flags]
//	unicald apps list [--json]
//	unicald apps delete --id ID [--cascade]
//	unicald apps delegation set|get|remove --id ID --provider P [flags]
//	unicald keys create --app ID [--label L]
//	unicald keys list --app ID [--json]
//	unicald keys revoke --app ID --key KEY_ID
//	unicald mcp --server URL           MCP over stdio (token in UNICAL_TOKEN)
//
// Every command and group prints its usage with -h, --help or help. The
// apps and keys commands open the data folder while the server is
// stopped; with --server URL they call the admin API (/admin/v1) of a
// running server instead, with the token in UNICAL_ADMIN_TOKEN.
//
// Settings come from flags or the environment; each flag's help names its
// environment variable. UNICAL_MASTER_KEY (else a 0600 key file in the
// data folder, created on first start) and UNICAL_ADMIN_TOKEN (else one
// made and printed on first start) have no flag.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // time zones work on machines without a tz database
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	if err := m.Run(ctx, os.Args[1:]); err != nil {
		os.Exit(report(os.Stderr, err))
	}
}

// commandTree is the command line. A new command is a *command added to
// the subs of its group (a new group is a *command with subs of its own):
// it gets its help, its usage errors and the hint after them from the tree.
func commandTree() *command {
	return &command{
		synopsis: "COMMAND [flags]",
		summary:  "unicald serves the unical /v1 REST API, its admin API and dashboard, and administers its applications.",
		notes: `Every command takes --data DIR (the bbolt store, the default; env UNICAL_DATA_DIR) or
--store postgres://USER:PASSWORD@HOST/DB (env UNICAL_STORE_URL; needs UNICAL_MASTER_KEY, the same on
every replica). apps and keys take --server URL to call the admin API of a running server instead
(admin token from UNICAL_ADMIN_TOKEN).`,
		subs: []*command{serveCommand(), appsCommands(), keysCommands(), mcpCommand()},
	}
}
