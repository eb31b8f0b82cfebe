package dashboard_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/internal/testkit/smtptest"
	"github.com/unical/unical/store/bolt"
)

// TestMail sets an application's invitation mail settings through the
// dashboard's form and sends the test message with its button.
func TestMail(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(t.TempDir(), "unical.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	// Loopback SMTP needs --allow-private-targets, which newFixture's
	// Client does not have.
	client, err := unical.New(unical.Config{Store: store, MasterKey: [32]byte{4, 5, 6}, AllowPrivateTargets: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	if err := admin.Of(client).SetAdminToken(t.Context(), adminToken); err != nil {
		t.Fatal(err)
	}
	f := &fixture{client: client, logs: &apitest.LogBuffer{}, key: bytes.Repeat([]byte{7}, 32), now: time.Now()}
	f.srv = httptest.NewServer(f.handler(t, f.key, ""))
	t.Cleanup(f.srv.Close)
	created, err := admin.Of(client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("rooms")})
	if err != nil {
		t.Fatal(err)
	}
	b := f.browser(t)
	token := b.mustLogin()
	app := "/dashboard/apps/" + created.ApplicationID

	if p := b.get(app + "/mail"); p.status != http.StatusOK || !strings.Contains(p.body, "Save mail settings") || strings.Contains(p.body, "Send test message") {
		t.Fatalf("mail page without settings = %d:\n%s", p.status, p.body)
	}
	bad := b.post(app+"/mail", url.Values{"csrf": {token}, "smtpUrl": {"http://mail.example.com"}, "from": {"rooms@example.com"}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, `class="error"`) || !strings.Contains(bad.body, "mail.smtpUrl") {
		t.Errorf("bad SMTP URL = %d, want 400 naming mail.smtpUrl:\n%s", bad.status, bad.body)
	}
	saved := b.post(app+"/mail", url.Values{"csrf": {token}, "smtpUrl": {mta.URL}, "username": {mta.Username}, "password": {mta.Password},
		"from": {"rooms@example.com"}, "inboundSecret": {"inbound-secret-0123456789"}})
	if saved.status != http.StatusSeeOther {
		t.Fatalf("save = %d, want 303:\n%s", saved.status, saved.body)
	}
	page := b.get(saved.location)
	if !strings.Contains(page.body, "The mail settings were saved") || !strings.Contains(page.body, "(set; empty keeps it)") || strings.Contains(page.body, mta.Password) {
		t.Errorf("mail page after saving:\n%s", page.body)
	}
	verified := b.post(app+"/mail/verify", url.Values{"csrf": {token}, "to": {"ops@example.org"}})
	if verified.status != http.StatusOK || !strings.Contains(verified.body, "The SMTP server took the message") || !strings.Contains(verified.body, "250 ") {
		t.Errorf("send test message = %d:\n%s", verified.status, verified.body)
	}
	if got := mta.Wait(t, 1); got[0].To != "ops@example.org" {
		t.Errorf("test message delivered to %q", got[0].To)
	}
	if p := b.post(app+"/mail/remove", url.Values{"csrf": {token}}); p.status != http.StatusSeeOther {
		t.Errorf("remove = %d, want 303", p.status)
	}
	if _, err := admin.Of(client).ApplicationMail(t.Context(), created.ApplicationID); unical.ErrorCode(err) != unical.CodeNotFound {
		t.Errorf("mail settings after remove: %v, want CodeNotFound", err)
	}
}
