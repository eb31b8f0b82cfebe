package bookingpage_test

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/bookingpage"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/testkit/apitest"
)

// site is a booking page over a test stack with one application, a
// VIRTUAL host and a published booking type.
type site struct {
	st   *apitest.Stack
	app  *unical.App
	svc  *booking.Service
	host string
	bt   *booking.BookingType
	url  string
}

func newSite(t *testing.T, opts bookingpage.Config) *site {
	t.Helper()
	return newSiteAt(t, opts, nil)
}

// newSiteAt is newSite on a server whose clock is now (nil: the real one).
func newSiteAt(t *testing.T, opts bookingpage.Config, now func() time.Time) *site {
	t.Helper()
	st := apitest.Start(t, nil, func(cfg *apitest.Config) { cfg.ChangePollInterval = -1; cfg.Now = now })
	created, err := st.Admin.CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("page")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := st.Client.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "host@example.com", ProviderType: unical.ProviderVirtual})
	if err != nil {
		t.Fatal(err)
	}
	svc := booking.New(st.Client, app)
	bt, err := svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Intro call"), DurationMinutes: unical.Some(30),
		IntervalMinutes: unical.Some(30), TimeZone: unical.Some("Europe/Berlin"), MinimumNoticeMinutes: unical.Some(60),
		Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: acc.ID}}}),
		Public:       unical.Some(true), Slug: unical.Some("intro"), FrameAncestors: unical.Some([]string{"https://www.example.com"})})
	if err != nil {
		t.Fatal(err)
	}
	opts.Client = st.Client
	opts.LinkKey = []byte(strings.Repeat("L", 32))
	h, err := bookingpage.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &site{st: st, app: app, svc: svc, host: acc.ID, bt: bt, url: srv.URL}
}

// page is one answer of the booking page.
type page struct {
	status int
	header http.Header
	body   string
	// location is a redirect's target.
	location string
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (s *site) get(t *testing.T, path string) *page {
	t.Helper()
	return s.do(t, "GET", path, nil)
}

func (s *site) post(t *testing.T, path string, form url.Values) *page {
	t.Helper()
	return s.do(t, "POST", path, form)
}

func (s *site) do(t *testing.T, method, path string, form url.Values) *page {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, s.url+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return &page{status: resp.StatusCode, header: resp.Header, body: string(b), location: resp.Header.Get("Location")}
}

var (
	slotButton = regexp.MustCompile(`name="start" value="([^"]+)"`)
	holdField  = regexp.MustCompile(`name="hold" value="([^"]+)"`)
	untilField = regexp.MustCompile(`name="until" value="([^"]+)"`)
	linkHref   = func(id string) *regexp.Regexp { return regexp.MustCompile(`id="` + id + `" href="([^"]+)"`) }
)

func find(t *testing.T, re *regexp.Regexp, p *page) string {
	t.Helper()
	m := re.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no %s in the page (%d):\n%s", re, p.status, p.body)
	}
	return html.UnescapeString(m[1])
}

// hold places a hold on the first free slot and returns the details form.
func (s *site) hold(t *testing.T, tz string) (start string, details *page) {
	t.Helper()
	pick := s.get(t, "/book/intro?"+dayAfterTomorrow(tz))
	if pick.status != http.StatusOK {
		t.Fatalf("GET /book/intro = %d:\n%s", pick.status, pick.body)
	}
	start = find(t, slotButton, pick)
	details = s.post(t, "/book/intro/hold", url.Values{"start": {start}, "tz": {tz}})
	return start, details
}

func bookForm(t *testing.T, details *page, start, tz string) url.Values {
	return url.Values{"hold": {find(t, holdField, details)}, "start": {start}, "until": {find(t, untilField, details)},
		"tz": {tz}, "name": {"Grace Guest"}, "email": {"grace@example.org"}}
}

// TestPage_BookConfirmCancel books through the page as a guest in Tokyo:
// the slots are shown in Tokyo's time, the hold and the booking happen,
// a form sent twice makes one booking, the confirmation page links an
// .ics and a cancel link that cancels it (and refuses to reschedule).
func TestPage_BookConfirmCancel(t *testing.T) {
	t.Parallel()
	s := newSite(t, bookingpage.Config{})
	const tz = "Asia/Tokyo"
	start, details := s.hold(t, tz)
	if !strings.HasSuffix(start, "+09:00") {
		t.Errorf("slot start %s is not in Tokyo's time", start)
	}
	if details.status != http.StatusOK || !strings.Contains(details.body, "held for you until") {
		t.Fatalf("POST hold = %d:\n%s", details.status, details.body)
	}
	form := bookForm(t, details, start, tz)
	first := s.post(t, "/book/intro/book", form)
	if first.status != http.StatusSeeOther || !strings.HasPrefix(first.location, "/book/-/booking/") {
		t.Fatalf("POST book = %d to %q:\n%s", first.status, first.location, first.body)
	}
	again := s.post(t, "/book/intro/book", form)
	if again.status != http.StatusSeeOther || again.location != first.location {
		t.Errorf("the form sent again = %d to %q, want the same confirmation %q", again.status, again.location, first.location)
	}
	list, err := s.svc.ListBookings(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Data) != 1 || list.Data[0].Guest.Email != "grace@example.org" || list.Data[0].Guest.TimeZone != tz || list.Data[0].Status != booking.StatusConfirmed {
		t.Fatalf("bookings after the page = %+v, want one confirmed for grace@example.org in %s", list.Data, tz)
	}
	b := list.Data[0]

	conf := s.get(t, first.location)
	if conf.status != http.StatusOK || !strings.Contains(conf.body, "You are booked.") || !strings.Contains(conf.body, "(Asia/Tokyo)") {
		t.Fatalf("confirmation = %d:\n%s", conf.status, conf.body)
	}
	if got, want := conf.header.Get("Content-Security-Policy"), "frame-ancestors https://www.example.com"; !strings.HasSuffix(got, want) {
		t.Errorf("confirmation CSP = %q, want it to end with %q", got, want)
	}
	if got := conf.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("confirmation Cache-Control = %q, want no-store", got)
	}
	ics := s.get(t, find(t, linkHref("ics"), conf))
	if ics.status != http.StatusOK || !strings.Contains(ics.body, "UID:"+b.ID+"@unical") || !strings.Contains(ics.header.Get("Content-Type"), "text/calendar") {
		t.Errorf(".ics = %d %s:\n%s", ics.status, ics.header.Get("Content-Type"), ics.body)
	}
	cancelLink := find(t, linkHref("cancel"), conf)
	rescheduleLink := find(t, linkHref("reschedule"), conf)

	// A cancel link cannot reschedule, nor a reschedule link cancel.
	cancelToken := strings.TrimPrefix(strings.SplitN(cancelLink, "?", 2)[0], "/book/-/cancel/")
	rescheduleToken := strings.TrimPrefix(strings.SplitN(rescheduleLink, "?", 2)[0], "/book/-/reschedule/")
	if p := s.post(t, "/book/-/reschedule/"+cancelToken, url.Values{"start": {start}}); p.status != http.StatusNotFound {
		t.Errorf("a cancel link used to reschedule = %d, want 404", p.status)
	}
	if p := s.post(t, "/book/-/cancel/"+rescheduleToken, nil); p.status != http.StatusNotFound {
		t.Errorf("a reschedule link used to cancel = %d, want 404", p.status)
	}
	if p := s.get(t, "/book/-/booking/"+cancelToken); p.status != http.StatusNotFound {
		t.Errorf("a cancel link used as the confirmation = %d, want 404", p.status)
	}

	// Opening the cancel link asks; only the form cancels.
	ask := s.get(t, cancelLink)
	if ask.status != http.StatusOK || !strings.Contains(ask.body, "Cancel this booking") {
		t.Fatalf("GET cancel link = %d:\n%s", ask.status, ask.body)
	}
	if got, _ := s.svc.GetBooking(t.Context(), b.ID); got.Status != booking.StatusConfirmed {
		t.Fatalf("opening the cancel link cancelled the booking")
	}
	done := s.post(t, cancelLink, url.Values{})
	if done.status != http.StatusOK || !strings.Contains(done.body, "Your booking is cancelled.") {
		t.Fatalf("POST cancel link = %d:\n%s", done.status, done.body)
	}
	got, err := s.svc.GetBooking(t.Context(), b.ID)
	if err != nil || got.Status != booking.StatusCancelled {
		t.Fatalf("booking after the cancel link = %+v %v, want cancelled", got, err)
	}
	events, err := s.app.ListEvents(t.Context(), s.host, "primary", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Data) != 0 {
		t.Errorf("the host's calendar holds %d events after the cancel, want none", len(events.Data))
	}
	if p := s.get(t, rescheduleLink); p.status != http.StatusConflict || !strings.Contains(p.body, "This booking is cancelled.") {
		t.Errorf("reschedule link of a cancelled booking = %d:\n%s", p.status, p.body)
	}
}

// TestPage_Reschedule moves a booking through its reschedule link.
func TestPage_Reschedule(t *testing.T) {
	t.Parallel()
	s := newSite(t, bookingpage.Config{})
	const tz = "America/New_York"
	start, details := s.hold(t, tz)
	conf := s.post(t, "/book/intro/book", bookForm(t, details, start, tz))
	page := s.get(t, find(t, linkHref("reschedule"), s.get(t, conf.location))+"&"+dayAfterTomorrow(tz))
	if page.status != http.StatusOK || !strings.Contains(page.body, "Your booking is on") {
		t.Fatalf("reschedule page = %d:\n%s", page.status, page.body)
	}
	starts := allSlots(page)
	if len(starts) < 2 {
		t.Fatalf("reschedule page offers %d slots", len(starts))
	}
	to := starts[1]
	moved := s.post(t, strings.Split(find(t, linkHref("reschedule"), s.get(t, conf.location)), "?")[0], url.Values{"start": {to}, "tz": {tz}})
	if moved.status != http.StatusSeeOther {
		t.Fatalf("POST reschedule = %d:\n%s", moved.status, moved.body)
	}
	list, err := s.svc.ListBookings(t.Context(), nil)
	if err != nil || len(list.Data) != 1 {
		t.Fatalf("bookings = %v %v", list, err)
	}
	if got := list.Data[0].Start.DateTime; !sameInstant(t, got, to) {
		t.Errorf("booking starts at %s after the reschedule, want %s", got, to)
	}
}

func sameInstant(t *testing.T, a, b string) bool {
	t.Helper()
	ta, err1 := timeParse(a)
	tb, err2 := timeParse(b)
	if err1 != nil || err2 != nil {
		t.Fatalf("times %q %q: %v %v", a, b, err1, err2)
	}
	return ta.Equal(tb)
}

// TestPage_NoEnumeration checks that every slug that is not a published
// type's answers the same 404, byte for byte, on every route.
func TestPage_NoEnumeration(t *testing.T) {
	t.Parallel()
	s := newSite(t, bookingpage.Config{})
	hidden, err := s.svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Hidden"), DurationMinutes: unical.Some(30),
		Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: s.host}}}), Slug: unical.Some("hidden")})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := s.svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Gone"), DurationMinutes: unical.Some(30),
		Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: s.host}}}), Slug: unical.Some("gone"), Public: unical.Some(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.DeleteBookingType(t.Context(), gone.ID); err != nil {
		t.Fatal(err)
	}
	want := s.get(t, "/book/no-such-page")
	if want.status != http.StatusNotFound {
		t.Fatalf("unknown slug = %d, want 404", want.status)
	}
	for _, path := range []string{"/book/hidden", "/book/gone", "/book/" + hidden.ID, "/book/NOT_A_SLUG", "/book/hidden?tz=UTC&month=2030-01"} {
		if p := s.get(t, path); p.status != want.status || p.body != want.body {
			t.Errorf("GET %s = %d, not the unknown slug's answer:\n%s", path, p.status, p.body)
		}
	}
	for _, path := range []string{"/book/hidden/hold", "/book/no-such-page/hold", "/book/hidden/book"} {
		if p := s.post(t, path, url.Values{"start": {"2030-01-01T10:00:00Z"}}); p.status != want.status || p.body != want.body {
			t.Errorf("POST %s = %d, not the unknown slug's answer:\n%s", path, p.status, p.body)
		}
	}
}

// TestPage_AbuseLimits checks the per-address limits: writes beyond the
// burst are 429 with Retry-After, and an address holds at most MaxHolds
// slots at once until it books one.
func TestPage_AbuseLimits(t *testing.T) {
	t.Parallel()
	t.Run("LiveHolds", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, bookingpage.Config{MaxHolds: 2})
		pick := s.get(t, "/book/intro?"+dayAfterTomorrow("UTC"))
		starts := allSlots(pick)
		if len(starts) < 4 {
			t.Fatalf("%d slots on the page, want 4", len(starts))
		}
		var forms []*page
		for i := range 2 {
			p := s.post(t, "/book/intro/hold", url.Values{"start": {starts[i]}, "tz": {"UTC"}})
			if p.status != http.StatusOK {
				t.Fatalf("hold %d = %d:\n%s", i, p.status, p.body)
			}
			forms = append(forms, p)
		}
		third := s.post(t, "/book/intro/hold", url.Values{"start": {starts[2]}, "tz": {"UTC"}})
		if third.status != http.StatusTooManyRequests || !strings.Contains(third.body, "already holding") {
			t.Fatalf("a third live hold = %d, want 429:\n%s", third.status, third.body)
		}
		if p := s.post(t, "/book/intro/book", bookForm(t, forms[0], starts[0], "UTC")); p.status != http.StatusSeeOther {
			t.Fatalf("book = %d:\n%s", p.status, p.body)
		}
		if p := s.post(t, "/book/intro/hold", url.Values{"start": {starts[2]}, "tz": {"UTC"}}); p.status != http.StatusOK {
			t.Errorf("a hold after booking one = %d, want 200:\n%s", p.status, p.body)
		}
	})
	t.Run("WriteRate", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, bookingpage.Config{WriteLimit: httpapi.NewAddressLimiter(httpapi.LimiterConfig{Rate: httpapi.RateLimit{PerSecond: 1.0 / 3600, Burst: 2}, TrustForwardedFor: false})})
		for i := range 3 {
			p := s.post(t, "/book/intro/hold", url.Values{"start": {"not-a-time"}, "tz": {"UTC"}})
			if i < 2 && p.status == http.StatusTooManyRequests {
				t.Fatalf("write %d refused within the burst", i)
			}
			if i == 2 && (p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") == "") {
				t.Fatalf("write beyond the burst = %d (Retry-After %q), want 429 with Retry-After", p.status, p.header.Get("Retry-After"))
			}
		}
		if p := s.get(t, "/book/intro?tz=UTC"); p.status != http.StatusOK {
			t.Errorf("a page view after the writes ran out = %d, want 200", p.status)
		}
	})
	t.Run("PageRate", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, bookingpage.Config{PageLimit: httpapi.NewAddressLimiter(httpapi.LimiterConfig{Rate: httpapi.RateLimit{PerSecond: 1.0 / 3600, Burst: 1}, TrustForwardedFor: false})})
		if p := s.get(t, "/book/no-such-page"); p.status != http.StatusNotFound {
			t.Fatalf("first view = %d", p.status)
		}
		if p := s.get(t, "/book/intro"); p.status != http.StatusTooManyRequests {
			t.Errorf("second view = %d, want 429", p.status)
		}
	})
}

// TestPage_Headers checks the headers of the pages: no caching, and
// frame-ancestors from the type's list, 'none' without one.
func TestPage_Headers(t *testing.T) {
	t.Parallel()
	s := newSite(t, bookingpage.Config{})
	p := s.get(t, "/book/intro?tz=UTC")
	if got := p.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	csp := p.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors https://www.example.com") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	if _, err := s.svc.UpdateBookingType(t.Context(), s.bt.ID, &booking.BookingTypeParams{FrameAncestors: unical.Null[[]string]()}); err != nil {
		t.Fatal(err)
	}
	if got := s.get(t, "/book/intro?tz=UTC").header.Get("Content-Security-Policy"); !strings.HasSuffix(got, "frame-ancestors 'none'") {
		t.Errorf("CSP without frameAncestors = %q, want frame-ancestors 'none'", got)
	}
	if got := s.get(t, "/book/no-such-page").header.Get("Content-Security-Policy"); !strings.HasSuffix(got, "frame-ancestors 'none'") {
		t.Errorf("CSP of the 404 = %q, want frame-ancestors 'none'", got)
	}
	// Without a tz the page is in the type's zone and carries the script
	// that sends the browser's.
	p = s.get(t, "/book/intro")
	if !strings.Contains(p.body, `<option selected>Europe/Berlin</option>`) || !strings.Contains(p.body, `src="/book/-/static/tz.js"`) {
		t.Errorf("page without tz does not default to the type's zone with the script:\n%s", p.body)
	}
}

func timeParse(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }

// allSlots are the slot starts a pick page offers.
func allSlots(p *page) []string {
	var out []string
	for _, m := range slotButton.FindAllStringSubmatch(p.body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// dayAfterTomorrow is the query of the pick page's day after tomorrow in
// tz, a day whose slots are all free whatever the time of the test.
func dayAfterTomorrow(tz string) string {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		panic(err)
	}
	return url.Values{"tz": {tz}, "date": {time.Now().In(loc).AddDate(0, 0, 2).Format(time.DateOnly)}}.Encode()
}

// TestPage_LateInTheMonth opens a first visit on the next month when the
// current one has no free slot left: at 23:30 on 31 January (UTC) with
// an hour of notice, February's first day is chosen.
func TestPage_LateInTheMonth(t *testing.T) {
	t.Parallel()
	late := time.Date(2031, 1, 31, 23, 30, 0, 0, time.UTC)
	s := newSiteAt(t, bookingpage.Config{}, func() time.Time { return late })
	p := s.get(t, "/book/intro?tz=UTC")
	if p.status != http.StatusOK || !strings.Contains(p.body, `<h2 id="month">February 2031</h2>`) || !strings.Contains(p.body, `<h2 id="day">Saturday 1 February 2031</h2>`) {
		t.Fatalf("first visit late on 31 January = %d, want February 1st:\n%s", p.status, p.body)
	}
	if got := allSlots(p)[0]; got != "2031-02-01T00:30:00Z" {
		t.Errorf("first slot = %s, want 00:30 (an hour's notice)", got)
	}
	// Asked for January, the page shows January, empty, with a way on.
	p = s.get(t, "/book/intro?tz=UTC&month=2031-01")
	if p.status != http.StatusOK || !strings.Contains(p.body, "No free times in January 2031") || !strings.Contains(p.body, "the next month") {
		t.Errorf("January asked for = %d:\n%s", p.status, p.body)
	}
}
