package smtpsend_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/smtpsend"
	"github.com/unical/unical/internal/testkit/smtptest"
)

const message = "From: <room@example.com>\r\nTo: <ann@example.org>\r\nSubject: test\r\nDate: Mon, 01 Mar 2027 09:00:00 +0000\r\n\r\nline one\r\n.\r\nafter a lone dot\r\n"

func TestServer_Send(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	tests := []struct {
		name          string
		srv           smtpsend.Server
		wantReply     string // prefix
		wantTemporary bool
		wantErr       bool
	}{
		{"OK", smtpsend.Server{URL: mta.URL, Username: mta.Username, Password: mta.Password, AllowPrivate: true}, "250 OK id=", false, false},
		{"ErrWrongPassword", smtpsend.Server{URL: mta.URL, Username: mta.Username, Password: "wrong", AllowPrivate: true}, "535", false, true},
		{"ErrNoAuth", smtpsend.Server{URL: mta.URL, AllowPrivate: true}, "550", false, true},
		{"ErrPrivateRefused", smtpsend.Server{URL: mta.URL, Username: mta.Username, Password: mta.Password}, "smtpUrl points at a private", false, true},
		{"ErrNoTLSOnSMTPS", smtpsend.Server{URL: "smtps://" + mta.Addr, Username: mta.Username, Password: mta.Password, AllowPrivate: true, Timeout: 3 * time.Second}, "", true, true},
	}
	t.Run("Cases", func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				sendCase(t, tc.srv, tc.wantReply, tc.wantTemporary, tc.wantErr)
			})
		}
	})
	got := mta.Wait(t, 1)
	if len(got) != 1 || !strings.Contains(strings.ReplaceAll(string(got[0].Data), "\r\n", "\n"), "\n.\nafter a lone dot") {
		t.Errorf("delivered %d messages; want the one sent with its lone dot line intact", len(got))
	}
}

// sendCase sends message with srv and checks the outcome.
func sendCase(t *testing.T, srv smtpsend.Server, wantReply string, wantTemporary, wantErr bool) {
	t.Helper()
	reply, err := srv.Send(t.Context(), "room@example.com", []string{"ann@example.org"}, []byte(message))
	if !wantErr {
		if err != nil || !strings.HasPrefix(reply, wantReply) {
			t.Fatalf("Send() = %q, %v; want a reply starting %q", reply, err, wantReply)
		}
		return
	}
	var se *smtpsend.Error
	if !errors.As(err, &se) {
		t.Fatalf("Send() error = %v, want *smtpsend.Error", err)
	}
	if !strings.HasPrefix(se.Reply, wantReply) || se.Temporary != wantTemporary {
		t.Errorf("Send() error = %+v, want reply starting %q, temporary %v", se, wantReply, wantTemporary)
	}
}

func TestServer_SendServerDown(t *testing.T) {
	t.Parallel()
	mta := smtptest.MustStart(t)
	mta.Stop()
	srv := smtpsend.Server{URL: mta.URL, Username: mta.Username, Password: mta.Password, AllowPrivate: true}
	_, err := srv.Send(t.Context(), "room@example.com", []string{"ann@example.org"}, []byte(message))
	var se *smtpsend.Error
	if !errors.As(err, &se) || !se.Temporary {
		t.Fatalf("Send() to a stopped server = %v, want a temporary *smtpsend.Error", err)
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw          string
		allowPrivate bool
		wantErr      bool
	}{
		{"smtp://mail.example.com", false, false},
		{"smtps://mail.example.com:465", false, false},
		{"smtp://127.0.0.1:2525", true, false},
		{"smtp://127.0.0.1:2525", false, true},
		{"smtp://10.0.0.5", false, true},
		{"http://mail.example.com", false, true},
		{"smtp://", false, true},
		{"smtp://user:pw@mail.example.com", false, true},
		{"smtp://mail.example.com/path", false, true},
		{"smtp://mail.example.com?x=1", false, true},
		{"::", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			t.Parallel()
			_, err := smtpsend.CheckURL("mail.smtpUrl", tc.raw, tc.allowPrivate)
			if (err != nil) != tc.wantErr {
				t.Fatalf("CheckURL(%q) = %v, want error %v", tc.raw, err, tc.wantErr)
			}
			if err != nil {
				var ue *unical.Error
				if !errors.As(err, &ue) || ue.Field != "mail.smtpUrl" || ue.Code != unical.CodeInvalid {
					t.Errorf("CheckURL(%q) = %v, want invalid naming mail.smtpUrl", tc.raw, err)
				}
			}
		})
	}
}

func TestPlainAllowed(t *testing.T) {
	t.Parallel()
	got := map[string]bool{}
	for _, raw := range []string{"smtp://127.0.0.1:25", "smtp://localhost", "smtp://10.0.0.5", "smtp://mail.example.com"} {
		for _, allow := range []bool{false, true} {
			got[raw+" "+map[bool]string{false: "strict", true: "private"}[allow]] = smtpsend.PlainAllowed(raw, allow)
		}
	}
	want := map[string]bool{
		"smtp://127.0.0.1:25 strict": false, "smtp://127.0.0.1:25 private": true,
		"smtp://localhost strict": false, "smtp://localhost private": true,
		"smtp://10.0.0.5 strict": false, "smtp://10.0.0.5 private": false,
		"smtp://mail.example.com strict": false, "smtp://mail.example.com private": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plainAllowed mismatch (-want +got):\n%s", diff)
	}
}
