package davtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// radicaleConfig is Radicale 3.1's configuration; the arguments are the
// listen address, the htpasswd file and the storage folder. Radicale reads
// only the files named with --config, so the system's /etc/radicale/config
// (remote_user auth, a rights file) does not apply.
const radicaleConfig = `[server]
hosts = %s

[auth]
type = htpasswd
htpasswd_filename = %s
htpasswd_encryption = plain
# Radicale sleeps about a second after a wrong password to slow down
# guessing; the 401 tests would pay for it.
delay = 0

[rights]
# Each user may read and write only below /USER/.
type = owner_only

[storage]
filesystem_folder = %s

[web]
type = none

[logging]
# info logs one line per request and response, which is what a failing
# test wants to see.
level = info
`

// radicaleAttempts bounds how often a start is retried because another
// process took the chosen port first.
const radicaleAttempts = 3

// startRadicale starts Radicale in the foreground on a free loopback port.
// The principal and the calendar home are both /USER/.
func (s *Server) startRadicale(bin string) error {
	s.HomePath = s.PrincipalPath
	users := filepath.Join(s.Dir, "users")
	if err := os.WriteFile(users, []byte(s.Username+":"+s.Password+"\n"), 0o600); err != nil {
		return err
	}
	storage := filepath.Join(s.Dir, "collections")
	config := filepath.Join(s.Dir, "radicale.conf")
	for attempt := 1; ; attempt++ {
		addr, err := freeLoopbackAddr()
		if err != nil {
			return err
		}
		if err := os.WriteFile(config, fmt.Appendf(nil, radicaleConfig, addr, users, storage), 0o600); err != nil {
			return err
		}
		logOff := s.logSize()
		p, err := spawn(s.logFile, s.Dir, bin, "--config", config)
		if err != nil {
			return err
		}
		s.URL = "http://" + addr
		err = waitReady(p, probeClient(nil), s.URL)
		if err == nil {
			s.proc = p
			return nil
		}
		p.stop()
		portTaken := errors.Is(err, errExited) && strings.Contains(s.logSince(logOff), "Address already in use")
		if !portTaken || attempt == radicaleAttempts {
			return err
		}
	}
}
