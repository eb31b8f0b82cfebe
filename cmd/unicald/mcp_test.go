package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
)

// TestMCP_Stdio runs unicald mcp with pipes for stdin and stdout against
// a running server, with a scoped token, and drives it with the SDK's
// client: it lists the token's tools and an account's calendars. When the client
// leaves, the command ends without error.
func TestMCP_Stdio(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	var acct unical.Account
	st.Must(t, "POST", "/v1/endUserAccounts", map[string]any{"email": "room@example.com", "providerType": "VIRTUAL"}).Into(t, &acct)

	r := st.Do(t, "POST", "/v1/tokens", map[string]any{"endUserAccountIds": []string{acct.ID}, "scopes": []string{"events.read"}, "ttlSeconds": 600})
	var token struct {
		Token string `json:"token"`
	}
	r.Into(t, &token)
	if token.Token == "" {
		t.Fatalf("POST /v1/tokens = %d %s", r.Status, r.Body)
	}

	toServer, stdin := io.Pipe()
	stdout, fromServer := io.Pipe()
	var stderr bytes.Buffer
	m := &Main{Stdin: toServer, Stdout: fromServer, Stderr: &stderr,
		Getenv: func(k string) string { return map[string]string{tokenEnv: token.Token}[k] }}
	done := make(chan error, 1)
	go func() {
		err := m.Run(t.Context(), []string{"mcp", "--server", st.URL})
		fromServer.Close()
		done <- err
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "unical-test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if d := cmp.Diff([]string{"list_calendars", "list_events"}, names); d != "" {
		t.Errorf("tools of an events.read token (-want +got):\n%s", d)
	}
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "list_calendars", Arguments: map[string]any{"endUserAccountId": acct.ID}})
	if err != nil || res.IsError {
		t.Fatalf("list_calendars: %v %+v", err, res)
	}
	var page unical.SyncPage[*unical.Calendar]
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &page); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range page.Data {
		ids = append(ids, c.ID)
	}
	if d := cmp.Diff([]string{"primary"}, ids); d != "" {
		t.Errorf("calendars (-want +got):\n%s", d)
	}
	if err := session.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("unicald mcp after the client left: %v (stderr %q)", err, stderr.String())
	}
}

// TestMCP_StdioRefused: without --server or the token, or with a token
// the server refuses, unicald mcp stops before serving, saying why.
func TestMCP_StdioRefused(t *testing.T) {
	t.Parallel()
	st := apitest.Start(t, nil, nil)
	st.CreateApp(t, &admin.ApplicationParams{})
	tests := []struct {
		name, server, token string
		want                string
		usage               bool
	}{
		{"NoServer", "", st.APIKey, "--server", true},
		{"NoToken", st.URL, "", "UNICAL_TOKEN", true},
		{"BadKey", st.URL, "uk_nope_nope", "the server refused the token (unauthorized)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
				Getenv: func(k string) string { return map[string]string{tokenEnv: tt.token}[k] }}
			args := []string{"mcp"}
			if tt.server != "" {
				args = append(args, "--server", tt.server)
			}
			err := m.Run(t.Context(), args)
			if err == nil || !strings.Contains(err.Error(), tt.want) || (exitCode(err) == 2) != tt.usage {
				t.Errorf("unicald %v: %v (exit %d), want an error naming %q", args, err, exitStatus(err), tt.want)
			}
		})
	}
}
