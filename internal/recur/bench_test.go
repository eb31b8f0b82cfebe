package recur_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/unical/unical/internal/recur"
)

// The benchmarks come in pairs whose ratio is the number to watch; run
//
//	go test -run XXX -bench . -benchmem -count 5 ./internal/recur/
//
// and compare within one run:
//
//	A: BenchmarkExpandA_Recur50Exdates / BenchmarkExpandA_RRuleGoRule
//	   expanding a 10-year daily series with 50 EXDATEs against plain
//	   rrule-go iterating the same rule (target: at most 1.5).
//	B: BenchmarkExpandB_MonthInYear9 / BenchmarkExpandB_FullSeries
//	   one month in year 9 of that series against all of it (target: at
//	   most 0.10).
//
// Every benchmark counts the instances it sees and fails if the count is
// off, so a fast wrong answer cannot pass for a fast right one.

// benchSeries is a daily 09:00 Europe/Berlin series over ten years, with
// 50 EXDATEs spread across it.
type benchSeries struct {
	start, until time.Time
	lines        []string
	exdates      []time.Time
}

func newBenchSeries(tb testing.TB) benchSeries {
	tb.Helper()
	berlin := mustLoad(tb, "Europe/Berlin")
	b := benchSeries{
		start: time.Date(2026, 1, 5, 9, 0, 0, 0, berlin),
		until: time.Date(2036, 1, 4, 9, 0, 0, 0, berlin),
	}
	b.lines = []string{"RRULE:FREQ=DAILY;UNTIL=" + b.until.UTC().Format("20060102T150405Z")}
	for i := range 50 {
		d := b.start.AddDate(0, 0, 3+73*i)
		b.exdates = append(b.exdates, d)
		b.lines = append(b.lines, "EXDATE;TZID=Europe/Berlin:"+d.Format("20060102T150405"))
	}
	return b
}

const (
	benchDays      = 3652 // 2026-01-05 to 2036-01-04 inclusive.
	benchInstances = benchDays - 50
)

func checkCount(b *testing.B, got, want int) {
	b.Helper()
	if got != want {
		b.Fatalf("saw %d instances, want %d", got, want)
	}
}

func BenchmarkExpandA_RRuleGoRule(b *testing.B) {
	s := newBenchSeries(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := rrule.NewRRule(rrule.ROption{Freq: rrule.DAILY, Dtstart: s.start, Until: s.until})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		next := r.Iterator()
		for _, ok := next(); ok; _, ok = next() {
			n++
		}
		checkCount(b, n, benchDays)
	}
}

// BenchmarkExpandA_RRuleGoSet50Exdates is plain rrule-go with the EXDATEs,
// for reference: the brief's baseline is the bare rule above.
func BenchmarkExpandA_RRuleGoSet50Exdates(b *testing.B) {
	s := newBenchSeries(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := rrule.NewRRule(rrule.ROption{Freq: rrule.DAILY, Dtstart: s.start, Until: s.until})
		if err != nil {
			b.Fatal(err)
		}
		set := &rrule.Set{}
		set.RRule(r)
		for _, d := range s.exdates {
			set.ExDate(d)
		}
		n := 0
		next := set.Iterator()
		for _, ok := next(); ok; _, ok = next() {
			n++
		}
		checkCount(b, n, benchInstances)
	}
}

func BenchmarkExpandA_Recur50Exdates(b *testing.B) {
	s := newBenchSeries(b)
	b.ReportAllocs()
	for b.Loop() {
		set, err := recur.Parse(s.lines, s.start, false)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for range set.All(time.Hour) {
			n++
		}
		checkCount(b, n, benchInstances)
	}
}

func BenchmarkExpandB_FullSeries(b *testing.B) {
	s := newBenchSeries(b)
	set, err := recur.Parse(s.lines, s.start, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for range set.Between(s.start, s.until.Add(time.Hour), time.Hour) {
			n++
		}
		checkCount(b, n, benchInstances)
	}
}

func BenchmarkExpandB_MonthInYear9(b *testing.B) {
	s := newBenchSeries(b)
	set, err := recur.Parse(s.lines, s.start, false)
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2034, 6, 1, 0, 0, 0, 0, s.start.Location())
	to := from.AddDate(0, 1, 0)
	want := 30
	for _, d := range s.exdates {
		if !d.Before(from) && d.Before(to) {
			want--
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for range set.Between(from, to, time.Hour) {
			n++
		}
		checkCount(b, n, want)
	}
}

// BenchmarkExpandB_MonthInYear9_RRuleGoBetween is rrule-go's own Between
// for the same month, which walks from DTSTART, for reference.
func BenchmarkExpandB_MonthInYear9_RRuleGoBetween(b *testing.B) {
	s := newBenchSeries(b)
	r, err := rrule.NewRRule(rrule.ROption{Freq: rrule.DAILY, Dtstart: s.start, Until: s.until})
	if err != nil {
		b.Fatal(err)
	}
	from := time.Date(2034, 6, 1, 0, 0, 0, 0, s.start.Location())
	to := from.AddDate(0, 1, 0)
	b.ReportAllocs()
	for b.Loop() {
		// No EXDATEs here: this is the bare rule, 30 days of June.
		checkCount(b, len(r.Between(from.Add(-time.Hour), to, false)), 30)
	}
}

// Example-style check that the benchmark series is what the names say.
func TestBenchSeries(t *testing.T) {
	t.Parallel()
	s := newBenchSeries(t)
	set, err := recur.Parse(s.lines, s.start, false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var last recur.Occurrence
	for o := range set.All(time.Hour) {
		n, last = n+1, o
	}
	if got := fmt.Sprint(n, " ", last.Start.Format(time.RFC3339)); got != fmt.Sprint(benchInstances, " 2036-01-04T09:00:00+01:00") {
		t.Errorf("bench series = %s", got)
	}
}
