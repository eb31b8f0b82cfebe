package recur

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/teambition/rrule-go"
)

// rule is one RRULE or EXRULE, prepared for rrule-go.
//
// rrule-go evaluates the rule on the wall-clock line: DTSTART's wall clock
// read as UTC. There are no DST jumps there, so every instance keeps its
// local time of day (RFC 5545 §3.3.10), and the resolver then maps each
// wall clock to an instant with the RFC 5545 §3.3.5 rules, which
// time.Date (and so rrule-go in a zone) gets wrong for some zones.
type rule struct {
	// opt has every BYxxx part that rrule-go would derive from DTSTART
	// spelled out, so moving Dtstart forward by whole periods keeps the
	// pattern. Count is the effective count (see newRule); Until is a
	// bound on the wall-clock line.
	opt   rrule.ROption
	count bool // the rule has COUNT
	empty bool // COUNT was used up by DTSTART alone

	// untilInst is UNTIL as an instant, for UTC UNTIL values in timed
	// series: the wall-clock bound in opt.Until is then only a loose one.
	untilInst    int64
	hasUntilInst bool

	// perPeriod is the constant number of instances in every period of a
	// COUNT rule, or 0 if it varies; firstN is the number in the first
	// (possibly partial) period. Together they let a COUNT rule skip
	// periods arithmetically.
	perPeriod int
	firstN    int

	// last is the last instance of a COUNT rule whose count cannot be
	// skipped arithmetically, found once by full iteration; the rule then
	// skips like an UNTIL rule.
	lastOnce sync.Once
	last     time.Time
	lastOK   bool
}

// newRule prepares a parsed RRULE or EXRULE for the series.
func (s *Set) newRule(rl recurLine) (*rule, *fieldError) {
	r := &rule{opt: rl.opt}
	o := &r.opt
	o.Dtstart = time.Unix(s.start.wall, 0).UTC()
	explicit(o)
	if err := checkPossible(o.Bymonth, o.Bymonthday); err != nil {
		err.field = "RRULE"
		err.reason = "with the day of the series start: " + err.reason
		return nil, err
	}
	if err := checkReachable(o); err != nil {
		return nil, err
	}
	if n := maxSetSize(o); n > maxPeriodInstances {
		return nil, errf("FREQ", "one period of the rule can hold %d instances; at most %d are supported", n, maxPeriodInstances)
	}
	if u := rl.until; u != nil {
		switch {
		case s.allDay:
			o.Until = time.Unix(u.dayLabel(), 0).UTC()
		case u.kind == kindDate:
			// A DATE UNTIL on a timed series (RFC 5545 §3.3.10 wants a
			// DATE-TIME): take it as the whole local day.
			o.Until = time.Unix(u.label()+86399, 0).UTC()
		case u.kind == kindLocal:
			o.Until = time.Unix(u.label(), 0).UTC()
		default:
			// UTC UNTIL bounds instants. Bound the wall-clock line loosely
			// by the largest offset nearby and filter exactly later.
			r.untilInst, r.hasUntilInst = u.label(), true
			_, hi := offsetRange(u.label(), s.loc)
			o.Until = time.Unix(u.label()+hi+3600, 0).UTC()
		}
	}
	if !occurs(*o) {
		// Nothing but DTSTART: no stream, and no walk towards the year
		// 9999 each time the series is expanded.
		r.count, r.empty = o.Count > 0, true
		return r, nil
	}
	if o.Count > 0 {
		r.count = true
		if !rl.exclude {
			// RFC 5545 §3.3.10: "The DTSTART property value always counts
			// as the first occurrence." DTSTART is always an instance of
			// the set (see gen); when the rule itself does not produce it,
			// DTSTART uses up one of the rule's COUNT.
			first, ok := mustRRule(*o).Iterator()()
			if !ok || !first.Equal(o.Dtstart) {
				o.Count--
				r.empty = o.Count == 0
			}
		}
		if !r.empty {
			r.perPeriod = perPeriod(o)
			if r.perPeriod > 0 {
				r.firstN = countFirstPeriod(*o)
			} else if o.Count > maxCountWalk {
				return nil, errf("COUNT", "COUNT=%d with this rule would need a walk through every instance; at most %d are supported (use UNTIL)", o.Count, maxCountWalk)
			}
		}
	}
	return r, nil
}

// maxPeriodInstances bounds the instances one period of a rule may hold:
// rrule-go builds a whole period in memory before it yields the first
// (FREQ=YEARLY with every BYHOUR, BYMINUTE and BYSECOND is 31 million).
const maxPeriodInstances = 100_000

// maxCountWalk bounds COUNT for the rules whose periods vary in size: the
// last instance of such a rule is found by walking through all of them
// (see lastInstance) whenever a window after the first period is expanded.
const maxCountWalk = 100_000

// occurs reports whether the rule, COUNT and UNTIL aside, has an instance
// within 400 years of its start. rrule-go searches for the next instance
// until the year 9999 when none comes, which for a daily or finer rule that
// passes every check here but never matches (BYMONTH=1;BYYEARDAY=200) is
// millions of steps on every expansion. The Gregorian calendar repeats
// every 400 years (146097 days, a whole number of weeks), so the rule is
// probed from its start moved forward by whole 400-year cycles to within
// 400 to 800 years of rrule-go's last year, where the search ends soon.
// A rule that has no instance in 400 years is treated as having none.
// The answer is remembered, as the same series is parsed again for every
// page of a listing and every free/busy query.
func occurs(o rrule.ROption) bool {
	o.Count, o.Until = 0, time.Time{}
	if y := o.Dtstart.Year(); y < rrule.MAXYEAR-400 {
		o.Dtstart = o.Dtstart.AddDate((rrule.MAXYEAR-400-y)/400*400, 0, 0)
	}
	key := o.String()
	occursCache.Lock()
	ok, known := occursCache.m[key]
	occursCache.Unlock()
	if known {
		return ok
	}
	_, ok = mustRRule(o).Iterator()()
	occursCache.Lock()
	if len(occursCache.m) >= maxOccursCache {
		clear(occursCache.m)
	}
	occursCache.m[key] = ok
	occursCache.Unlock()
	return ok
}

// maxOccursCache bounds the remembered probes; the cache starts over when
// it is full.
const maxOccursCache = 4096

var occursCache = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// checkReachable refuses rules that can never produce an instance in
// ways that make rrule-go loop for ever or for centuries: a sub-daily
// INTERVAL that never lands on an allowed BYHOUR/BYMINUTE/BYSECOND (rrule-go
// v1.8.2 spins without end on FREQ=HOURLY;INTERVAL=2;BYHOUR=9 from 10:00),
// and a BYSETPOS beyond the largest set a period can hold.
func checkReachable(o *rrule.ROption) *fieldError {
	if o.Freq >= rrule.HOURLY {
		unit := map[rrule.Frequency]int{rrule.HOURLY: 3600, rrule.MINUTELY: 60, rrule.SECONDLY: 1}[o.Freq]
		perDay := 86400 / unit
		dt := o.Dtstart
		x0 := (dt.Hour()*3600 + dt.Minute()*60 + dt.Second()) / unit
		// The times of day visited are x0 plus multiples of gcd(INTERVAL,
		// units per day); one of them must pass the filters rrule-go applies
		// while stepping.
		g := gcd(o.Interval, perDay)
		found := false
		for x := x0 % g; x < perDay && !found; x += g {
			sec := x * unit
			found = (len(o.Byhour) == 0 || slices.Contains(o.Byhour, sec/3600)) &&
				(o.Freq < rrule.MINUTELY || len(o.Byminute) == 0 || slices.Contains(o.Byminute, sec/60%60)) &&
				(o.Freq < rrule.SECONDLY || len(o.Bysecond) == 0 || slices.Contains(o.Bysecond, sec%60))
		}
		if !found {
			return errf("INTERVAL", "stepping by %d from the start's time never reaches the BYHOUR/BYMINUTE/BYSECOND values: the rule never occurs", o.Interval)
		}
	}
	if len(o.Bysetpos) > 0 {
		most := maxSetSize(o)
		for _, p := range o.Bysetpos {
			if abs(p) <= most {
				return nil
			}
		}
		return errf("BYSETPOS", "a period holds at most %d instances, so BYSETPOS=%v never selects one", most, o.Bysetpos)
	}
	return nil
}

// maxSetSize bounds the number of instances one period of the rule can
// hold, before BYSETPOS.
func maxSetSize(o *rrule.ROption) int {
	days := map[rrule.Frequency]int{rrule.YEARLY: 366, rrule.MONTHLY: 31, rrule.WEEKLY: 7}[o.Freq]
	if days == 0 {
		days = 1
	}
	months := 12
	if len(o.Bymonth) > 0 {
		months = len(o.Bymonth)
		if o.Freq == rrule.YEARLY {
			days = min(days, 31*months)
		}
	}
	if n := len(o.Bymonthday); n > 0 {
		switch o.Freq {
		case rrule.MONTHLY:
			days = min(days, n)
		case rrule.YEARLY:
			days = min(days, n*months)
		}
	}
	if n := len(o.Byyearday); n > 0 {
		days = min(days, n)
	}
	if n := len(o.Byweekno); n > 0 {
		days = min(days, 7*n)
	}
	if len(o.Byweekday) > 0 {
		perWeekday := map[rrule.Frequency]int{rrule.YEARLY: 53, rrule.MONTHLY: 5}[o.Freq]
		n := 0
		for _, w := range o.Byweekday {
			switch {
			case w.N() != 0 && o.Freq == rrule.YEARLY && len(o.Bymonth) > 0:
				n += months
			case w.N() != 0:
				n++
			default:
				n += max(perWeekday, 1)
			}
		}
		days = min(days, n)
	}
	times := max(len(o.Bysecond), 1)
	if o.Freq <= rrule.HOURLY {
		times *= max(len(o.Byminute), 1)
	}
	if o.Freq <= rrule.DAILY {
		times *= max(len(o.Byhour), 1)
	}
	if o.Freq == rrule.SECONDLY {
		times = 1
	}
	if o.Freq == rrule.MINUTELY {
		times = max(len(o.Bysecond), 1)
	}
	return days * times
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// explicit adds the BYxxx parts that rrule-go derives from DTSTART when
// they are missing, with rrule-go's own conditions (RFC 5545 §3.3.10: "the
// values are derived from DTSTART").
func explicit(o *rrule.ROption) {
	dt := o.Dtstart
	if len(o.Byweekno) == 0 && len(o.Byyearday) == 0 && len(o.Bymonthday) == 0 &&
		len(o.Byweekday) == 0 && len(o.Byeaster) == 0 {
		switch o.Freq {
		case rrule.YEARLY:
			if len(o.Bymonth) == 0 {
				o.Bymonth = []int{int(dt.Month())}
			}
			o.Bymonthday = []int{dt.Day()}
		case rrule.MONTHLY:
			o.Bymonthday = []int{dt.Day()}
		case rrule.WEEKLY:
			o.Byweekday = []rrule.Weekday{weekdayOf(dt)}
		}
	}
	if len(o.Byhour) == 0 && o.Freq < rrule.HOURLY {
		o.Byhour = []int{dt.Hour()}
	}
	if len(o.Byminute) == 0 && o.Freq < rrule.MINUTELY {
		o.Byminute = []int{dt.Minute()}
	}
	if len(o.Bysecond) == 0 && o.Freq < rrule.SECONDLY {
		o.Bysecond = []int{dt.Second()}
	}
}

var byGoWeekday = [7]rrule.Weekday{rrule.SU, rrule.MO, rrule.TU, rrule.WE, rrule.TH, rrule.FR, rrule.SA}

func weekdayOf(t time.Time) rrule.Weekday { return byGoWeekday[t.Weekday()] }

// perPeriod returns how many instances every period of the rule holds when
// that number is the same for all periods, or 0. Only simple shapes are
// recognised; the others fall back to a one-time full iteration.
func perPeriod(o *rrule.ROption) int {
	if len(o.Bysetpos) > 0 || len(o.Byyearday) > 0 || len(o.Byweekno) > 0 {
		return 0
	}
	times := len(o.Bysecond)
	if o.Freq <= rrule.HOURLY {
		times *= len(o.Byminute)
	}
	if o.Freq <= rrule.DAILY {
		times *= len(o.Byhour)
	}
	if o.Freq >= rrule.HOURLY {
		// Any filter above the frequency's own unit drops whole periods.
		if len(o.Bymonth)+len(o.Bymonthday)+len(o.Byweekday)+len(o.Byhour) > 0 ||
			o.Freq >= rrule.MINUTELY && len(o.Byminute) > 0 ||
			o.Freq == rrule.SECONDLY && len(o.Bysecond) > 0 {
			return 0
		}
		if o.Freq == rrule.SECONDLY {
			return 1
		}
		return times
	}
	days := 0
	switch o.Freq {
	case rrule.DAILY:
		if len(o.Bymonth)+len(o.Bymonthday)+len(o.Byweekday) == 0 {
			days = 1
		}
	case rrule.WEEKLY:
		if len(o.Bymonth)+len(o.Bymonthday) == 0 && plainWeekdays(o.Byweekday) {
			days = len(o.Byweekday)
		}
	case rrule.MONTHLY:
		if len(o.Bymonth) == 0 {
			days = fixedDays(o.Bymonthday, o.Byweekday, 28, 4)
		}
	case rrule.YEARLY:
		if len(o.Bymonth) > 0 {
			days = len(o.Bymonth) * fixedDays(o.Bymonthday, o.Byweekday, 28, 4)
		} else if len(o.Bymonthday) == 0 {
			// Numbered weekdays of the year: every year has 52 of each.
			days = fixedDays(nil, o.Byweekday, 0, 52)
		}
	}
	return days * times
}

func plainWeekdays(ws []rrule.Weekday) bool {
	for _, w := range ws {
		if w.N() != 0 {
			return false
		}
	}
	return len(ws) > 0
}

// fixedDays returns how many days a month (or year) holds for the given
// month days or numbered weekdays when that is the same every time: month
// days of one sign within maxDay, or numbered weekdays of one sign within
// maxN, but not both kinds.
func fixedDays(monthdays []int, wds []rrule.Weekday, maxDay, maxN int) int {
	if (len(monthdays) == 0) == (len(wds) == 0) {
		return 0
	}
	sign := 0
	same := func(n int) bool {
		sg := 1
		if n < 0 {
			sg = -1
		}
		if sign == 0 {
			sign = sg
		}
		return sg == sign
	}
	for _, d := range monthdays {
		if abs(d) > maxDay || !same(d) {
			return 0
		}
	}
	for _, w := range wds {
		if w.N() == 0 || abs(w.N()) > maxN || !same(w.N()) {
			return 0
		}
	}
	return len(monthdays) + len(wds)
}

// countFirstPeriod counts the rule's instances before its second period.
func countFirstPeriod(o rrule.ROption) int {
	o.Count = 0 // Count the whole period even if COUNT ends inside it.
	o.Until = time.Time{}
	p0 := periodIndex(&o, o.Dtstart.Unix())
	bound := periodStart(&o, p0+int64(o.Interval))
	next := mustRRule(o).Iterator()
	n := 0
	for t, ok := next(); ok && t.Before(bound); t, ok = next() {
		n++
	}
	return n
}

// lastInstance returns the last instance of a COUNT rule, computed once.
func (r *rule) lastInstance() (time.Time, bool) {
	r.lastOnce.Do(func() {
		next := mustRRule(r.opt).Iterator()
		for t, ok := next(); ok; t, ok = next() {
			r.last, r.lastOK = t, true
		}
	})
	return r.last, r.lastOK
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// periodIndex numbers the rule's periods (years, months, weeks starting on
// WKST, days, hours, minutes, seconds) on the wall-clock line.
func periodIndex(o *rrule.ROption, wall int64) int64 {
	switch o.Freq {
	case rrule.YEARLY:
		return int64(time.Unix(wall, 0).UTC().Year())
	case rrule.MONTHLY:
		t := time.Unix(wall, 0).UTC()
		return int64(t.Year())*12 + int64(t.Month()) - 1
	case rrule.WEEKLY:
		// 1970-01-01 was a Thursday (rrule-go day 3, counting from MO=0);
		// weeks start on days congruent to WKST-3 modulo 7.
		c := floorMod(int64(o.Wkst.Day())-3, 7)
		return floorDiv(floorDiv(wall, 86400)-c, 7)
	case rrule.DAILY:
		return floorDiv(wall, 86400)
	case rrule.HOURLY:
		return floorDiv(wall, 3600)
	case rrule.MINUTELY:
		return floorDiv(wall, 60)
	}
	return wall
}

// periodStart returns the first moment of period p on the wall-clock line.
func periodStart(o *rrule.ROption, p int64) time.Time {
	switch o.Freq {
	case rrule.YEARLY:
		return time.Date(int(p), 1, 1, 0, 0, 0, 0, time.UTC)
	case rrule.MONTHLY:
		return time.Date(int(floorDiv(p, 12)), time.Month(floorMod(p, 12)+1), 1, 0, 0, 0, 0, time.UTC)
	case rrule.WEEKLY:
		c := floorMod(int64(o.Wkst.Day())-3, 7)
		return time.Unix((p*7+c)*86400, 0).UTC()
	case rrule.DAILY:
		return time.Unix(p*86400, 0).UTC()
	case rrule.HOURLY:
		return time.Unix(p*3600, 0).UTC()
	case rrule.MINUTELY:
		return time.Unix(p*60, 0).UTC()
	}
	return time.Unix(p, 0).UTC()
}

// offsetRange returns the smallest and largest UTC offsets of loc within
// two days of the instant sec.
func offsetRange(sec int64, loc *time.Location) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, d := range [...]int64{-2 * 86400, -86400, 0, 86400, 2 * 86400} {
		o := offsetAt(sec+d, loc)
		lo, hi = min(lo, o), max(hi, o)
	}
	return lo, hi
}

// stream starts iterating r at the first period that can hold an instance
// keyed at or after fromKey.
//
// rrule-go always iterates from DTSTART, so a window in year 9 of a daily
// series would walk through eight years first. Instead Dtstart moves
// forward by a whole number of INTERVAL periods, to the start of the
// period holding the window's wall clock: every BYxxx part is explicit
// (see explicit), and rrule-go builds each period's set from the period
// alone, so later periods, BYSETPOS included, come out the same. COUNT
// shrinks by the instances skipped, computed arithmetically when every
// period holds the same number, else through the rule's last instance.
func (s *Set) stream(r *rule, fromKey int64) *ruleStream {
	rs := &ruleStream{until: r.untilInst, hasUntil: r.hasUntilInst}
	if !s.allDay {
		rs.res = &resolver{loc: s.loc, lo: 1, hi: 0}
	}
	opt, ok := s.skipTo(r, fromKey)
	if !ok {
		rs.done = true
		return rs
	}
	rs.next = mustRRule(opt).Iterator()
	return rs
}

// skipTo returns r's options with Dtstart moved forward for a window that
// starts at fromKey, or false when no instance of r is left from there.
func (s *Set) skipTo(r *rule, fromKey int64) (rrule.ROption, bool) {
	opt := r.opt
	if r.empty {
		return opt, false
	}
	if s.noSkip || fromKey <= s.start.key {
		return opt, true
	}
	target := fromKey
	if !s.allDay {
		// An instant maps to a wall clock at most the largest offset
		// away; take the smallest nearby offset, and an hour's slack.
		lo, _ := offsetRange(fromKey, s.loc)
		target = fromKey + lo - 3600
	}
	p0 := periodIndex(&opt, opt.Dtstart.Unix())
	k := floorDiv(periodIndex(&opt, target)-p0, int64(opt.Interval))
	if k <= 0 {
		return opt, true
	}
	anchor := periodStart(&opt, p0+k*int64(opt.Interval))
	if r.count {
		if r.perPeriod > 0 {
			left := int64(opt.Count) - int64(r.firstN) - (k-1)*int64(r.perPeriod)
			if left <= 0 {
				return opt, false
			}
			opt.Count = int(left)
		} else {
			last, ok := r.lastInstance()
			if !ok || last.Before(anchor) {
				return opt, false
			}
			opt.Count, opt.Until = 0, last
		}
	}
	opt.Dtstart = anchor
	return opt, true
}

// ruleStream yields a rule's instances in key order.
//
// Keys rise with the wall clock except for wall clocks in a DST gap, which
// move forward by the gap's length (RFC 5545 §3.3.5) and can overtake the
// next few instances. Those are held back until the stream passes them.
type ruleStream struct {
	next     rrule.Next
	res      *resolver // nil for all-day series: keys are wall clocks
	until    int64
	hasUntil bool
	held     []item // moved gap instances, ascending
	look     item   // next ordinary instance, when hasLook
	hasLook  bool
	done     bool
}

func (rs *ruleStream) pull() (item, bool) {
	for {
		if rs.hasLook {
			if len(rs.held) > 0 && rs.held[0].key <= rs.look.key {
				return rs.popHeld(), true
			}
			rs.hasLook = false
			return rs.look, true
		}
		if rs.done {
			if len(rs.held) > 0 {
				return rs.popHeld(), true
			}
			return item{}, false
		}
		t, ok := rs.next()
		if !ok {
			rs.done = true
			continue
		}
		wall := t.Unix()
		it := item{key: wall, wall: wall}
		gap := false
		if rs.res != nil {
			it.key, gap = rs.res.instant(wall)
		}
		if rs.hasUntil && it.key > rs.until {
			continue
		}
		if gap {
			i, _ := slices.BinarySearchFunc(rs.held, it.key, func(h item, k int64) int { return cmpInt(h.key, k) })
			rs.held = slices.Insert(rs.held, i, it)
			continue
		}
		rs.look, rs.hasLook = it, true
	}
}

func (rs *ruleStream) popHeld() item {
	it := rs.held[0]
	rs.held = rs.held[1:]
	return it
}

// gen merges DTSTART, the rules and the RDATEs of a set in key order,
// drops duplicates (RFC 5545 §3.8.5.3: "only one recurrence is
// considered") and removes EXDATE and EXRULE instances, which win over
// inclusions.
type gen struct {
	s            *Set
	rules        []*ruleStream
	heads        []item
	live         []bool
	ex           []*ruleStream
	exHeads      []item
	exLive       []bool
	rdates       []item
	startPending bool
	last         int64
	emitted      bool
}

// newGen starts a generator at the first instance keyed at or after
// fromKey (it may yield a few earlier ones).
func (s *Set) newGen(fromKey int64) *gen {
	g := &gen{s: s, startPending: s.start.key >= fromKey}
	i, _ := slices.BinarySearchFunc(s.rdates, fromKey, func(it item, k int64) int { return cmpInt(it.key, k) })
	g.rdates = s.rdates[i:]
	g.rules, g.heads, g.live = s.streams(s.rules, fromKey)
	g.ex, g.exHeads, g.exLive = s.streams(s.exrules, fromKey)
	return g
}

func (s *Set) streams(rules []*rule, fromKey int64) ([]*ruleStream, []item, []bool) {
	rs := make([]*ruleStream, len(rules))
	heads := make([]item, len(rules))
	live := make([]bool, len(rules))
	for i, r := range rules {
		rs[i] = s.stream(r, fromKey)
		heads[i], live[i] = rs[i].pull()
	}
	return rs, heads, live
}

func (g *gen) next() (item, bool) {
	for {
		minKey, found := int64(math.MaxInt64), false
		if g.startPending {
			minKey, found = g.s.start.key, true
		}
		for i, h := range g.heads {
			if g.live[i] && (!found || h.key < minKey) {
				minKey, found = h.key, true
			}
		}
		if len(g.rdates) > 0 && (!found || g.rdates[0].key < minKey) {
			minKey, found = g.rdates[0].key, true
		}
		if !found {
			return item{}, false
		}
		var it item
		have := false
		take := func(c item) {
			if !have || c.hasEnd && !it.hasEnd {
				it, have = c, true
			}
		}
		if g.startPending && g.s.start.key == minKey {
			take(g.s.start)
			g.startPending = false
		}
		for i := range g.heads {
			for g.live[i] && g.heads[i].key == minKey {
				take(g.heads[i])
				g.heads[i], g.live[i] = g.rules[i].pull()
			}
		}
		for len(g.rdates) > 0 && g.rdates[0].key == minKey {
			take(g.rdates[0])
			g.rdates = g.rdates[1:]
		}
		if g.emitted && minKey == g.last {
			continue
		}
		g.last, g.emitted = minKey, true
		if !g.excluded(it) {
			return it, true
		}
	}
}

// excluded reports whether an EXDATE or EXRULE removes it.
func (g *gen) excluded(it item) bool {
	s := g.s
	if s.exKeys != nil {
		if _, ok := s.exKeys[it.key]; ok {
			return true
		}
	}
	if s.exDays != nil {
		if _, ok := s.exDays[floorDiv(it.wall, 86400)]; ok {
			return true
		}
	}
	for i := range g.ex {
		for g.exLive[i] && g.exHeads[i].key < it.key {
			g.exHeads[i], g.exLive[i] = g.ex[i].pull()
		}
		if g.exLive[i] && g.exHeads[i].key == it.key {
			return true
		}
	}
	return false
}
