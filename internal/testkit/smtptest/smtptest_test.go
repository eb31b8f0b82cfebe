package smtptest_test

import (
	"net/smtp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/smtptest"
)

// send submits one message with the standard library's client, which is
// enough to check the server (net/smtp allows PLAIN on loopback).
func send(s *smtptest.Server, password string, to ...string) error {
	auth := smtp.PlainAuth("", s.Username, password, "127.0.0.1")
	return smtp.SendMail(s.Addr, auth, "sender@example.com", to,
		[]byte("From: sender@example.com\r\nSubject: hello\r\nDate: Mon, 01 Mar 2027 09:00:00 +0000\r\n\r\nbody\r\n"))
}

func TestServer(t *testing.T) {
	t.Parallel()
	s := smtptest.MustStart(t)
	if err := send(s, "wrong", "a@example.org"); err == nil || !strings.Contains(err.Error(), "535") {
		t.Fatalf("send with a wrong password = %v, want 535", err)
	}
	if err := send(s, s.Password, "a@example.org", "B@example.net"); err != nil {
		t.Fatal(err)
	}
	got := s.Wait(t, 2)
	var to []string
	for _, m := range got {
		to = append(to, m.To)
		if m.Header.Get("Subject") != "hello" {
			t.Errorf("Subject = %q", m.Header.Get("Subject"))
		}
	}
	if diff := cmp.Diff([]string{"a@example.org", "b@example.net"}, to, cmp.Transformer("sort", sortStrings)); diff != "" {
		t.Errorf("recipients mismatch (-want +got):\n%s", diff)
	}

	s.Stop()
	if err := send(s, s.Password, "c@example.org"); err == nil {
		t.Fatal("send to a stopped server succeeded")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := send(s, s.Password, "c@example.org"); err != nil {
		t.Fatal(err)
	}
	if got := s.Wait(t, 3); len(got) != 3 {
		t.Errorf("%d messages after the restart, want 3", len(got))
	}
}

func sortStrings(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
