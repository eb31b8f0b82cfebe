package main

import (
	"encoding/json"
	"net"
	"strings"
	"testing"

	"github.com/unical/unical/admin"
)

// TestFlagMistakes: a mistaken flag or value is named the way help
// spells it (two dashes), a typo gets the flag it is closest to, and an
// ignored flag is neither listed nor suggested.
func TestFlagMistakes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string
		// notWant is text the message must not hold.
		notWant string
	}{
		{"Typo", []string{"serve", "--adr", "127.0.0.1:0"}, "unknown flag --adr; did you mean --addr?", ""},
		{"TypoTwoEdits", []string{"serve", "--stroe", "x"}, "unknown flag --stroe; did you mean --store?", ""},
		{"FarFromEverything", []string{"serve", "--frobnicate"}, "unknown flag --frobnicate", "did you mean"},
		{"NeverSuggestsIgnored", []string{"serve", "--max-pending-flow", "1"}, "unknown flag --max-pending-flow", "max-pending-flows"},
		{"MissingArgument", []string{"serve", "--addr"}, "flag needs an argument: --addr", " -addr"},
		{"BadValue", []string{"serve", "--delivery-timeout", "soon"}, `invalid value "soon" for flag --delivery-timeout`, " -delivery"},
		{"BadBool", []string{"serve", "--allow-private-targets=maybe"}, "--allow-private-targets", " -allow"},
		{"PublicURLWithoutScheme", []string{"serve", "--public-url", "cal.example.com"}, `--public-url must be an absolute http or https URL, such as https://cal.example.com, not "cal.example.com"`, "Config.PublicURL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// --data goes first, so that a flag missing its argument is last.
			args := append([]string{tc.args[0], "--data", t.TempDir()}, tc.args[1:]...)
			_, _, err := runCommand(t, nil, args...)
			if exitStatus(err) != 2 || !strings.Contains(err.Error(), tc.wantErr) ||
				(tc.notWant != "" && strings.Contains(err.Error(), tc.notWant)) {
				t.Errorf("unicald %v: exit %d, %v; want a usage error with %q and without %q", args, exitStatus(err), err, tc.wantErr, tc.notWant)
			}
		})
	}
}

// TestServe_IgnoredFlagHidden: --max-pending-flows still starts (old
// command lines keep working) but serve --help does not list it.
func TestServe_IgnoredFlagHidden(t *testing.T) {
	t.Parallel()
	stdout, _, err := runCommand(t, nil, "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout, "max-pending-flows") {
		t.Errorf("serve --help lists the ignored --max-pending-flows:\n%s", stdout)
	}
}

// TestServe_AddrNamed: a listen address that cannot be used is reported
// naming --addr, for a bad port and for a port that is taken.
func TestServe_AddrNamed(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:99999", "--addr 127.0.0.1:99999: address 99999: invalid port"},
		{held.Addr().String(), "--addr " + held.Addr().String() + ": bind: address already in use"},
	} {
		_, _, err := runCommand(t, nil, "serve", "--addr", tc.addr, "--data", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve --addr %s: %v, want %q", tc.addr, err, tc.want)
		}
	}
}

// TestServe_FirstStartThatCannotBind: a first start whose port is taken
// creates nothing, so the next start on a free port is still the first
// one and prints the API key and admin token it makes.
func TestServe_FirstStartThatCannotBind(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	stdout, _, err := runCommand(t, nil, "serve", "--addr", held.Addr().String(), "--data", dir)
	if err == nil || !strings.Contains(err.Error(), "--addr") {
		t.Fatalf("serve on a taken port: %v; want an error naming --addr", err)
	}
	if strings.Contains(stdout, "apiKey") || strings.Contains(stdout, "adminToken") {
		t.Errorf("the failed start printed credentials:\n%s", stdout)
	}
	var apps []admin.ApplicationView
	if err := json.Unmarshal([]byte(run1(t, "apps", "list", "--json", "--data", dir)), &apps); err != nil || len(apps) != 0 {
		t.Fatalf("applications after the failed start = %+v (%v), want none", apps, err)
	}
	srv := mustRunMainEnv(t, dir, nil, nil)
	defer srv.stop()
	out := srv.Stdout.String()
	if apiKeyFrom(t, out) == "" || adminTokenFrom(t, out) == "" {
		t.Errorf("the start after the failed one printed no credentials:\n%s", out)
	}
}
