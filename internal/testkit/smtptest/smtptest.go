// Package smtptest starts a real mail server, Exim from Debian's
// exim4-daemon-light, on 127.0.0.1 for tests, and reads the messages it
// received. Exim runs in the foreground from a throwaway folder with a
// configuration of its own: it accepts mail for any address from a
// client that authenticated with the test user, and delivers every copy
// into one maildir in that folder, with an Envelope-to header naming the
// recipient.
//
// Without Exim a test is skipped, and fails when CI=true, as
// internal/testkit/davtest does for CalDAV servers. scripts/install-test-deps.sh
// installs it.
package smtptest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// installHint is the command printed when Exim is missing.
	installHint = "scripts/install-test-deps.sh (apt-get install exim4-daemon-light)"
	// startTimeout bounds how long Exim may take to greet; it starts in
	// well under a second on an idle machine.
	startTimeout = 20 * time.Second
	// pollInterval is the pause between readiness probes and maildir reads.
	pollInterval = 50 * time.Millisecond
	// stopGrace is how long Exim gets to exit after SIGTERM.
	stopGrace = 10 * time.Second
	// waitTimeout bounds [Server.Wait].
	waitTimeout = 30 * time.Second
)

// Server is one Exim daemon on 127.0.0.1. Its methods are safe for
// concurrent use.
type Server struct {
	// Addr is "127.0.0.1:PORT"; it stays the same across [Server.Stop]
	// and [Server.Start].
	Addr string
	// URL is the submission URL, "smtp://127.0.0.1:PORT".
	URL string
	// Username and Password are the credentials the server requires
	// (AUTH PLAIN or LOGIN); the password is random per server.
	Username, Password string
	// Dir holds the configuration, spool, log and maildir.
	Dir string

	bin    string
	mu     sync.Mutex
	cmd    *exec.Cmd
	out    *os.File
	exited chan struct{} // closed when cmd has been reaped
}

// Received is one delivered copy of a message.
type Received struct {
	// To is the envelope recipient this copy was delivered to.
	To string
	// Header is the message's header; Data the whole message as stored.
	Header mail.Header
	Data   []byte
}

// MustStart starts Exim for tb and stops it in tb's cleanup. A missing
// Exim skips tb, or fails it when CI=true.
func MustStart(tb testing.TB) *Server {
	tb.Helper()
	bin, err := exec.LookPath("exim4")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("smtptest: Exim is required when CI=true: %v; install it with %s", err, installHint)
		}
		tb.Skipf("smtptest: skipping, Exim is not installed: %v; install it with %s", err, installHint)
		return nil
	}
	// Exim delivers as an unprivileged user when run as root, which must
	// reach the maildir: tb.TempDir's parent is private, so the folder is
	// made here and removed in the cleanup.
	dir, err := os.MkdirTemp("", "smtptest-") //nolint:usetesting // see above: tb.TempDir's parent is private
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Dir: dir, bin: bin, Username: "unical", Password: randomHex()}
	tb.Cleanup(func() {
		s.Stop()
		if tb.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "mainlog"))
			tb.Logf("smtptest: Exim log:\n%s", log)
		}
		_ = os.RemoveAll(dir)
	})
	if err := s.configure(); err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	if err := s.Start(); err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	return s
}

func randomHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// configure picks the port and writes Exim's configuration.
func (s *Server) configure() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.Addr = l.Addr().String()
	_ = l.Close()
	s.URL = "smtp://" + s.Addr
	_, port, _ := net.SplitHostPort(s.Addr)
	for _, sub := range []string{"spool", "mail"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, sub), 0o777); err != nil {
			return err
		}
	}
	daemon, owner := "", ""
	if os.Geteuid() == 0 {
		// Exim receives as its own user and never delivers as root: the
		// folders let both write.
		for _, d := range []string{s.Dir, filepath.Join(s.Dir, "spool"), filepath.Join(s.Dir, "mail")} {
			if err := os.Chmod(d, 0o777); err != nil {
				return err
			}
		}
		owner = "  user = nobody\n  group = nogroup\n"
		// Run as root throughout: Exim's own user cannot re-execute it
		// with a configuration outside its trusted list to deliver.
		daemon = "exim_user = root\nexim_group = root\n"
	}
	conf := daemon + fmt.Sprintf(eximConfig, s.Dir, s.Dir, port, s.Username, s.Password, s.Dir, owner)
	return os.WriteFile(filepath.Join(s.Dir, "exim.conf"), []byte(conf), 0o600)
}

// eximConfig is the daemon's configuration: loopback only, no TLS, AUTH
// required for any recipient, every recipient accepted and delivered to
// one maildir.
const eximConfig = `primary_hostname = smtptest.localhost
spool_directory = %s/spool
log_file_path = %s/%%slog
daemon_smtp_ports = %s
local_interfaces = 127.0.0.1
tls_advertise_hosts =
auth_advertise_hosts = *
never_users = root
keep_environment =
acl_smtp_rcpt = acl_rcpt
begin acl
acl_rcpt:
  deny message = authentication required
       !authenticated = *
  accept
begin authenticators
plain:
  driver = plaintext
  public_name = PLAIN
  server_prompts = :
  server_condition = ${if and {{eq{$auth2}{%s}}{eq{$auth3}{%s}}}}
  server_set_id = $auth2
begin routers
everyone:
  driver = accept
  transport = maildir
begin transports
maildir:
  driver = appendfile
  directory = %s/mail
  maildir_format
  create_directory
  envelope_to_add
  mode = 0644
%s
begin retry
* * F,1h,1m
`

// Start starts the daemon (again, after [Server.Stop]) on Addr and waits
// until it greets.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	out, err := os.OpenFile(filepath.Join(s.Dir, "output"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "-C", filepath.Join(s.Dir, "exim.conf"), "-bdf")
	cmd.Dir = s.Dir
	cmd.Stdout, cmd.Stderr = out, out
	// The kernel kills Exim should the test binary die without cleanups.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.out, s.exited = cmd, out, exited
	deadline := time.Now().Add(startTimeout)
	for range int(startTimeout / pollInterval) {
		if greets(s.Addr) {
			return nil
		}
		select {
		case <-exited:
			s.cmd = nil
			_ = out.Close()
			text, _ := os.ReadFile(filepath.Join(s.Dir, "output"))
			return fmt.Errorf("exim exited before it greeted: %s", text)
		case <-time.After(pollInterval):
		}
		if time.Now().After(deadline) {
			break
		}
	}
	return fmt.Errorf("exim did not greet on %s within %v", s.Addr, startTimeout)
}

// greets reports whether an SMTP server answers 220 on addr.
func greets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "220")
}

// Stop stops the daemon; [Server.Start] brings it back on the same
// address. Mail already delivered stays.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	_ = s.out.Close()
	s.cmd, s.out = nil, nil
}

// Messages returns every copy delivered so far, oldest first.
func (s *Server) Messages() ([]Received, error) {
	var got []Received
	for _, sub := range []string{"new", "cur"} {
		entries, err := os.ReadDir(filepath.Join(s.Dir, "mail", sub))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(s.Dir, "mail", sub, e.Name()))
			if err != nil {
				return nil, err
			}
			msg, err := mail.ReadMessage(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("smtptest: %s: %w", e.Name(), err)
			}
			got = append(got, Received{To: strings.ToLower(msg.Header.Get("Envelope-to")), Header: msg.Header, Data: data})
		}
	}
	// Maildir names start with the delivery time in seconds and
	// microseconds, so their order is delivery order within a second;
	// Date headers break the rest.
	slices.SortStableFunc(got, func(a, b Received) int {
		ta, _ := a.Header.Date()
		tb, _ := b.Header.Date()
		return ta.Compare(tb)
	})
	return got, nil
}

// Wait returns the delivered copies once at least n have arrived; it
// fails tb when they have not after 30 seconds.
func (s *Server) Wait(tb testing.TB, n int) []Received {
	tb.Helper()
	deadline := time.Now().Add(waitTimeout)
	for range int(waitTimeout / pollInterval) {
		got, err := s.Messages()
		if err != nil {
			tb.Fatal(err)
		}
		if len(got) >= n || time.Now().After(deadline) {
			if len(got) < n {
				tb.Fatalf("smtptest: %d messages arrived, want %d", len(got), n)
			}
			return got
		}
		time.Sleep(pollInterval)
	}
	tb.Fatalf("smtptest: fewer than %d messages arrived", n)
	return nil
}
