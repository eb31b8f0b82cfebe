package caldav

import (
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/unical/unical"
)

// cacheBytes bounds the memory a Provider's calendar cache holds (see
// calendarCache).
const cacheBytes = 64 << 20

// calendarCache keeps, per account and calendar, what the provider read
// of a calendar so that a page of events costs the page: the members'
// ETags as of a sync token (a listing), and the calendar data of the
// members it fetched, each with its ETag. It is a cache of what the
// server said, never a source of truth: every listing first asks the
// server what changed since the listing's token (one small
// sync-collection REPORT), and a member is taken from the cache only
// when its ETag there is the one the server reports now. A change, a
// deletion or a sync report drops the member's data.
//
// Entries are per account (application, account, login) and calendar
// URL, so two accounts never share what one of them may read. Calendar
// data is kept as the server sent it and parsed again on each use, so
// that nothing a caller changes reaches the cache and its size is
// exact: the bound counts each member's name, ETag and data plus a fixed
// overhead, and past it the calendars used least recently are dropped
// whole. A calendar that alone exceeds the bound keeps its listing but
// no data.
type calendarCache struct {
	maxBytes int

	mu    sync.Mutex
	cals  map[string]*cachedCalendar
	bytes int
	clock uint64 // counts uses, for least-recently-used eviction
}

// cachedCalendar is one account's view of one calendar.
type cachedCalendar struct {
	used    uint64
	listing *listing                // nil until listed by sync-collection
	objects map[string]cachedObject // by member name
	bytes   int
}

// cachedObject is a member's calendar data with the ETag it had.
type cachedObject struct {
	etag string
	data string
}

// listing is every member of a calendar with its ETag, as of a sync
// token (empty for a listing from a PROPFIND, which has none). It is
// never changed once made: a newer one replaces it.
type listing struct {
	token string
	etags map[string]string // by member name; normalized ETags
	names []string          // the member names, sorted
}

// entryOverhead approximates what the maps and strings of one member
// cost beyond their bytes.
const entryOverhead = 96

func newListing(token string, etags map[string]string) *listing {
	names := make([]string, 0, len(etags))
	for n := range etags {
		names = append(names, n)
	}
	sort.Strings(names)
	return &listing{token: token, etags: etags, names: names}
}

func (l *listing) size() int {
	n := 0
	for name, etag := range l.etags {
		n += 2*len(name) + len(etag) + entryOverhead
	}
	return n
}

// after returns the names that sort after name.
func (l *listing) after(name string) []string {
	return l.names[sort.SearchStrings(l.names, name+"\x00"):]
}

// cacheKey names an account's view of a calendar. Account ids are unique,
// but sessions made by hand (tests, embedding programs) may leave them
// empty, so the login is part of the key too.
func cacheKey(s *unical.Session, calURL *url.URL) string {
	return strings.Join([]string{s.ApplicationID, s.AccountID, s.Email, calURL.String()}, "\x00")
}

// calendar returns the entry for key, made if need be, marked as used.
// Callers hold c.mu.
func (c *calendarCache) calendar(key string) *cachedCalendar {
	c.clock++
	cal := c.cals[key]
	if cal == nil {
		if c.cals == nil {
			c.cals = map[string]*cachedCalendar{}
		}
		cal = &cachedCalendar{objects: map[string]cachedObject{}}
		c.cals[key] = cal
		c.add(cal, len(key)+entryOverhead)
		c.shrink(cal)
	}
	cal.used = c.clock
	return cal
}

// cacheView is the cache of one account's view of one calendar. The zero
// value caches nothing.
type cacheView struct {
	c   *calendarCache
	key string
}

// view returns the cache of the account of s for the calendar at calURL.
func (c *calendarCache) view(s *unical.Session, calURL *url.URL) cacheView {
	return cacheView{c: c, key: cacheKey(s, calURL)}
}

// listing returns the calendar's listing, or nil.
func (v cacheView) listing() *listing {
	if v.c == nil {
		return nil
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	return v.c.calendar(v.key).listing
}

// setListing makes l the calendar's listing if the one it was made from
// (by applying a sync report to it; nil for a first listing) is still the
// current one, and drops the data of every member whose ETag differs in
// l or that l no longer holds. A listing made meanwhile by another call
// wins; l is then only the caller's.
func (v cacheView) setListing(from, l *listing) {
	if v.c == nil {
		return
	}
	c := v.c
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.calendar(v.key)
	if cal.listing != from {
		return
	}
	if cal.listing != nil {
		c.add(cal, -cal.listing.size())
	}
	for name, o := range cal.objects {
		if l.etags[name] != o.etag {
			c.dropObject(cal, name)
		}
	}
	cal.listing = l
	c.add(cal, l.size())
	c.shrink(cal)
}

// forget drops the calendar's listing, after the server refused its
// token.
func (v cacheView) forget() {
	if v.c == nil {
		return
	}
	c := v.c
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.calendar(v.key)
	if cal.listing != nil {
		c.add(cal, -cal.listing.size())
		cal.listing = nil
	}
}

// object returns the data of member name if the cache holds it at etag.
func (v cacheView) object(name, etag string) (string, bool) {
	if v.c == nil {
		return "", false
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	o, ok := v.c.calendar(v.key).objects[name]
	if !ok || etag == "" || o.etag != etag {
		return "", false
	}
	return o.data, true
}

// putObject keeps a member's data at etag, replacing what was kept.
func (v cacheView) putObject(name, etag, data string) {
	if v.c == nil || etag == "" {
		return // with no ETag, nothing to check it against later
	}
	c := v.c
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.calendar(v.key)
	c.dropObject(cal, name)
	size := len(name) + len(etag) + len(data) + entryOverhead
	if cal.bytes+size > c.maxBytes {
		return // this calendar alone would exceed the bound
	}
	cal.objects[name] = cachedObject{etag: etag, data: data}
	c.add(cal, size)
	c.shrink(cal)
}

// dropObjects drops the data of the named members (a sync report named
// them changed or gone).
func (v cacheView) dropObjects(names []string) {
	if v.c == nil || len(names) == 0 {
		return
	}
	c := v.c
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.calendar(v.key)
	for _, name := range names {
		c.dropObject(cal, name)
	}
}

// dropObject drops a member's data. Callers hold c.mu.
func (c *calendarCache) dropObject(cal *cachedCalendar, name string) {
	if o, ok := cal.objects[name]; ok {
		delete(cal.objects, name)
		c.add(cal, -(len(name) + len(o.etag) + len(o.data) + entryOverhead))
	}
}

// add counts n more bytes for cal. Callers hold c.mu.
func (c *calendarCache) add(cal *cachedCalendar, n int) {
	cal.bytes += n
	c.bytes += n
}

// shrink drops the calendars used least recently, keep excepted, until
// the cache is within its bound. Callers hold c.mu.
func (c *calendarCache) shrink(keep *cachedCalendar) {
	for c.bytes > c.maxBytes {
		var oldest string
		var min uint64
		for key, cal := range c.cals {
			if cal != keep && (oldest == "" || cal.used < min) {
				oldest, min = key, cal.used
			}
		}
		if oldest == "" {
			return
		}
		c.bytes -= c.cals[oldest].bytes
		delete(c.cals, oldest)
	}
}
