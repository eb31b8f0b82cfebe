package davtest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cyrusBin is where Debian's cyrus-common installs master and the
// services it starts (not on PATH).
const cyrusBin = "/usr/lib/cyrus/bin"

// cyrusIMAPDConf is Cyrus's imapd.conf; the argument is the server's
// folder. Everything Cyrus keeps (databases, mail spool, locks, sockets,
// the SASL password database) lives below it, so nothing of the system's
// /etc/imapd.conf or /var/lib/cyrus applies.
//
// Logins are plain user names in the SASL database (PLAIN, sent as HTTP
// Basic). autocreate_quota 0 makes a user's INBOX on the first IMAP login,
// which CalDAV needs before it provisions the calendar home (httpd alone
// answers 500 "could not autoprovision calendars ... Invalid user").
// Scheduling (RFC 6638) stays on, as at Fastmail: with
// caldav_allowscheduling off, Cyrus 3.6 deletes a calendar yet answers
// the DELETE 404 (it looks for the scheduling inbox it did not make).
// delete_mode immediate removes a deleted calendar at once instead of
// keeping it as DELETED.*.
const cyrusIMAPDConf = `configdirectory: %[1]s/config
defaultpartition: default
partition-default: %[1]s/spool
proc_path: %[1]s/run/proc
mboxname_lockpath: %[1]s/run/lock
lmtpsocket: %[1]s/run/socket/lmtp
idlesocket: %[1]s/run/socket/idle
notifysocket: %[1]s/run/socket/notify
servername: localhost
cyrus_user: %[2]s
allowplaintext: yes
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: %[1]s/sasldb2
sasl_mech_list: PLAIN
httpmodules: caldav
autocreate_quota: 0
delete_mode: immediate
hashimapspool: false
syslog_prefix: davtest-cyrus
`

// cyrusConf is Cyrus's cyrus.conf: the HTTP and IMAP services on the two
// loopback addresses. Services get the configuration with -C, which
// master does not pass on.
const cyrusConf = `START {
  recover cmd="ctl_cyrusdb -C %[1]s/imapd.conf -r"
}
SERVICES {
  http cmd="httpd -C %[1]s/imapd.conf" listen="%[2]s" prefork=0
  imap cmd="imapd -C %[1]s/imapd.conf" listen="%[3]s" prefork=0
}
EVENTS {
}
`

// cyrusAttempts bounds how often a start is retried because another
// process took a chosen port first.
const cyrusAttempts = 3

// startCyrus starts Cyrus IMAP's master in the foreground with the HTTP
// (CalDAV) and IMAP services on free loopback ports, adds the test user to
// its SASL database, and logs the user in once over IMAP so that the
// INBOX, and with it the calendar home, exists. The principal is
// /dav/principals/user/USER/, the home /dav/calendars/user/USER/.
//
// Run as root, master switches to the cyrus user, which must own the
// folder: so the folder is a directory of its own in the system's
// temporary directory (tb.TempDir()'s parents are private to root), removed
// when the server stops. Cyrus logs to syslog only; davtest's log holds
// what master prints to stderr.
func (s *Server) startCyrus(master string) error {
	s.PrincipalPath = "/dav/principals/user/" + s.Username + "/"
	s.HomePath = "/dav/calendars/user/" + s.Username + "/"
	saslpasswd, err := findBinary("saslpasswd2")
	if err != nil {
		return err
	}
	runAs, uid, gid, err := cyrusUser()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "davcyrus")
	if err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() { _ = os.RemoveAll(dir) })
	for _, sub := range []string{"config/db", "config/socket", "config/user", "spool", "run/proc", "run/lock", "run/socket"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "imapd.conf"), fmt.Appendf(nil, cyrusIMAPDConf, dir, runAs), 0o600); err != nil {
		return err
	}
	add := exec.Command(saslpasswd, "-p", "-c", "-f", filepath.Join(dir, "sasldb2"), "-u", "localhost", s.Username)
	add.Stdin = strings.NewReader(s.Password)
	if out, err := add.CombinedOutput(); err != nil {
		return fmt.Errorf("saslpasswd2: %w: %s", err, out)
	}
	for attempt := 1; ; attempt++ {
		httpAddr, err := freeLoopbackAddr()
		if err != nil {
			return err
		}
		imapAddr, err := freeLoopbackAddr()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "cyrus.conf"), fmt.Appendf(nil, cyrusConf, dir, httpAddr, imapAddr), 0o600); err != nil {
			return err
		}
		if err := chownAll(dir, uid, gid); err != nil {
			return err
		}
		// A pid file of its own: master locks its pid file and exits 71
		// when another master (another test binary's) holds the default
		// /run/cyrus-master.pid.
		p, err := spawn(s.logFile, dir, master, "-C", filepath.Join(dir, "imapd.conf"), "-M", filepath.Join(dir, "cyrus.conf"),
			"-p", filepath.Join(dir, "run", "master.pid"))
		if err != nil {
			return err
		}
		s.URL = "http://" + httpAddr
		err = waitReady(p, probeClient(nil), s.URL)
		if err == nil {
			err = imapLogin(imapAddr, s.Username, s.Password)
		}
		if err == nil {
			s.proc = p
			return nil
		}
		p.stop()
		// master logs a port it cannot bind to syslog only and carries on
		// without the service, so any failure to answer is retried.
		if attempt == cyrusAttempts {
			return err
		}
	}
}

// cyrusUser returns the user master runs its services as, with the ids
// that must own its folder: "cyrus" (Debian's package user) when running
// as root, else the user running the tests.
func cyrusUser() (name string, uid, gid int, err error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return "", 0, 0, err
		}
		return u.Username, -1, -1, nil
	}
	u, err := user.Lookup("cyrus")
	if err != nil {
		return "", 0, 0, fmt.Errorf("%w: %w", errNotInstalled, err)
	}
	uid, err = strconv.Atoi(u.Uid)
	if err != nil {
		return "", 0, 0, err
	}
	gid, err = strconv.Atoi(u.Gid)
	if err != nil {
		return "", 0, 0, err
	}
	return u.Username, uid, gid, nil
}

// chownAll hands dir and everything below it to uid and gid; -1 leaves
// the ownership alone.
func chownAll(dir string, uid, gid int) error {
	if uid < 0 {
		return nil
	}
	return filepath.Walk(dir, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
}

// imapLogin logs username in over IMAP at addr and out again, which
// creates the user's INBOX (autocreate_quota). It retries a refused
// connection until startTimeout, as the IMAP service may start a moment
// after HTTP.
func imapLogin(addr, username, password string) error {
	deadline := time.Now().Add(startTimeout)
	var (
		c   net.Conn
		err error
	)
	for range int(startTimeout / pollInterval) {
		c, err = net.DialTimeout("tcp", addr, time.Second)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(pollInterval)
	}
	if err != nil {
		return fmt.Errorf("imap %s: %w", addr, err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(requestTimeout)); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil { // the greeting
		return fmt.Errorf("imap greeting: %w", err)
	}
	if _, err := fmt.Fprintf(c, "a LOGIN %s %s\r\n", imapQuote(username), imapQuote(password)); err != nil {
		return err
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("imap login: %w", err)
		}
		if strings.HasPrefix(line, "a ") {
			if !strings.HasPrefix(line, "a OK") {
				return errors.New("imap login refused: " + strings.TrimSpace(line))
			}
			break
		}
	}
	_, _ = fmt.Fprintf(c, "b LOGOUT\r\n")
	return nil
}

// imapQuote quotes s as an IMAP quoted string (RFC 3501 §4.3).
func imapQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
