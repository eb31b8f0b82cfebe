package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical/mcpserver"
)

// tokenEnv names the environment variable unicald mcp reads its token
// from: a token on the command line would show in the process list.
const tokenEnv = "UNICAL_TOKEN"

func mcpCommand() *command {
	return &command{
		path: "mcp", synopsis: "--server URL",
		summary: "Serve MCP (Model Context Protocol) over stdin and stdout for a local AI agent; its tools call the /v1 API of a running server.",
		notes: `Environment without a flag:
  ` + tokenEnv + `  the scoped token (ust_..., POST /v1/tokens) the tools call /v1 with; only the tools within
                its scopes are listed. A trusted local agent may be given the application's API key (uk_...).
It never opens a data folder or store: everything goes through --server. See docs/mcp.md.`,
		setup: (*Main).mcpSetup,
	}
}

func (m *Main) mcpSetup(fs *flag.FlagSet) (func(context.Context) error, error) {
	server := fs.String("server", m.env("UNICAL_SERVER", ""), withEnv("base URL of the running unicald server, such as https://cal.example.com", "UNICAL_SERVER"))
	return func(ctx context.Context) error {
		u, err := url.Parse(*server)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return usageError{msg: "mcp needs --server, the server's base URL, such as http://127.0.0.1:8080"}
		}
		token := m.Getenv(tokenEnv)
		if token == "" {
			return usageError{msg: "mcp needs the token in " + tokenEnv}
		}
		remote := &mcpserver.Remote{URL: *server, Token: token, HTTPClient: &http.Client{
			// A tool call is one /v1 request; the server bounds its own.
			Timeout: 2 * time.Minute,
			// The token goes to --server only.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}}
		var in io.Reader = m.Stdin
		if in == nil {
			in = os.Stdin
		}
		return remote.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{m.Stdout}})
	}, nil
}

// nopWriteCloser lets the protocol close its writer without closing
// unicald's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
