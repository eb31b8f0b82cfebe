package davtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/unical/unical/internal/testkit/pgtest"
)

// Where Debian's davical package installs the application and the
// script that makes its database.
const (
	davicalHTDocs   = "/usr/share/davical/htdocs"
	davicalScript   = davicalHTDocs + "/caldav.php"
	davicalCreateDB = "/usr/share/davical/dba/create-database.sh"
)

// davicalSetupTimeout bounds making DAViCal's database (a few seconds on
// an idle machine).
const davicalSetupTimeout = 2 * time.Minute

// davicalUserSQL adds the test user as DAViCal's admin pages do: a usr
// row (a password prefixed "**" is kept in plain text), its principal
// with DAViCal's default privileges for others, and the home collections
// of auth-functions.php's CreateHomeCollections: "calendar" and the
// scheduling outbox ".out" and inbox ".in", all three made as calendars,
// which is how DAViCal 1.1 lists them. The arguments are the user name,
// the password and the e-mail address (the user name where it is one).
const davicalUserSQL = `
WITH u AS (
	INSERT INTO usr (active, username, password, fullname, email)
	VALUES (TRUE, $1, '**' || $2, $1, $3)
	RETURNING user_no, username, fullname
), p AS (
	INSERT INTO principal (type_id, user_no, displayname, default_privileges)
	SELECT 1, user_no, fullname, privilege_to_bits(ARRAY['read-free-busy', 'schedule-deliver']) FROM u
	RETURNING user_no
)
INSERT INTO collection (user_no, parent_container, dav_name, dav_etag, dav_displayname,
	is_calendar, is_addressbook, created, modified, resourcetypes)
SELECT u.user_no, '/' || u.username || '/', '/' || u.username || '/' || c.name || '/', '-1', u.fullname || c.suffix,
	TRUE, FALSE, current_timestamp, current_timestamp, '<DAV::collection/><urn:ietf:params:xml:ns:caldav:calendar/>'
FROM u, p, (VALUES ('calendar', ' calendar'), ('.out', ' Outbox'), ('.in', ' Inbox')) AS c(name, suffix)
WHERE p.user_no = u.user_no`

// startDAViCal runs DAViCal, Debian's PHP CalDAV server, which keeps
// everything in PostgreSQL: it starts a throwaway cluster (internal/testkit/pgtest),
// makes DAViCal's database there with the package's create-database.sh,
// adds the test user with its home calendar, and serves caldav.php through
// php-cgi from a Go CGI host on a free loopback port. The package's
// /etc/davical/config.php connects as davical_app to the database
// "davical" without naming a host, so PGHOST and PGPORT in php-cgi's
// environment point it at the cluster and nothing under /etc changes.
// The principal and the calendar home are both /caldav.php/USER/.
// /.well-known/caldav goes to caldav.php, as Debian's Apache
// configuration rewrites it.
func (s *Server) startDAViCal(phpCGI string) error {
	for _, f := range []string{davicalScript, davicalCreateDB} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%w: %w", errNotInstalled, err)
		}
	}
	if _, err := findBinary("psql"); err != nil {
		return err
	}
	s.PrincipalPath = "/caldav.php/" + s.Username + "/"
	s.HomePath = s.PrincipalPath
	cluster, err := pgtest.StartCluster(pgtest.Options{})
	if errors.Is(err, pgtest.ErrNotInstalled) {
		return fmt.Errorf("%w: %w", errNotInstalled, err)
	}
	if err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, cluster.Remove)
	port := strconv.Itoa(cluster.Port)
	ctx, cancel := context.WithTimeout(context.Background(), davicalSetupTimeout)
	defer cancel()
	create := exec.CommandContext(ctx, davicalCreateDB, "davical", rand.Text())
	create.Dir = s.Dir
	create.Env = append(os.Environ(), "PGHOST=127.0.0.1", "PGPORT="+port, "PGUSER=unical",
		"DBAOPTS=--dbhost 127.0.0.1 --dbport "+port)
	create.Stdout, create.Stderr = s.logFile, s.logFile
	if err := create.Run(); err != nil {
		return fmt.Errorf("create-database.sh: %w", err)
	}
	conn, err := pgx.Connect(ctx, cluster.URL("davical"))
	if err != nil {
		return err
	}
	email := s.Username
	if !strings.Contains(email, "@") {
		email += "@example.com"
	}
	_, err = conn.Exec(ctx, davicalUserSQL, s.Username, s.Password, email)
	_ = conn.Close(ctx)
	if err != nil {
		return fmt.Errorf("add the test user: %w", err)
	}

	// php-cgi runs once per request, so its compiled scripts are kept in
	// a file cache (opcache.file_cache) for the next one; an ini file in
	// the server's folder adds it to Debian's (a leading ":" in
	// PHP_INI_SCAN_DIR appends to the built-in scan folder).
	cache := filepath.Join(s.Dir, "opcache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return err
	}
	ini := "opcache.enable=1\nopcache.file_cache=" + cache + "\nopcache.file_cache_only=1\nopcache.validate_timestamps=0\n"
	if err := os.WriteFile(filepath.Join(s.Dir, "zz-davtest.ini"), []byte(ini), 0o600); err != nil {
		return err
	}
	php := &cgi.Handler{
		Path: phpCGI,
		Root: "/caldav.php",
		Dir:  davicalHTDocs,
		Env: []string{
			"SCRIPT_FILENAME=" + davicalScript,
			"DOCUMENT_ROOT=" + davicalHTDocs,
			"REDIRECT_STATUS=200", // php-cgi runs only scripts a server hands it (cgi.force_redirect)
			"PGHOST=127.0.0.1",
			"PGPORT=" + port,
			"PHP_INI_SCAN_DIR=:" + s.Dir,
		},
		Stderr: s.logFile,
	}
	mux := http.NewServeMux()
	mux.Handle("/caldav.php/", php)
	mux.Handle("/caldav.php", php)
	mux.HandleFunc("/.well-known/", func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = "/caldav.php" + r.URL.Path
		r.URL.RawPath = ""
		php.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: requestTimeout}
	go func() { _ = srv.Serve(ln) }()
	// Cleanups run in order, so the host closes before the cluster goes.
	s.cleanup = append([]func(){func() { _ = srv.Close() }}, s.cleanup...)
	s.URL = "http://" + ln.Addr().String()
	return s.davicalReady(ctx)
}

// davicalReady asks for the test user's principal once: DAViCal answers
// 207 only when PHP, its configuration, the database and the user are all
// in place.
func (s *Server) davicalReady(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, "PROPFIND", s.PrincipalURL(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Depth", "0")
	req.SetBasicAuth(s.Username, s.Password)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusMultiStatus {
		return fmt.Errorf("PROPFIND %s: status %s, want 207 (see %s)", s.PrincipalPath, resp.Status, filepath.Base(s.LogPath))
	}
	return nil
}
