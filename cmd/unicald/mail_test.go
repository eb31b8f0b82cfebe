package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/testkit/smtptest"
	"github.com/unical/unical/provider/memory"
)

// TestAppsMailCommands sets an application's mail settings with apps
// update and sends the test message with apps verify-mail, through a
// running server; then the server mails a VIRTUAL account's invitations
// and guards its inbound mail endpoint.
func TestAppsMailCommands(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	srv := mustRunMainEnv(t, t.TempDir(), []unical.Provider{memory.New(memory.Config{Type: unical.ProviderCalDAV})}, map[string]string{"UNICAL_ALLOW_PRIVATE_TARGETS": "1"})
	env := map[string]string{"UNICAL_ADMIN_TOKEN": adminTokenFrom(t, srv.Stdout.String())}
	run := func(args ...string) (string, error) {
		t.Helper()
		out, errOut, err := runCommand(t, env, append(args, "--server", srv.URL)...)
		if err != nil {
			t.Logf("unicald %v: %s", args, errOut)
		}
		return out, err
	}
	out, err := run("apps", "create", "--name", "rooms", "--json")
	var created struct {
		ApplicationID string `json:"applicationId"`
		APIKey        string `json:"apiKey"`
	}
	if err != nil || json.Unmarshal([]byte(out), &created) != nil {
		t.Fatalf("apps create: %v %s", err, out)
	}
	password := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(password, []byte(mta.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run("apps", "update", "--id", created.ApplicationID, "--smtp-url", mta.URL); err == nil || !strings.Contains(err.Error(), "--mail-from") {
		t.Errorf("apps update with --smtp-url alone: %v, want a usage error naming --mail-from", err)
	}
	inbound := filepath.Join(t.TempDir(), "inbound")
	if err := os.WriteFile(inbound, []byte("inbound-secret-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run("apps", "update", "--id", created.ApplicationID, "--smtp-url", mta.URL, "--smtp-user", mta.Username,
		"--smtp-password-file", password, "--mail-from", "rooms@example.com", "--inbound-secret-file", inbound); err != nil {
		t.Fatalf("apps update with mail flags: %v", err)
	}
	out, err = run("apps", "verify-mail", "--id", created.ApplicationID, "--to", "ops@example.org")
	if err != nil || !strings.HasPrefix(out, "accepted: 250 ") {
		t.Fatalf("apps verify-mail = %q, %v; want accepted with a 250 reply", out, err)
	}
	if got := mta.Wait(t, 1); got[0].To != "ops@example.org" {
		t.Errorf("test message delivered to %q", got[0].To)
	}
	if _, err := run("apps", "verify-mail", "--id", created.ApplicationID); err == nil || !strings.Contains(err.Error(), "--to") {
		t.Errorf("apps verify-mail without --to: %v", err)
	}

	// The server sends the invitations of a VIRTUAL account's write made
	// with notifyAttendees=true at once, and shows their delivery log.
	status, body := request(t, "POST", srv.URL+"/v1/endUserAccounts", created.APIKey, map[string]string{"providerType": "VIRTUAL", "email": "room4@rooms.example.com"})
	var acct struct {
		ID string `json:"id"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &acct) != nil {
		t.Fatalf("create VIRTUAL account = %d %s", status, body)
	}
	status, body = request(t, "POST", srv.URL+"/v1/events/"+acct.ID+"/primary?notifyAttendees=true", created.APIKey, map[string]any{
		"title": "Planning", "start": map[string]string{"dateTime": "2027-03-16T10:00:00", "timeZone": "Europe/Berlin"},
		"end":       map[string]string{"dateTime": "2027-03-16T11:00:00", "timeZone": "Europe/Berlin"},
		"attendees": []map[string]string{{"email": "ann@example.org"}, {"email": "bob@example.net"}},
	})
	var ev struct {
		ID string `json:"id"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &ev) != nil {
		t.Fatalf("create event with notifyAttendees=true = %d %s", status, body)
	}
	var to []string
	for _, m := range mta.Wait(t, 3)[1:] {
		to = append(to, m.To)
	}
	slices.Sort(to)
	if d := cmp.Diff([]string{"ann@example.org", "bob@example.net"}, to); d != "" {
		t.Errorf("invitations delivered to (-want +got):\n%s", d)
	}
	var log struct {
		Data []struct {
			Email, Status string
		} `json:"data"`
	}
	for range 100 { // the sender records a send just after the server took it
		status, body = request(t, "GET", srv.URL+"/v1/events/"+acct.ID+"/primary/"+ev.ID+"/invitations", created.APIKey, nil)
		if status != http.StatusOK || json.Unmarshal(body, &log) != nil {
			t.Fatalf("GET invitations = %d %s", status, body)
		}
		if len(log.Data) == 2 && log.Data[0].Status == "sent" && log.Data[1].Status == "sent" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(log.Data) != 2 || log.Data[0].Status != "sent" || log.Data[1].Status != "sent" {
		t.Errorf("delivery log = %s, want both sent", body)
	}

	// Inbound mail needs the application's inbound secret and a mail body.
	for _, tc := range []struct {
		name, contentType, secret string
		want                      int
	}{
		{"ErrWrongSecret", "message/rfc822", "wrong", http.StatusUnauthorized},
		{"ErrNotMail", "application/json", "inbound-secret-0123456789", http.StatusBadRequest},
		{"ErrNoCalendar", "message/rfc822", "inbound-secret-0123456789", http.StatusBadRequest},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/v1/imip/"+created.ApplicationID,
			strings.NewReader("From: ann@example.org\r\nSubject: hi\r\n\r\nno calendar here\r\n"))
		req.Header.Set("Content-Type", tc.contentType)
		req.Header.Set("Authorization", "Bearer "+tc.secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: POST /v1/imip = %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}
}
