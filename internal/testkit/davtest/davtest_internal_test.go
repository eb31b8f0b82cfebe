package davtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestStart(t *testing.T) {
	t.Parallel()
	for _, kind := range AllKinds() {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var s *Server
			t.Run("Run", func(t *testing.T) {
				s = Start(t, kind)
				resp := s.Do(t, "PROPFIND", s.PrincipalPath, "", http.Header{"Depth": {"0"}})
				if resp.StatusCode != http.StatusMultiStatus {
					t.Errorf("PROPFIND %s = %d, want 207:\n%s", s.PrincipalPath, resp.StatusCode, resp.Body)
				}
			})
			if s == nil {
				t.Skip("server did not start")
			}
			// The subtest's cleanup has run: the process (DAViCal has
			// none, php-cgi runs per request) must be reaped, nothing
			// may answer at the server's address, and its directory
			// must be gone.
			if s.proc != nil {
				select {
				case <-s.proc.exited:
				default:
					t.Fatalf("%s (pid %d) still running after cleanup", kind, s.proc.cmd.Process.Pid)
				}
				if err := syscall.Kill(s.proc.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
					t.Errorf("signal 0 to pid %d after cleanup: %v, want ESRCH", s.proc.cmd.Process.Pid, err)
				}
			}
			if c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://")); err == nil {
				c.Close()
				t.Errorf("%s still accepts connections after cleanup", s.URL)
			}
			if _, err := os.Stat(s.Dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("server directory %s still there: %v", s.Dir, err)
			}
		})
	}
}

func TestStart_ErrUnknownKind(t *testing.T) {
	t.Parallel()
	if _, err := start("apache", t.TempDir()); err == nil || errors.Is(err, errNotInstalled) {
		t.Errorf("start(apache) error = %v, want an unknown-kind error", err)
	}
}

func TestStart_ErrNotInstalled(t *testing.T) {
	// Not parallel: it empties PATH for the whole process.
	t.Setenv("PATH", t.TempDir())
	// Cyrus's master is found by its absolute path; saslpasswd2, on PATH,
	// is then missing.
	for _, kind := range AllKinds() {
		if _, err := start(kind, t.TempDir()); !errors.Is(err, errNotInstalled) {
			t.Errorf("start(%s) with an empty PATH: error = %v, want errNotInstalled", kind, err)
		}
	}
}

// recordingTB records Skipf and Fatalf instead of stopping the test.
type recordingTB struct {
	testing.TB
	skipped, fatal string
}

func (r *recordingTB) Helper()                          {}
func (r *recordingTB) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}

func TestReportStartError(t *testing.T) {
	t.Parallel()
	missing := fmt.Errorf("%w: exec: \"radicale\": executable file not found in $PATH", errNotInstalled)
	tests := []struct {
		name        string
		err         error
		ci          bool
		wantSkip    bool
		wantFatal   bool
		wantMention string
	}{
		{name: "MissingSkipsLocally", err: missing, wantSkip: true, wantMention: "install-test-deps.sh"},
		{name: "MissingFailsInCI", err: missing, ci: true, wantFatal: true, wantMention: "required when CI=true"},
		{name: "OtherErrorFails", err: errors.New("boom"), wantFatal: true, wantMention: "boom"},
		{name: "OtherErrorFailsInCI", err: errors.New("boom"), ci: true, wantFatal: true, wantMention: "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recordingTB{TB: t}
			reportStartError(rec, Radicale, tc.err, tc.ci)
			if (rec.skipped != "") != tc.wantSkip || (rec.fatal != "") != tc.wantFatal {
				t.Fatalf("skipped %q, fatal %q; want skip %v, fatal %v", rec.skipped, rec.fatal, tc.wantSkip, tc.wantFatal)
			}
			if msg := rec.skipped + rec.fatal; !strings.Contains(msg, tc.wantMention) {
				t.Errorf("message %q does not mention %q", msg, tc.wantMention)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"Plain", "work", "work"},
		{"Spaces", "Work & Play", "work-play"},
		{"Empty", "", "cal"},
		{"OnlySymbols", "!!!", "cal"},
		{"Long", strings.Repeat("a", 50), strings.Repeat("a", 32)},
		{"NonASCII", "Café Ünïcode", "caf-n-code"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := slug(tc.in); got != tc.want {
				t.Errorf("slug(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
