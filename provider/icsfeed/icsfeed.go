// Package icsfeed is a read-only provider of published iCalendar feeds
// (RFC 5545 over HTTP: public holiday calendars, sports schedules, a
// colleague's published calendar), built on provider/kit alone. An
// account subscribes to one feed:
//
//	POST /v1/endUserAccounts
//	{"email": "ada@example.com", "providerType": "ICS_FEED",
//	 "serverUrl": "webcal://example.com/holidays.ics"}
//
// webcal:// and webcals:// are read as https:// (the webcal scheme is
// the feed's https or http address under another name). The address is
// the account's credential: a published calendar's secret address holds
// its key in the path, so it is sealed with the account's secrets, and
// the account shows only its scheme and host as serverUrl.
//
// The account has one calendar, "feed" (also "primary"), named by the
// feed's X-WR-CALNAME and in the zone of its X-WR-TIMEZONE, always
// readOnly. Its events are the feed's VEVENTs read by the mapping of
// kit/icalkit; an event's id is its UID, encoded so that any UID is one
// path segment. Series come back unexpanded with their overrides, and the
// Client expands them, answers free/busy and availability from them.
//
// The feed is fetched when a call needs it and is older than
// [Config.Revalidate], with the ETag and Last-Modified of the last answer
// (If-None-Match, If-Modified-Since; RFC 9110 §13.1): a 304, or a 200 with
// the same bytes, reuses what was read and parses nothing. Sync cursors
// are a compressed snapshot of every event's version, so the webhook
// engine's polling (the provider has no push) sends the events added,
// changed and removed since; a version ignores DTSTAMP, which many
// publishers rewrite on every request.
//
// Writes are refused: the capability table declares every writable field
// Refused (so the Client answers 400 naming the first field a write
// sets), and the writes without fields (deletes, RSVP) are
// CodeNotImplemented.
//
// Unless [Config.AllowPrivateTargets], feeds are fetched over https only
// and never from a loopback, private, link-local or reserved address,
// checked on every address dialled (kit/httpkit.GuardedTransport), as for
// CalDAV servers.
package icsfeed

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-ical"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit"
	"github.com/unical/unical/provider/kit/captable"
	"github.com/unical/unical/provider/kit/httpkit"
	"github.com/unical/unical/provider/kit/icalkit"
)

// ProviderType is the type the provider declares.
const ProviderType unical.ProviderType = "ICS_FEED"

// CalendarID is the id of an account's one calendar.
const CalendarID = "feed"

// readOnly is the note of every refusal.
const readOnly = "ICS feeds are read-only subscriptions: change the event where the feed is published."

// Config configures the provider. The zero value is usable.
type Config struct {
	// HTTPClient fetches the feeds; nil means a client with a 30 second
	// timeout over the guarded transport (see AllowPrivateTargets). A
	// client given here is used as it is.
	HTTPClient *http.Client
	// AllowPrivateTargets lets feeds live on loopback and private
	// addresses, and on plain http (development and tests).
	AllowPrivateTargets bool
	// Revalidate is how long a fetched feed is used before the server is
	// asked again; zero means one minute, a negative value every call.
	Revalidate time.Duration
	// MaxFeedBytes caps a feed's size; zero means 16 MiB.
	MaxFeedBytes int64
	// MaxRetries is how often a 429, 503 or lost connection is retried;
	// zero means 2, a negative value none.
	MaxRetries int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Provider reads ICS feeds. It is safe for concurrent use; it keeps the
// last answer of each feed (at most maxFeeds of them) to ask again
// conditionally.
type Provider struct {
	client       *http.Client
	allowPrivate bool
	revalidate   time.Duration
	maxBytes     int64
	maxRetries   int
	now          func() time.Time

	mu    sync.Mutex
	feeds map[string]*feed // by address
	stats Stats
}

// Stats counts what the provider did with the feeds it fetched.
type Stats struct {
	// Fetches are the requests sent.
	Fetches int
	// NotModified are the answers that changed nothing: 304, or a 200
	// with the bytes already read.
	NotModified int
	// Parses are the feeds read as iCalendar.
	Parses int
}

// maxFeeds bounds the feeds kept; the least recently used goes first.
const maxFeeds = 1000

var (
	_ unical.Provider           = (*Provider)(nil)
	_ unical.URLConnector       = (*Provider)(nil)
	_ unical.CapabilityReporter = (*Provider)(nil)
	_ kit.Describer             = (*Provider)(nil)
)

// New returns a Provider.
func New(cfg Config) (*Provider, error) {
	p := &Provider{client: cfg.HTTPClient, allowPrivate: cfg.AllowPrivateTargets, revalidate: cfg.Revalidate,
		maxBytes: cfg.MaxFeedBytes, maxRetries: cfg.MaxRetries, now: cfg.Now, feeds: map[string]*feed{}}
	if p.client == nil {
		p.client = &http.Client{Timeout: 30 * time.Second, Transport: httpkit.GuardedTransport(cfg.AllowPrivateTargets)}
	}
	if p.revalidate == 0 {
		p.revalidate = time.Minute
	}
	if p.maxBytes <= 0 {
		p.maxBytes = 16 << 20
	}
	switch {
	case p.maxRetries == 0:
		p.maxRetries = 2
	case p.maxRetries < 0:
		p.maxRetries = 0
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// Type implements [unical.Provider].
func (p *Provider) Type() unical.ProviderType { return ProviderType }

// Info implements [kit.Describer]: the provider takes no settings.
func (p *Provider) Info() kit.ProviderInfo { return kit.ProviderInfo{DisplayName: "ICS feed"} }

// ConnectsWithURL implements [unical.URLConnector].
func (p *Provider) ConnectsWithURL() bool { return true }

// Capabilities implements [unical.CapabilityReporter]: every field is
// refused.
func (p *Provider) Capabilities() unical.Capabilities {
	return captable.ReadOnly(ProviderType, readOnly)
}

// Stats returns what the provider has done so far.
func (p *Provider) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// feedURL reads an account's address: webcal(s) as https, and only https
// (or, with AllowPrivateTargets, http) with a host and no fragment.
func (p *Provider) feedURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err == nil {
		switch strings.ToLower(u.Scheme) {
		case "webcal", "webcals":
			u.Scheme = "https"
		case "http":
			if !p.allowPrivate {
				err = errors.New("http")
			}
		}
	}
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Message: "serverUrl must be the feed's webcal:// or https:// address."}
	}
	u.Fragment = ""
	if problem := httpkit.URLProblem("serverUrl", u.String(), p.allowPrivate); problem != "" {
		return "", &unical.Error{Code: unical.CodeInvalid, Field: "serverUrl", Message: problem}
	}
	return u.String(), nil
}

// shown is the address an account shows: its scheme and host, since the
// rest may hold the feed's key.
func shown(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// Connect implements [unical.Provider]: params.ServerURL is fetched once
// and must be a feed. A feed the server refuses or does not have is
// CodeUnauthorized (a 400 naming serverUrl to the caller).
func (p *Provider) Connect(ctx context.Context, _ unical.ProviderSettings, params unical.ConnectParams) (*unical.Connection, error) {
	address, err := p.feedURL(params.ServerURL)
	if err != nil {
		return nil, err
	}
	if _, err := p.read(ctx, address, unical.CodeUnauthorized); err != nil {
		return nil, err
	}
	return &unical.Connection{ServerURL: shown(address)}, nil
}

// session reads the account's feed.
func (p *Provider) session(ctx context.Context, s *unical.Session) (*snapshot, error) {
	address, err := p.feedURL(s.Password)
	if err != nil {
		return nil, unical.WrapError(unical.CodeAccountExpired, err, "The account's feed address is no longer accepted; connect it again.")
	}
	return p.read(ctx, address, unical.CodeAccountExpired)
}

// ListCalendars implements [unical.Provider].
func (p *Provider) ListCalendars(ctx context.Context, s *unical.Session) ([]*unical.Calendar, error) {
	snap, err := p.session(ctx, s)
	if err != nil {
		return nil, err
	}
	return []*unical.Calendar{snap.calendar()}, nil
}

// GetCalendar implements [unical.Provider].
func (p *Provider) GetCalendar(ctx context.Context, s *unical.Session, calendarID string) (*unical.Calendar, error) {
	if err := checkCalendar(calendarID); err != nil {
		return nil, err
	}
	snap, err := p.session(ctx, s)
	if err != nil {
		return nil, err
	}
	return snap.calendar(), nil
}

func checkCalendar(id string) error {
	if id != CalendarID && id != "primary" {
		return unical.Errorf(unical.CodeNotFound, "Calendar not found: an ICS feed account has one calendar, %q.", CalendarID)
	}
	return nil
}

func refused() error { return unical.Errorf(unical.CodeNotImplemented, "%s", readOnly) }

// CreateCalendar implements [unical.Provider]: refused.
func (p *Provider) CreateCalendar(context.Context, *unical.Session, *unical.CalendarParams) (*unical.Calendar, error) {
	return nil, refused()
}

// UpdateCalendar implements [unical.Provider]: refused.
func (p *Provider) UpdateCalendar(context.Context, *unical.Session, string, *unical.CalendarParams) (*unical.Calendar, error) {
	return nil, refused()
}

// DeleteCalendar implements [unical.Provider]: refused.
func (p *Provider) DeleteCalendar(context.Context, *unical.Session, string) error { return refused() }

// CreateEvent implements [unical.Provider]: refused.
func (p *Provider) CreateEvent(context.Context, *unical.Session, string, *unical.EventParams) (*unical.Event, error) {
	return nil, refused()
}

// UpdateEvent implements [unical.Provider]: refused.
func (p *Provider) UpdateEvent(context.Context, *unical.Session, string, string, *unical.EventParams) (*unical.Event, error) {
	return nil, refused()
}

// DeleteEvent implements [unical.Provider]: refused.
func (p *Provider) DeleteEvent(context.Context, *unical.Session, string, string) error {
	return refused()
}

// RespondToEvent implements [unical.Provider]: refused.
func (p *Provider) RespondToEvent(context.Context, *unical.Session, string, string, unical.ResponseStatus) error {
	return refused()
}

// GetEvent implements [unical.Provider]: an event of the feed, or an
// instance of one of its series.
func (p *Provider) GetEvent(ctx context.Context, s *unical.Session, calendarID, eventID string) (*unical.Event, error) {
	if err := checkCalendar(calendarID); err != nil {
		return nil, err
	}
	snap, err := p.session(ctx, s)
	if err != nil {
		return nil, err
	}
	if e, ok := snap.byID[eventID]; ok {
		return e, nil
	}
	if seriesID, orig, _, err := icalkit.ParseInstanceID(eventID); err == nil {
		if group := snap.series(seriesID); len(group) > 0 {
			instances, err := unical.ExpandEvents(group, orig.Add(-time.Second), orig.Add(time.Second))
			if err != nil {
				return nil, err
			}
			for _, e := range instances {
				if e.ID == eventID {
					return e, nil
				}
			}
		}
	}
	return nil, unical.Errorf(unical.CodeNotFound, "Event not found.")
}

// ListEvents implements [unical.Provider]: one page of the feed's events
// overlapping the window (series whole, with their overrides), or of what
// changed since q.SyncCursor.
func (p *Provider) ListEvents(ctx context.Context, s *unical.Session, calendarID string, q *unical.EventQuery) (*unical.EventBatch, error) {
	if err := checkCalendar(calendarID); err != nil {
		return nil, err
	}
	snap, err := p.session(ctx, s)
	if err != nil {
		return nil, err
	}
	var events []*unical.Event
	if q.SyncCursor != "" {
		if events, err = snap.changedSince(q.SyncCursor); err != nil {
			return nil, err
		}
	} else if events, err = snap.window(q); err != nil {
		return nil, err
	}
	offset := 0
	if q.PageCursor != "" {
		if offset, err = strconv.Atoi(q.PageCursor); err != nil || offset < 0 || offset > len(events) {
			return nil, unical.Errorf(unical.CodeInvalid, "The page cursor is not one of this feed's.")
		}
	}
	size := q.PageSize
	if size <= 0 || size > 1000 {
		size = 1000
	}
	batch := &unical.EventBatch{}
	end := min(offset+size, len(events))
	batch.Events = events[offset:end]
	if end < len(events) {
		batch.NextPageCursor = strconv.Itoa(end)
	} else if q.WantSync || q.SyncCursor != "" {
		batch.NextSyncCursor = snap.cursor
	}
	return batch, nil
}

// feed is what the provider keeps of one address.
type feed struct {
	// fetch orders the fetches of the address: one at a time.
	fetch sync.Mutex
	// The fields below are guarded by Provider.mu.
	snap         *snapshot
	etag         string
	lastModified string
	bodyHash     [32]byte
	checked      time.Time
	used         time.Time
}

// read returns the snapshot of address, fetched again when older than
// Revalidate. rejected is what a refused or missing feed is.
func (p *Provider) read(ctx context.Context, address string, rejected unical.Code) (*snapshot, error) {
	p.mu.Lock()
	f := p.feeds[address]
	if f == nil {
		f = &feed{}
		p.feeds[address] = f
		p.evict()
	}
	f.used = p.now()
	p.mu.Unlock()

	f.fetch.Lock()
	defer f.fetch.Unlock()
	p.mu.Lock()
	snap, etag, lastModified, fresh := f.snap, f.etag, f.lastModified, f.snap != nil && p.now().Sub(f.checked) < p.revalidate
	p.mu.Unlock()
	if fresh {
		return snap, nil
	}
	header := http.Header{"Accept": {"text/calendar, */*;q=0.5"}}
	if snap != nil && etag != "" {
		header.Set("If-None-Match", etag)
	}
	if snap != nil && lastModified != "" {
		header.Set("If-Modified-Since", lastModified)
	}
	caller := httpkit.Caller{
		Client:  p.client,
		Tokens:  noToken{},
		Policy:  httpkit.Policy{MaxRetries: p.maxRetries, Backoff: httpkit.Backoff{Base: 500 * time.Millisecond, Max: 10 * time.Second}, MaxRetryAfter: 10 * time.Second},
		MaxBody: p.maxBytes + 1,
		Classify: func(r *httpkit.Response) httpkit.Outcome {
			p.mu.Lock()
			p.stats.Fetches++
			p.mu.Unlock()
			return classify(r, rejected, p.now())
		},
		SendFailed: func(err error, ctxDone bool) httpkit.Outcome {
			p.mu.Lock()
			p.stats.Fetches++
			p.mu.Unlock()
			return httpkit.Outcome{Err: unical.WrapError(unical.CodeUnavailable, err, "The feed's server cannot be reached."), Retry: !ctxDone}
		},
		TimedOut: "The feed's server did not answer in time.",
	}
	resp, err := caller.Do(ctx, httpkit.Request{Method: http.MethodGet, URL: address, Header: header})
	if err != nil {
		return nil, err
	}
	now := p.now()
	hash := sha256.Sum256(resp.Body)
	p.mu.Lock()
	if resp.StatusCode == http.StatusNotModified || (snap != nil && hash == f.bodyHash) {
		p.stats.NotModified++
		f.checked = now
		p.mu.Unlock()
		if snap == nil {
			return nil, unical.Errorf(unical.CodeUpstream, "The feed's server answered 304 to a request that was not conditional.")
		}
		return snap, nil
	}
	p.stats.Parses++
	p.mu.Unlock()
	if int64(len(resp.Body)) > p.maxBytes {
		return nil, unical.Errorf(unical.CodeUpstream, "The feed is larger than %d bytes.", p.maxBytes)
	}
	snap, err = parse(resp.Body, address)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	f.snap, f.etag, f.lastModified, f.bodyHash, f.checked = snap, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), hash, now
	p.mu.Unlock()
	return snap, nil
}

// evict drops the least recently used feed beyond maxFeeds; p.mu is held.
func (p *Provider) evict() {
	if len(p.feeds) <= maxFeeds {
		return
	}
	var oldest string
	for address, f := range p.feeds {
		if oldest == "" || f.used.Before(p.feeds[oldest].used) {
			oldest = address
		}
	}
	delete(p.feeds, oldest)
}

// noToken is the token source of a feed: no Authorization header.
type noToken struct{}

func (noToken) Token(context.Context, bool) (string, error) { return "", nil }

// classify turns a feed server's answer into the attempt's outcome.
func classify(r *httpkit.Response, rejected unical.Code, now time.Time) httpkit.Outcome {
	switch st := r.StatusCode; {
	case st == http.StatusOK || st == http.StatusNotModified:
		return httpkit.Outcome{}
	case st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable || st == http.StatusBadGateway || st == http.StatusGatewayTimeout:
		wait, _ := httpkit.RetryAfter(r.Header, now)
		code := unical.CodeUnavailable
		if st == http.StatusTooManyRequests {
			code = unical.CodeRateLimited
		}
		return httpkit.Outcome{Err: unical.Errorf(code, "The feed's server answered %d.", st), Retry: true, RetryAfter: wait}
	case st == http.StatusUnauthorized || st == http.StatusForbidden || st == http.StatusNotFound || st == http.StatusGone:
		return httpkit.Outcome{Err: unical.Errorf(rejected, "The feed's server answered %d: the feed is gone or no longer published at this address.", st)}
	default:
		return httpkit.Outcome{Err: unical.Errorf(unical.CodeUpstream, "The feed's server answered %d.", st)}
	}
}

// snapshot is one feed as read: its events sorted by id and the sync
// cursor of their versions.
type snapshot struct {
	name, timeZone string
	events         []*unical.Event
	byID           map[string]*unical.Event
	versions       map[string]string
	cursor         string
}

// parse reads a feed's body.
func parse(body []byte, address string) (*snapshot, error) {
	cal, err := icalkit.Decode(bytes.NewReader(body))
	if err != nil {
		return nil, unical.WrapError(unical.CodeUpstream, err, "The feed is not iCalendar data.")
	}
	snap := &snapshot{name: propText(cal, "X-WR-CALNAME"), timeZone: "UTC", byID: map[string]*unical.Event{}, versions: map[string]string{}}
	if snap.name == "" {
		if u, err := url.Parse(address); err == nil {
			snap.name = u.Host
		}
	}
	if tz := propText(cal, "X-WR-TIMEZONE"); tz != "" {
		if _, err := time.LoadLocation(tz); err == nil {
			snap.timeZone = tz
		}
	}
	for uid, obj := range icalkit.Objects(cal) {
		events, err := icalkit.ObjectEvents(obj, eventID(uid), nil)
		if err != nil {
			continue // one unreadable event does not hide the others
		}
		for _, e := range events {
			e.ETag = version(e)
			snap.events = append(snap.events, e)
			snap.byID[e.ID] = e
			snap.versions[e.ID] = e.ETag
		}
	}
	sort.Slice(snap.events, func(i, j int) bool { return snap.events[i].ID < snap.events[j].ID })
	snap.cursor = encodeCursor(snap.versions)
	return snap, nil
}

func propText(cal *ical.Calendar, name string) string {
	if prop := cal.Props.Get(name); prop != nil {
		return strings.TrimSpace(prop.Value)
	}
	return ""
}

// eventIDs encodes a UID as one path segment without underscores, which
// instance ids use (icalkit.InstanceID).
var eventIDs = base32.HexEncoding.WithPadding(base32.NoPadding)

func eventID(uid string) string { return strings.ToLower(eventIDs.EncodeToString([]byte(uid))) }

// version is an event's ETag: a digest of everything but its ETag and
// updatedAt, which DTSTAMP fills and many publishers rewrite on every
// request.
func version(e *unical.Event) string {
	c := *e
	c.ETag, c.UpdatedAt = "", ""
	data, _ := json.Marshal(&c)
	sum := sha256.Sum256(data)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
}

func (snap *snapshot) calendar() *unical.Calendar {
	return &unical.Calendar{ID: CalendarID, Name: snap.name, ReadOnly: true, IsPrimary: true, TimeZone: snap.timeZone}
}

// series returns a series' master and overrides.
func (snap *snapshot) series(id string) []*unical.Event {
	var out []*unical.Event
	for _, e := range snap.events {
		if e.ID == id || e.RecurringEventID == id {
			out = append(out, e)
		}
	}
	return out
}

// window returns the events q asks for: of one series when SeriesID is
// set; in a window, the single events overlapping it and each series with
// an instance in it, whole.
func (snap *snapshot) window(q *unical.EventQuery) ([]*unical.Event, error) {
	groups := map[string][]*unical.Event{}
	var ids []string
	for _, e := range snap.events {
		id := cmpOr(e.RecurringEventID, e.ID)
		if _, ok := groups[id]; !ok {
			ids = append(ids, id)
		}
		groups[id] = append(groups[id], e)
	}
	var out []*unical.Event
	for _, id := range ids {
		group := groups[id]
		if q.SeriesID != "" && id != q.SeriesID {
			continue
		}
		if !q.TimeMin.IsZero() || !q.TimeMax.IsZero() {
			from, to := q.TimeMin, q.TimeMax
			if from.IsZero() {
				from = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			if to.IsZero() {
				to = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
			}
			instances, err := unical.ExpandEvents(group, from, to)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(instances, func(e *unical.Event) bool { return overlaps(e, from, to) }) {
				continue
			}
		}
		out = append(out, group...)
	}
	return out, nil
}

// overlaps reports whether e (ExpandEvents passes single events through
// whole) overlaps [from, to); an event without readable times does.
func overlaps(e *unical.Event, from, to time.Time) bool {
	start, err1 := instant(e.Start)
	end, err2 := instant(e.End)
	if err1 != nil || err2 != nil {
		return true
	}
	return start.Before(to) && (end.After(from) || end.Equal(start) && !start.Before(from))
}

// instant reads a start or end: a date as midnight UTC.
func instant(d *unical.EventDateTime) (time.Time, error) {
	if d == nil {
		return time.Time{}, errors.New("icsfeed: no time")
	}
	if d.DateTime == "" {
		return d.Day("date")
	}
	return d.Time("dateTime")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// changedSince returns the events whose version differs from cursor's,
// and those gone since as cancelled events.
func (snap *snapshot) changedSince(cursor string) ([]*unical.Event, error) {
	before, err := decodeCursor(cursor)
	if err != nil {
		return nil, unical.WrapError(unical.CodeGone, err, "The sync cursor is not one of this feed's; list the events again.")
	}
	var out []*unical.Event
	for _, e := range snap.events {
		if before[e.ID] != e.ETag {
			out = append(out, e)
		}
	}
	var gone []string
	for id := range before {
		if _, ok := snap.byID[id]; !ok {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		e := &unical.Event{ID: id, IsCancelled: true}
		if seriesID, _, _, err := icalkit.ParseInstanceID(id); err == nil {
			e.RecurringEventID = seriesID
		}
		out = append(out, e)
	}
	return out, nil
}

// cursorPrefix marks the cursor's format.
const cursorPrefix = "v1."

// encodeCursor writes versions as a deflated list of "id version" lines.
func encodeCursor(versions map[string]string) string {
	ids := make([]string, 0, len(versions))
	for id := range versions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	for _, id := range ids {
		io.WriteString(w, id+" "+versions[id]+"\n")
	}
	w.Close()
	return cursorPrefix + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// decodeCursor reads a cursor of encodeCursor.
func decodeCursor(cursor string) (map[string]string, error) {
	raw, ok := strings.CutPrefix(cursor, cursorPrefix)
	if !ok {
		return nil, errors.New("icsfeed: unknown cursor format")
	}
	data, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return nil, err
	}
	text, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), 64<<20))
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	for line := range strings.Lines(string(text)) {
		id, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !ok {
			return nil, errors.New("icsfeed: malformed cursor")
		}
		versions[id] = v
	}
	return versions, nil
}
