// Package pgtest starts throwaway PostgreSQL clusters for tests, as
// internal/testkit/davtest starts CalDAV servers: initdb and pg_ctl in a temporary
// folder, listening on 127.0.0.1 on a free port, stopped and removed
// afterwards.
//
// A test binary shares one cluster ([Shared], started on first use and
// stopped by [Main]); each test takes its own empty database from it with
// [Cluster.NewDatabase]. A test that stops and restarts the server takes a
// cluster of its own with [Start].
//
// initdb and postgres refuse to run as root, so when the tests run as root
// the cluster runs as the "postgres" system user (which Debian's package
// creates) and its folder is owned by that user.
//
// If PostgreSQL is not installed, tests are skipped with the install
// command, unless the environment variable CI is "true": there a missing
// PostgreSQL fails the test, so that CI never passes by skipping.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// installHint is the command printed when PostgreSQL is missing.
const installHint = "scripts/install-test-deps.sh (apt-get install postgresql)"

// superuser is the cluster's superuser, made by initdb; connections from
// loopback are trusted, so it has no password.
const superuser = "unical"

// ErrNotInstalled marks a start failure caused by missing binaries, which
// is a skip outside CI and a failure in CI.
var ErrNotInstalled = errors.New("PostgreSQL binaries (initdb, pg_ctl) not found")

// Options tune a cluster.
type Options struct {
	// Durable keeps PostgreSQL's default fsync and commit settings, for
	// benchmarks that compare it with a store that syncs every commit.
	// Without it the cluster skips fsync, which makes tests fast and is
	// harmless for data thrown away afterwards.
	Durable bool
}

// Cluster is a running PostgreSQL server with its data folder.
type Cluster struct {
	// Dir holds the data folder and the server's log.
	Dir string
	// Port is the TCP port on 127.0.0.1.
	Port int

	bin     string // folder of initdb, pg_ctl and postgres
	data    string
	logPath string
	cred    *syscall.Credential // nil when not running as root
	seq     atomic.Int64

	mu      sync.Mutex
	free    []string // emptied databases for the next NewDatabase
	cleared []string // databases whose tables were emptied, for NewClearedDatabase
}

// Start starts a cluster for tb alone and stops and removes it when tb's
// cleanup runs. Starting costs a second or two.
func Start(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	c, err := start(opts)
	if err != nil {
		reportStartError(tb, err, os.Getenv("CI") == "true")
		return nil
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("pgtest: server log:\n%s", c.logTail())
		}
		c.Remove()
	})
	return c
}

// StartCluster starts a cluster for a helper that has no testing.TB, such
// as a server kept for a whole test binary (internal/testkit/davtest's DAViCal,
// which keeps its data in PostgreSQL). The caller stops and removes it
// with [Cluster.Remove]. A missing PostgreSQL is [ErrNotInstalled].
func StartCluster(opts Options) (*Cluster, error) { return start(opts) }

var shared struct {
	mu      sync.Mutex
	main    bool // Main is running the tests
	cluster *Cluster
	err     error
}

// Main runs the tests of a package that uses [Shared] and then stops and
// removes the shared cluster. Call it from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	code := m.Run()
	shared.mu.Lock()
	if shared.cluster != nil {
		shared.cluster.Remove()
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// Shared returns the test binary's cluster, starting it on first use.
// The package's TestMain must call [Main], which stops it.
func Shared(tb testing.TB) *Cluster {
	tb.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.main {
		tb.Fatal("pgtest: Shared needs TestMain to call pgtest.Main, which stops the cluster")
	}
	if shared.cluster == nil && shared.err == nil {
		shared.cluster, shared.err = start(Options{})
	}
	if shared.err != nil {
		reportStartError(tb, shared.err, os.Getenv("CI") == "true")
		return nil
	}
	return shared.cluster
}

// reportStartError skips or fails tb for a cluster that did not start. It
// takes ci as an argument so that both paths can be tested.
func reportStartError(tb testing.TB, err error, ci bool) {
	tb.Helper()
	if errors.Is(err, ErrNotInstalled) {
		if ci {
			tb.Fatalf("pgtest: PostgreSQL is required when CI=true: %v; install it with %s", err, installHint)
			return
		}
		tb.Skipf("pgtest: skipping, PostgreSQL is not installed: %v; install it with %s", err, installHint)
		return
	}
	tb.Fatalf("pgtest: start PostgreSQL: %v", err)
}

// findBin returns the folder holding initdb and pg_ctl: the one on PATH,
// else the newest of Debian's /usr/lib/postgresql/N/bin.
func findBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err == nil {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	return "", ErrNotInstalled
}

// versionOf is the major version in a /usr/lib/postgresql/N/bin path.
func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// start runs initdb in a new temporary folder and starts the server.
func start(opts Options) (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, data: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "server.log")}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir)
		}
	}()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root needs the postgres system user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	if out, err := c.run("initdb", "-D", c.data, "-U", superuser, "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c.Port = port
	conf := []string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", port),
		"unix_socket_directories = ''",
		"max_connections = 300",
		"shared_buffers = 32MB",
	}
	if !opts.Durable {
		conf = append(conf, "fsync = off", "synchronous_commit = off", "full_page_writes = off")
	}
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString("\n# pgtest\n" + strings.Join(conf, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := c.StartServer(); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

// run runs one of the PostgreSQL programs, as the postgres user when the
// tests run as root, and returns its combined output.
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, name), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd.CombinedOutput()
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts the server (again, after [Cluster.StopServer]) and
// waits until it accepts connections.
func (c *Cluster) StartServer() error {
	if out, err := c.run("pg_ctl", "start", "-w", "-t", "60", "-D", c.data, "-l", c.logPath); err != nil {
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, c.logTail())
	}
	return nil
}

// StopServer stops the server, closing every connection, and keeps its
// data, so that [Cluster.StartServer] brings the same databases back.
func (c *Cluster) StopServer() error {
	if out, err := c.run("pg_ctl", "stop", "-w", "-t", "60", "-m", "fast", "-D", c.data); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// Remove stops the server at once and removes its folder.
func (c *Cluster) Remove() {
	c.run("pg_ctl", "stop", "-w", "-t", "30", "-m", "immediate", "-D", c.data)
	os.RemoveAll(c.Dir)
}

// logTail returns the end of the server log.
func (c *Cluster) logTail() string {
	b, err := os.ReadFile(c.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 32<<10 {
		b = b[len(b)-32<<10:]
	}
	return string(b)
}

// URL returns the connection URL of database db.
func (c *Cluster) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(superuser), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)), Path: "/" + db}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

// NewDatabase returns the URL of an empty database for tb alone. When tb
// ends, the database is emptied (its schema dropped, its connections
// closed) and handed to a later test: CREATE DATABASE costs most of a
// second on a busy machine, while emptying one costs milliseconds, so a
// test binary creates only as many databases as it runs tests at once.
func (c *Cluster) NewDatabase(tb testing.TB) string {
	tb.Helper()
	return c.lease(tb, &c.free, func(ctx context.Context, name string) error { return c.reset(ctx, name) })
}

// NewClearedDatabase is NewDatabase for tests that only need empty
// tables, not an empty database: it hands out a database an earlier such
// test used, with the rows of every table truncated except those of the
// tables named in keep, whose rows stay. A test of a store whose schema
// comes from migrations keeps its migrations table, so that the next
// test's Open finds the schema made and skips the migrations, which cost
// more than the test itself on a busy machine. Sequences keep counting.
// The first use of each database is an empty one, as from NewDatabase.
func (c *Cluster) NewClearedDatabase(tb testing.TB, keep ...string) string {
	tb.Helper()
	return c.lease(tb, &c.cleared, func(ctx context.Context, name string) error { return c.clear(ctx, name, keep) })
}

// lease hands tb a database from pool, or a new one when the pool is
// empty, and when tb ends empties it with empty and puts it back; a
// database that cannot be emptied is dropped instead.
func (c *Cluster) lease(tb testing.TB, pool *[]string, empty func(ctx context.Context, name string) error) string {
	tb.Helper()
	c.mu.Lock()
	var name string
	if n := len(*pool); n > 0 {
		name, *pool = (*pool)[n-1], (*pool)[:n-1]
	}
	c.mu.Unlock()
	if name == "" {
		name = fmt.Sprintf("t%d_%d", os.Getpid(), c.seq.Add(1))
		if err := c.exec(tb.Context(), "postgres", "CREATE DATABASE "+name); err != nil {
			tb.Fatalf("pgtest: create database: %v", err)
		}
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := empty(ctx, name); err != nil {
			tb.Logf("pgtest: empty database %s: %v", name, err)
			c.exec(ctx, "postgres", "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			return
		}
		c.mu.Lock()
		*pool = append(*pool, name)
		c.mu.Unlock()
	})
	return c.URL(name)
}

// clear closes the connections to database name and truncates every table
// of its public schema but those in keep.
func (c *Cluster) clear(ctx context.Context, name string, keep []string) error {
	if err := c.exec(ctx, "postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+name+"' AND pid <> pg_backend_pid()"); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, c.URL(name))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT format('%I', tablename) FROM pg_tables WHERE schemaname = 'public' AND NOT tablename = ANY($1)", keep)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		return err
	}
	_, err = conn.Exec(ctx, "TRUNCATE "+strings.Join(tables, ", ")+" CASCADE")
	return err
}

// reset empties database name: it closes the connections a test left
// open and drops everything the test made, which lives in the public
// schema unless the test made other schemas, which go too.
func (c *Cluster) reset(ctx context.Context, name string) error {
	if err := c.exec(ctx, "postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+name+"' AND pid <> pg_backend_pid()"); err != nil {
		return err
	}
	return c.exec(ctx, name, `DO $$
DECLARE s text;
BEGIN
	FOR s IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' LOOP
		EXECUTE format('DROP SCHEMA %I CASCADE', s);
	END LOOP;
	CREATE SCHEMA public;
END $$`)
}

// exec runs one statement in database db.
func (c *Cluster) exec(ctx context.Context, db, sql string) error {
	conn, err := pgx.Connect(ctx, c.URL(db))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// DumpTables returns every row of every table of the database at url as
// text (bytea columns in hex, as PostgreSQL writes them), for tests that
// check what the database holds, such as that no secret is in it in
// plain text.
func DumpTables(tb testing.TB, url string) string {
	tb.Helper()
	ctx := tb.Context()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
	if err != nil {
		tb.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		tb.Fatal(err)
	}
	var dump strings.Builder
	for _, table := range tables {
		var text *string
		if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT string_agg(t::text, E'\\n') FROM %q t", table)).Scan(&text); err != nil {
			tb.Fatal(err)
		}
		if text != nil {
			dump.WriteString(*text)
			dump.WriteByte('\n')
		}
	}
	return dump.String()
}
