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
		{"missing outside CI skips", errNotInstalled, false, true, false},
		{"missing in CI fails", errNotInstalled, true, false, true},
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
