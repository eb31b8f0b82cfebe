package main

import (
	"bytes"
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/memory"
)

// adminFlagNames are the flags of every apps and keys command.
var adminFlagNames = []string{"data", "store", "server"}

// serveFlagEnv pairs each serve flag with its environment variable, as
// the README's settings table does ("" for flags without one).
var serveFlagEnv = map[string]string{
	"addr":                   "UNICAL_ADDR",
	"data":                   "UNICAL_DATA_DIR",
	"store":                  "UNICAL_STORE_URL",
	"public-url":             "UNICAL_PUBLIC_URL",
	"allow-private-targets":  "UNICAL_ALLOW_PRIVATE_TARGETS=1",
	"delivery-timeout":       "",
	"delivery-lease":         "",
	"endpoint-disable-after": "",
	"rate-limit-key":         "UNICAL_RATE_LIMIT_KEY",
	"rate-limit-ip":          "UNICAL_RATE_LIMIT_IP",
	"trust-forwarded-for":    "UNICAL_TRUST_FORWARDED_FOR=1",
	"request-timeout":        "UNICAL_REQUEST_TIMEOUT",
	"sweep-interval":         "",
	"delivered-retention":    "",
	"failed-retention":       "",
	"delivery-log-ttl":       "",
	"poll-interval":          "UNICAL_POLL_INTERVAL",
	"reconcile-interval":     "UNICAL_RECONCILE_INTERVAL",
	"grant-check-interval":   "UNICAL_GRANT_CHECK_INTERVAL",
	"grant-keep-alive":       "UNICAL_GRANT_KEEP_ALIVE",
	"retry-schedule":         "UNICAL_RETRY_SCHEDULE",
	"retry-jitter":           "UNICAL_RETRY_JITTER",
	"metrics-addr":           "UNICAL_METRICS_ADDR",
}

// helpEntries returns the flags a help text lists, each with its text.
func helpEntries(help string) map[string]string {
	entries := map[string]string{}
	lines := strings.Split(help, "\n")
	for i, line := range lines {
		if name, ok := strings.CutPrefix(line, "  --"); ok && i+1 < len(lines) {
			name, _, _ = strings.Cut(name, " ")
			entries[name] = strings.TrimSpace(lines[i+1])
		}
	}
	return entries
}

func TestHelp(t *testing.T) {
	t.Parallel()
	var serveFlags []string
	for name := range serveFlagEnv {
		serveFlags = append(serveFlags, name)
	}
	settings := []string{"name", "redirect-url", "webhook-url", "provider", "client-id", "client-secret-file",
		"auth-url", "token-url", "userinfo-url", "api-base-url", "server-url", "tenant"}
	tests := []struct {
		name  string
		args  []string
		usage string   // the first line
		flags []string // flags the help must list
		words []string // other text it must hold (subcommands)
	}{
		{"Root", []string{"--help"}, "usage: unicald COMMAND [flags]", nil, []string{"unicald serve", "unicald apps", "unicald keys"}},
		{"RootShort", []string{"-h"}, "usage: unicald COMMAND [flags]", nil, []string{"unicald serve"}},
		{"RootWord", []string{"help"}, "usage: unicald COMMAND [flags]", nil, []string{"unicald keys"}},
		{"Serve", []string{"serve", "-h"}, "usage: unicald serve [flags]", serveFlags, []string{"UNICAL_MASTER_KEY", "UNICAL_ADMIN_TOKEN"}},
		{"ServeLong", []string{"serve", "--help"}, "usage: unicald serve [flags]", serveFlags, nil},
		{"ServeWord", []string{"serve", "help"}, "usage: unicald serve [flags]", serveFlags, nil},
		{"HelpServe", []string{"help", "serve"}, "usage: unicald serve [flags]", serveFlags, nil},
		{"Apps", []string{"apps", "--help"}, "usage: unicald apps COMMAND [flags]", nil,
			[]string{"unicald apps create", "unicald apps update", "unicald apps list", "unicald apps delete"}},
		{"AppsShort", []string{"apps", "-h"}, "usage: unicald apps COMMAND [flags]", nil, []string{"unicald apps list"}},
		{"AppsWord", []string{"apps", "help"}, "usage: unicald apps COMMAND [flags]", nil, []string{"unicald apps list"}},
		{"AppsCreate", []string{"apps", "create", "--help"}, "usage: unicald apps create --name NAME",
			append(append([]string{"json"}, settings...), adminFlagNames...), nil},
		{"AppsUpdate", []string{"apps", "update", "-h"}, "usage: unicald apps update --id APP_ID",
			append(append([]string{"id"}, settings...), adminFlagNames...), nil},
		{"AppsList", []string{"apps", "list", "--help"}, "usage: unicald apps list [--json]", append([]string{"json"}, adminFlagNames...), nil},
		{"AppsDelete", []string{"apps", "delete", "help"}, "usage: unicald apps delete --id APP_ID [--cascade]", append([]string{"id", "cascade"}, adminFlagNames...), nil},
		{"HelpAppsDelete", []string{"help", "apps", "delete"}, "usage: unicald apps delete --id APP_ID [--cascade]", []string{"id", "cascade"}, nil},
		{"Keys", []string{"keys", "--help"}, "usage: unicald keys COMMAND --app APP_ID [flags]", nil,
			[]string{"unicald keys create", "unicald keys list", "unicald keys revoke"}},
		{"KeysCreate", []string{"keys", "create", "-h"}, "usage: unicald keys create --app APP_ID [--label LABEL]", append([]string{"app", "label"}, adminFlagNames...), nil},
		{"KeysList", []string{"keys", "list", "--help"}, "usage: unicald keys list --app APP_ID [--json]", append([]string{"app", "json"}, adminFlagNames...), nil},
		{"KeysRevoke", []string{"keys", "revoke", "-help"}, "usage: unicald keys revoke --app APP_ID --key KEY_ID", append([]string{"app", "key"}, adminFlagNames...), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, err := runCommand(t, nil, tc.args...)
			if code := exitStatus(err); code != 0 || stderr != "" {
				t.Fatalf("unicald %v: exit %d (%v), stderr %q; want 0 and nothing", tc.args, code, err, stderr)
			}
			if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, tc.usage) {
				t.Errorf("unicald %v: first line %q, want it to start with %q", tc.args, first, tc.usage)
			}
			entries := helpEntries(stdout)
			for _, f := range tc.flags {
				if _, ok := entries[f]; !ok {
					t.Errorf("unicald %v: help does not list --%s:\n%s", tc.args, f, stdout)
				}
			}
			for _, w := range tc.words {
				if !strings.Contains(stdout, w) {
					t.Errorf("unicald %v: help does not name %q:\n%s", tc.args, w, stdout)
				}
			}
		})
	}
}

// exitStatus is the exit status main gives err.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}

// TestHelp_EveryCommand asks every command and group of the tree for
// help, so a command added later is covered too: exit 0, usage on stdout.
func TestHelp_EveryCommand(t *testing.T) {
	t.Parallel()
	var walk func(c *command)
	walk = func(c *command) {
		for _, word := range []string{"-h", "--help", "help"} {
			args := append(strings.Fields(c.path), word)
			stdout, stderr, err := runCommand(t, nil, args...)
			if err != nil || stderr != "" || !strings.HasPrefix(stdout, "usage: "+c.name()) {
				t.Errorf("unicald %v: %v, stderr %q, stdout %q; want usage on stdout and exit 0", args, err, stderr, stdout)
			}
		}
		for _, s := range c.subs {
			walk(s)
		}
	}
	walk(commandTree())
}

// TestHelp_BadEnvironment: a bad value in the environment does not stop
// --help, and stops the command itself with a usage error.
func TestHelp_BadEnvironment(t *testing.T) {
	t.Parallel()
	env := map[string]string{"UNICAL_RATE_LIMIT_KEY": "fast"}
	if stdout, _, err := runCommand(t, env, "serve", "--help"); err != nil || !strings.Contains(stdout, "--rate-limit-key") {
		t.Errorf("serve --help with a bad UNICAL_RATE_LIMIT_KEY: %v\n%s", err, stdout)
	}
	if _, _, err := runCommand(t, env, "serve", "--data", t.TempDir()); exitStatus(err) != 2 || !strings.Contains(err.Error(), "UNICAL_RATE_LIMIT_KEY") {
		t.Errorf("serve with a bad UNICAL_RATE_LIMIT_KEY: %v, want a usage error naming it", err)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantErr  string
		wantHelp string // the command the hint names
	}{
		{"NoCommand", nil, "unicald needs a command: serve, apps, keys", "unicald"},
		{"UnknownCommand", []string{"frob"}, `unicald has no command "frob"`, "unicald"},
		{"AppsAlone", []string{"apps"}, "apps needs a command: create, update, list, delete", "unicald apps"},
		{"UnknownAppsCommand", []string{"apps", "frob"}, `apps has no command "frob"`, "unicald apps"},
		{"UnknownHelpTopic", []string{"help", "frob"}, `unicald has no command "frob"`, "unicald"},
		{"UnknownFlag", []string{"apps", "list", "--bogus"}, "unknown flag --bogus", "unicald apps list"},
		{"KeysWithoutApp", []string{"keys", "list"}, "keys list needs --app", "unicald keys list"},
		{"RevokeWithoutKey", []string{"keys", "revoke", "--app", "app_1"}, "keys revoke needs --key", "unicald keys revoke"},
		{"UpdateWithoutID", []string{"apps", "update", "--name", "x"}, "apps update needs --id", "unicald apps update"},
		{"Argument", []string{"serve", "extra"}, `serve takes only flags, not "extra"`, "unicald serve"},
		{"BadValue", []string{"serve", "--rate-limit-key", "-1"}, "must not be negative", "unicald serve"},
		{"BadDuration", []string{"serve", "--poll-interval", "soon"}, `"soon" is not a duration`, "unicald serve"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := tc.args
			if len(args) > 1 && args[0] != "help" {
				args = append(args, "--data", t.TempDir())
			}
			stdout, _, err := runCommand(t, nil, args...)
			if err == nil {
				t.Fatalf("unicald %v succeeded; want a usage error", args)
			}
			var out bytes.Buffer
			code := report(&out, err)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if code != 2 || len(lines) != 2 || !strings.Contains(lines[0], tc.wantErr) {
				t.Errorf("unicald %v: exit %d, said %q; want 2, one line with %q, and a hint", args, code, lines, tc.wantErr)
			}
			if want := "Run '" + tc.wantHelp + " --help' for usage."; lines[len(lines)-1] != want {
				t.Errorf("unicald %v: hint %q, want %q", args, lines[len(lines)-1], want)
			}
			if stdout != "" {
				t.Errorf("unicald %v printed %q on stdout; want nothing", args, stdout)
			}
		})
	}
}

// TestFlagEnv checks that each flag's help names its environment
// variable, that flags without one name none, and that help never shows
// the store URL's password.
func TestFlagEnv(t *testing.T) {
	t.Parallel()
	stdout, _, err := runCommand(t, nil, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	entries := helpEntries(stdout)
	for flag, env := range serveFlagEnv {
		text, ok := entries[flag]
		switch {
		case !ok:
			t.Errorf("serve --help does not list --%s", flag)
		case env == "" && strings.Contains(text, "(env "):
			t.Errorf("--%s: %q names an environment variable; it has none", flag, text)
		case env != "" && !strings.Contains(text, "(env "+env+")"):
			t.Errorf("--%s: %q does not name %s", flag, text, env)
		}
	}
	if len(entries) != len(serveFlagEnv) {
		t.Errorf("serve --help lists %d flags, the table here %d: add the new flag's environment variable to serveFlagEnv", len(entries), len(serveFlagEnv))
	}
	for _, args := range [][]string{{"apps", "list", "--help"}, {"keys", "create", "--help"}} {
		env := map[string]string{"UNICAL_STORE_URL": "postgres://unical:pw-needle@db.example.com/unical"}
		stdout, _, err := runCommand(t, env, args...)
		entries := helpEntries(stdout)
		if err != nil || !strings.Contains(entries["data"], "(env UNICAL_DATA_DIR)") || !strings.Contains(entries["store"], "(env UNICAL_STORE_URL)") ||
			!strings.Contains(entries["server"], "UNICAL_ADMIN_TOKEN") {
			t.Errorf("unicald %v: %v; want --data, --store and --server naming their environment:\n%s", args, err, stdout)
		}
		if strings.Contains(stdout, "pw-needle") {
			t.Errorf("unicald %v shows the store URL's password", args)
		}
	}
}

// tableRows splits a printed table into its cells.
func tableRows(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1))
	}
	return rows
}

// TestListCommands: apps list and keys list print the same table, and
// with --json the same indented JSON, offline and through --server.
func TestListCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(env map[string]string, args ...string) string {
		t.Helper()
		out, errOut, err := runCommand(t, env, args...)
		if err != nil {
			t.Fatalf("unicald %v: %v\n%s", args, err, errOut)
		}
		return out
	}
	var shop, blog admin.CreatedApplication
	json.Unmarshal([]byte(run(nil, "apps", "create", "--name", "shop", "--provider", "provider_a", "--client-id", "cid", "--json", "--data", dir)), &shop)
	json.Unmarshal([]byte(run(nil, "apps", "create", "--name", "blog two", "--json", "--data", dir)), &blog)
	var key struct {
		KeyID  string `json:"keyId"`
		APIKey string `json:"apiKey"`
	}
	json.Unmarshal([]byte(run(nil, "keys", "create", "--app", shop.ApplicationID, "--label", "cron job", "--data", dir)), &key)
	lists := [][]string{
		{"apps", "list"},
		{"apps", "list", "--json"},
		{"keys", "list", "--app", shop.ApplicationID},
		{"keys", "list", "--app", shop.ApplicationID, "--json"},
	}
	offline := make([]string, len(lists))
	for i, args := range lists {
		offline[i] = run(nil, append(args, "--data", dir)...)
	}
	srv := MustRunMain(t, dir, []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})})
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminTokenFrom(t, srv.Stdout.String())}
	remote := make([]string, len(lists))
	for i, args := range lists {
		remote[i] = run(env, append(args, "--server", srv.URL)...)
	}

	// JSON: indented, the same records both ways.
	var apps, remoteApps []admin.ApplicationView
	var keys, remoteKeys []admin.APIKeyView
	for _, p := range []struct {
		out string
		v   any
	}{{offline[1], &apps}, {remote[1], &remoteApps}, {offline[3], &keys}, {remote[3], &remoteKeys}} {
		if err := json.Unmarshal([]byte(p.out), p.v); err != nil || !strings.HasPrefix(p.out, "[\n  {") {
			t.Fatalf("--json printed %q (%v); want an indented JSON array", p.out, err)
		}
	}
	if diff := cmp.Diff(apps, remoteApps); diff != "" {
		t.Errorf("apps list --json mismatch (-offline +server):\n%s", diff)
	}
	if diff := cmp.Diff(keys, remoteKeys); diff != "" {
		t.Errorf("keys list --json mismatch (-offline +server):\n%s", diff)
	}
	if len(apps) != 2 || apps[0].ID != shop.ApplicationID || len(keys) != 2 || keys[1].ID != key.KeyID {
		t.Fatalf("apps %+v, keys %+v; want shop and blog, and shop's two keys", apps, keys)
	}

	// Tables: a header, one row per record, no secret; the same both ways.
	created := func(at time.Time) string { return at.UTC().Format(time.RFC3339) }
	wantApps := [][]string{
		{"ID", "NAME", "PROVIDERS", "WEBHOOK", "CREATED"},
		{shop.ApplicationID, "shop", "PROVIDER_A", "-", created(apps[0].CreatedAt)},
		{blog.ApplicationID, "blog two", "-", "-", created(apps[1].CreatedAt)},
	}
	wantKeys := [][]string{
		{"ID", "LABEL", "PREFIX", "CREATED", "LAST USED"},
		{keys[0].ID, "-", keys[0].Prefix, created(keys[0].CreatedAt), "never"},
		{key.KeyID, "cron job", keys[1].Prefix, created(keys[1].CreatedAt), "never"},
	}
	for i, want := range [][][]string{wantApps, nil, wantKeys} {
		if want == nil {
			continue
		}
		for where, out := range map[string]string{"offline": offline[i], "--server": remote[i]} {
			if diff := cmp.Diff(want, tableRows(out)); diff != "" {
				t.Errorf("%v %s mismatch (-want +got):\n%s\n%s", lists[i], where, diff, out)
			}
			if strings.Contains(out, key.APIKey) || strings.Contains(out, shop.APIKey) {
				t.Errorf("%v %s printed an API key", lists[i], where)
			}
		}
	}
}

// TestServe_StartMessage checks what serve prints once it listens: on
// first start the addresses, the new key and token, and a request to try;
// on later starts the addresses alone.
func TestServe_StartMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		// base is the URL the message must use; "" for the listener's.
		base      string
		wantToken bool
	}{
		{"Listener", nil, "", true},
		{"PublicURL", map[string]string{"UNICAL_PUBLIC_URL": "https://cal.example.com/"}, "https://cal.example.com", true},
		{"TokenFromEnvironment", map[string]string{"UNICAL_ADMIN_TOKEN": admin.NewAdminToken()}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			srv := mustRunMainEnv(t, dir, nil, tc.env)
			addr := strings.TrimPrefix(srv.URL, "http://")
			base := tc.base
			if base == "" {
				base = srv.URL
			}
			out := srv.Stdout.String()
			key := apiKeyFrom(t, out)
			var apps []admin.ApplicationView
			srv.stop()
			json.Unmarshal([]byte(run1(t, "apps", "list", "--json", "--data", dir)), &apps)
			if len(apps) != 1 {
				t.Fatalf("apps after first start = %+v, want the default one", apps)
			}
			urls := "\n" +
				"  API:           " + base + "/v1\n" +
				"  Dashboard:     " + base + "/dashboard/ (log in with the admin token)\n" +
				"  API reference: " + base + "/docs\n"
			want := "unicald is listening on " + addr + ".\n" +
				"\nCreated the default application.\n" +
				"  applicationId: " + apps[0].ID + "\n" +
				"  apiKey:        " + key + "\n" +
				"The API key is shown only now; keep it.\n"
			if tc.wantToken {
				want += "\nCreated the admin token of /admin/v1 (Authorization: Bearer ...), also the dashboard's login.\n" +
					"  adminToken:    " + adminTokenFrom(t, out) + "\n" +
					"It is shown only now and stored only as a hash; keep it, or set UNICAL_ADMIN_TOKEN to replace it.\n"
			}
			want += urls + "\nTry it:\n  curl -H 'x-api-key: " + key + "' " + base + "/v1/endUserAccounts\n"
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("first start mismatch (-want +got):\n%s", diff)
			}

			again := mustRunMainEnv(t, dir, nil, tc.env)
			addr = strings.TrimPrefix(again.URL, "http://")
			if tc.base == "" {
				urls = strings.ReplaceAll(urls, srv.URL, again.URL)
			}
			base = strings.TrimPrefix(urls, "\n  API:           ")
			base = base[:strings.Index(base, "/v1\n")]
			lost := "\nThe API key and admin token were shown once, at first start. Lost them? Start with\n" +
				"UNICAL_ADMIN_TOKEN set to a new token (32 characters or more) to replace the admin token, then\n" +
				"make a new key: unicald keys create --app APP_ID --server " + base + " (application ids: unicald apps list).\n"
			if diff := cmp.Diff("unicald is listening on "+addr+".\n"+urls+lost, again.Stdout.String()); diff != "" {
				t.Errorf("later start mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// run1 runs one offline command and returns its output.
func run1(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runCommand(t, nil, args...)
	if err != nil {
		t.Fatalf("unicald %v: %v\n%s", args, err, errOut)
	}
	return out
}

// TestBaseURL: the start message's URLs use --public-url when set, and
// loopback for a listener on every interface.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		addr      *net.TCPAddr
		publicURL string
		want      string
	}{
		{"Loopback", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "", "http://127.0.0.1:8080"},
		{"AllIPv4", &net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "", "http://127.0.0.1:8080"},
		{"AllIPv6", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "", "http://127.0.0.1:8080"},
		{"IPv6", &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "", "http://[::1]:8080"},
		{"PublicURL", &net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "https://cal.example.com/", "https://cal.example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := baseURL(tc.addr, tc.publicURL); got != tc.want {
				t.Errorf("baseURL(%v, %q) = %q, want %q", tc.addr, tc.publicURL, got, tc.want)
			}
		})
	}
}
