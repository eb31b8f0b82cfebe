package pgtest

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestNewDatabase checks that each database is empty and separate: a table
// made in one is not in the other.
func TestNewDatabase(t *testing.T) {
	c := Shared(t)
	a, b := c.NewDatabase(t), c.NewDatabase(t)
	if a == b {
		t.Fatalf("NewDatabase() twice = %q both times", a)
	}
	ctx := t.Context()
	connA, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer connA.Close(ctx)
	if _, err := connA.Exec(ctx, "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	connB, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer connB.Close(ctx)
	var n int
	if err := connB.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the second database has the first one's table")
	}
}

// fakeTB records how reportStartError ended a test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skipf(string, ...any)  { f.skipped = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }

func TestReportStartError(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		ci         bool
		skip, fail bool
	}{
		{"missing outside CI skips", ErrNotInstalled, false, true, false},
		{"missing in CI fails", ErrNotInstalled, true, false, true},
		{"other failure fails", errTest, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTB{}
			reportStartError(f, tc.err, tc.ci)
			if f.skipped != tc.skip || f.failed != tc.fail {
				t.Errorf("skipped, failed = %v, %v; want %v, %v", f.skipped, f.failed, tc.skip, tc.fail)
			}
		})
	}
}

var errTest = testError("initdb failed")

type testError string

func (e testError) Error() string { return string(e) }

// TestNewClearedDatabase hands a database from one test to the next with
// its tables in place, their rows gone, except the kept table's.
func TestNewClearedDatabase(t *testing.T) {
	c := Shared(t)
	var url string
	t.Run("first", func(t *testing.T) {
		url = c.NewClearedDatabase(t, "kept")
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		for _, sql := range []string{
			"CREATE TABLE kept (x int)", "CREATE TABLE emptied (x int)",
			"INSERT INTO kept VALUES (1)", "INSERT INTO emptied VALUES (1), (2)",
		} {
			if _, err := conn.Exec(t.Context(), sql); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("second", func(t *testing.T) {
		if got := c.NewClearedDatabase(t, "kept"); got != url {
			t.Fatalf("NewClearedDatabase() = %s, want the first test's %s back", got, url)
		}
		conn, err := pgx.Connect(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		var kept, emptied int
		if err := conn.QueryRow(t.Context(), "SELECT (SELECT count(*) FROM kept), (SELECT count(*) FROM emptied)").Scan(&kept, &emptied); err != nil {
			t.Fatal(err)
		}
		if kept != 1 || emptied != 0 {
			t.Errorf("rows after the hand-over: kept %d, emptied %d; want 1 and 0", kept, emptied)
		}
	})
}
