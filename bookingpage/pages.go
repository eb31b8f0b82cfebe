package bookingpage

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
)

// pickData is the page where the guest picks a time: a month of days
// with free slots and the slots of the chosen day.
type pickData struct {
	Base   string
	Action string
	TZ     string
	Zones  []string
	Month  monthView
	// Day is the chosen day's label, "" when no day has free slots.
	Day   string
	Slots []slotChoice
	// Current is the time of the booking being rescheduled.
	Current string
	// Script is set on pages loaded by GET, which may send the browser's
	// zone.
	Script bool
}

// slotChoice is one slot button: its start as the form sends it, and
// its time in the guest's zone.
type slotChoice struct {
	Value string
	Label string
}

// detailsData is the form for the guest's name and email, shown while
// the hold keeps the slot.
type detailsData struct {
	Slug   string
	HoldID string
	Start  string
	Until  string
	TZ     string
	When   string
	// UntilLabel is the hold's expiry in the guest's zone.
	UntilLabel string
	Name       string
	Email      string
}

// confirmedData is the confirmation page.
type confirmedData struct {
	Booking    *booking.Booking
	When       string
	Cancelled  bool
	ICS        string
	Cancel     string
	Reschedule string
}

// zoneOf is the guest's zone: tz when it names one, else fallback's.
func zoneOf(tz, fallback string) *time.Location {
	if tz != "" {
		if loc, err := unical.LoadLocation(tz); err == nil {
			return loc
		}
	}
	if loc, err := unical.LoadLocation(fallback); err == nil {
		return loc
	}
	return time.UTC
}

// pickPage handles GET /book/{slug}.
func (h *handler) pickPage(w http.ResponseWriter, r *http.Request) {
	pub, ok := h.lookup(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	h.renderPick(w, r.Context(), http.StatusOK, pub.Service, pub.Type, pickRequest{
		base: r.URL.Path, action: r.URL.Path + "/hold", tz: q.Get("tz"), month: q.Get("month"), date: q.Get("date"), script: true,
	})
}

// lookup finds the published type of the request's slug, or answers the
// one not-found page.
func (h *handler) lookup(w http.ResponseWriter, r *http.Request) (*booking.Published, bool) {
	pub, err := booking.LookupSlug(r.Context(), h.c, r.PathValue("slug"))
	if unical.ErrorCode(err) == unical.CodeNotFound {
		h.notFound(w)
		return nil, false
	}
	if err != nil {
		h.failed(w, nil, err)
		return nil, false
	}
	return pub, true
}

// pickRequest is what a pick page shows.
type pickRequest struct {
	base, action    string
	tz, month, date string
	errMsg, current string
	script          bool
	defaultZone     string
}

func (h *handler) renderPick(w http.ResponseWriter, ctx context.Context, status int, svc *booking.Service, t *booking.BookingType, p pickRequest) {
	loc := zoneOf(p.tz, cmpOrString(p.defaultZone, t.TimeZone))
	now := h.c.Now().In(loc)
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
	horizon := now.AddDate(0, 0, t.HorizonDays)
	last := time.Date(horizon.Year(), horizon.Month(), 1, 0, 0, 0, 0, loc)
	month := first
	if d, err := time.ParseInLocation(time.DateOnly, p.date, loc); err == nil {
		month = time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, loc)
	} else if m, err := time.ParseInLocation("2006-01", p.month, loc); err == nil {
		month = m
	}
	if month.Before(first) {
		month = first
	}
	if month.After(last) {
		month = last
	}
	slots, err := monthSlots(ctx, svc, t, month, now, loc)
	if next := month.AddDate(0, 1, 0); err == nil && len(slots) == 0 && p.month == "" && p.date == "" && !next.After(last) {
		// Late in a month, its last free slot may be past: a first visit
		// opens on the next month instead.
		month = next
		slots, err = monthSlots(ctx, svc, t, month, now, loc)
	}
	if err != nil {
		h.failed(w, t, err)
		return
	}
	date := p.date
	if len(slots[date]) == 0 {
		date = slots.firstDay()
	}
	q := pickQuery{base: p.base, month: month, date: date, loc: loc}
	d := &pickData{Base: p.base, Action: p.action, TZ: loc.String(), Zones: zoneChoices(loc.String(), t.TimeZone),
		Month: buildMonth(q, slots, first, last), Current: p.current, Script: p.script}
	if date != "" {
		day, _ := time.ParseInLocation(time.DateOnly, date, loc)
		d.Day = day.Format("Monday 2 January 2006")
		for _, s := range slots[date] {
			d.Slots = append(d.Slots, slotChoice{Value: s.Format(time.RFC3339), Label: s.Format("15:04")})
		}
	}
	h.render(w, status, t, "pick", &view{Title: t.Name, Type: t, Error: p.errMsg, Data: d})
}

func cmpOrString(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// dateOf is the date of an RFC 3339 start in loc, "" when it is none.
func dateOf(start string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return ""
	}
	return t.In(loc).Format(time.DateOnly)
}

// slotGone reports whether err means that the slot chosen cannot be
// had (any more): taken, full, an expired or used hold, off the grid or
// inside the notice.
func slotGone(err error) bool {
	switch unical.ErrorCode(err) {
	case unical.CodeSlotUnavailable, unical.CodeLimitReached, unical.CodeConflict, unical.CodeNotFound:
		return true
	case unical.CodeInvalid:
		var e *unical.Error
		return errors.As(err, &e) && (e.Field == "startDateTime" || e.Field == "holdId")
	}
	return false
}

const goneMessage = "Sorry, that time is gone: someone else has just taken it. Please choose another."

// hold handles POST /book/{slug}/hold: it places a hold on the chosen
// slot and shows the form for the guest's name and email.
func (h *handler) hold(w http.ResponseWriter, r *http.Request) {
	pub, ok := h.lookup(w, r)
	if !ok {
		return
	}
	start, tz := r.PostFormValue("start"), r.PostFormValue("tz")
	loc := zoneOf(tz, pub.Type.TimeZone)
	base := "/book/" + pub.Type.Slug
	retry := pickRequest{base: base, action: base + "/hold", tz: loc.String(), date: dateOf(start, loc)}
	addr := h.clientAddr(r)
	now := h.c.Now()
	key := "pending:" + rand.Text()
	if !h.holds.reserve(addr, key, now.Add(time.Duration(h.holdTTL)*time.Second), now) {
		retry.errMsg = "You are already holding several times on this server. Finish or wait for them to lapse (a few minutes), then try again."
		h.renderPick(w, r.Context(), http.StatusTooManyRequests, pub.Service, pub.Type, retry)
		return
	}
	hold, err := pub.Service.CreateHold(r.Context(), &booking.HoldParams{BookingTypeID: pub.Type.ID, StartDateTime: start, TTLSeconds: h.holdTTL})
	if err != nil {
		h.holds.settle(addr, key, "", time.Time{})
		if slotGone(err) {
			retry.errMsg = goneMessage
			h.renderPick(w, r.Context(), http.StatusConflict, pub.Service, pub.Type, retry)
			return
		}
		h.failed(w, pub.Type, err)
		return
	}
	h.holds.settle(addr, key, hold.ID, hold.ExpiresAt)
	h.renderDetails(w, http.StatusOK, pub.Type, &detailsData{Slug: pub.Type.Slug, HoldID: hold.ID, Start: start,
		Until: hold.ExpiresAt.UTC().Format(time.RFC3339), TZ: loc.String()}, "")
}

func (h *handler) renderDetails(w http.ResponseWriter, status int, t *booking.BookingType, d *detailsData, errMsg string) {
	loc := zoneOf(d.TZ, t.TimeZone)
	if start, err := time.Parse(time.RFC3339, d.Start); err == nil {
		d.When = when(start, start.Add(time.Duration(t.DurationMinutes)*time.Minute), loc)
	}
	if until, err := time.Parse(time.RFC3339, d.Until); err == nil {
		d.UntilLabel = until.In(loc).Format("15:04")
	}
	h.render(w, status, t, "details", &view{Title: t.Name, Type: t, Error: errMsg, Data: d})
}

// when is a slot as the guest reads it.
func when(start, end time.Time, loc *time.Location) string {
	start, end = start.In(loc), end.In(loc)
	return fmt.Sprintf("%s, %s–%s (%s)", start.Format("Monday 2 January 2006"), start.Format("15:04"), end.Format("15:04"), loc.String())
}

// book handles POST /book/{slug}/book: it books the held slot for the
// guest, once however often the form is sent, and sends the browser to
// the confirmation page.
func (h *handler) book(w http.ResponseWriter, r *http.Request) {
	pub, ok := h.lookup(w, r)
	if !ok {
		return
	}
	d := &detailsData{Slug: pub.Type.Slug, HoldID: r.PostFormValue("hold"), Start: r.PostFormValue("start"), TZ: r.PostFormValue("tz"),
		Name: strings.TrimSpace(r.PostFormValue("name")), Email: strings.TrimSpace(r.PostFormValue("email"))}
	until := r.PostFormValue("until")
	loc := zoneOf(d.TZ, pub.Type.TimeZone)
	d.TZ = loc.String()
	retryDetails := func(msg string) {
		d.Until = until
		h.renderDetails(w, http.StatusBadRequest, pub.Type, d, msg)
	}
	if d.Name == "" || len(d.Name) > 255 {
		retryDetails("Please enter your name (at most 255 characters).")
		return
	}
	if a, err := mail.ParseAddress(d.Email); err != nil || a.Address != d.Email || len(d.Email) > 320 {
		retryDetails("Please enter an email address, such as ada@example.com.")
		return
	}
	if d.HoldID == "" {
		h.message(w, http.StatusBadRequest, pub.Type, "Choose a time", "Please choose a time first.")
		return
	}
	// The hold's id is the write's idempotency key: a form sent twice
	// (a double click, a reload) makes one booking.
	ctx := unical.WithIdempotencyKey(r.Context(), "bookingpage:"+d.HoldID)
	b, err := pub.Service.CreateBooking(ctx, &booking.BookingParams{BookingTypeID: pub.Type.ID, HoldID: d.HoldID,
		Guest: booking.Guest{Email: d.Email, Name: d.Name, TimeZone: d.TZ}, Metadata: map[string]string{"source": "bookingPage"}})
	if err != nil {
		var e *unical.Error
		if errors.As(err, &e) && e.Code == unical.CodeInvalid && strings.HasPrefix(e.Field, "guest.") {
			retryDetails(e.Message)
			return
		}
		if slotGone(err) {
			base := "/book/" + pub.Type.Slug
			h.renderPick(w, r.Context(), http.StatusConflict, pub.Service, pub.Type, pickRequest{base: base, action: base + "/hold",
				tz: d.TZ, date: dateOf(d.Start, loc), errMsg: goneMessage})
			return
		}
		h.failed(w, pub.Type, err)
		return
	}
	h.holds.release(h.clientAddr(r), d.HoldID)
	h.redirectToConfirmation(w, r, pub.AppID, b, d.TZ)
}

func (h *handler) redirectToConfirmation(w http.ResponseWriter, r *http.Request, appID string, b *booking.Booking, tz string) {
	end, _ := time.Parse(time.RFC3339, b.End.DateTime)
	tok := h.links.sign(linkClaims{Purpose: purposeView, AppID: appID, BookingID: b.ID, Expires: end.Add(viewLinkLife)})
	http.Redirect(w, r, "/book/-/booking/"+tok+"?"+url.Values{"tz": {tz}}.Encode(), http.StatusSeeOther)
}

// linked is a booking reached through a signed link.
type linked struct {
	appID string
	svc   *booking.Service
	b     *booking.Booking
	// t is the booking's type; nil when it has been deleted since.
	t   *booking.BookingType
	tok string
}

// follow checks the request's link for want and loads its booking, or
// answers the page that says why not: 404 for a link that is not valid
// (tampered with, of another purpose, of a booking that is gone), 410
// for an expired one.
func (h *handler) follow(w http.ResponseWriter, r *http.Request, want purpose) (*linked, bool) {
	tok := r.PathValue("token")
	c, err := h.links.check(tok, want, h.c.Now())
	if errors.Is(err, errLinkExpired) {
		h.message(w, http.StatusGone, nil, "Link expired", "This link has expired.")
		return nil, false
	}
	invalid := func() (*linked, bool) {
		h.message(w, http.StatusNotFound, nil, "Link not valid", "This link is not valid.")
		return nil, false
	}
	if err != nil {
		return invalid()
	}
	app, err := h.c.App(r.Context(), c.AppID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return invalid()
	}
	if err != nil {
		h.failed(w, nil, err)
		return nil, false
	}
	svc := booking.New(h.c, app)
	b, err := svc.GetBooking(r.Context(), c.BookingID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return invalid()
	}
	if err != nil {
		h.failed(w, nil, err)
		return nil, false
	}
	l := &linked{appID: c.AppID, svc: svc, b: b, tok: tok}
	if t, err := svc.GetBookingType(r.Context(), b.BookingTypeID); err == nil {
		l.t = t
	}
	return l, true
}

// name is the booking's type's name, or a stand-in when the type is gone.
func (l *linked) name() string {
	if l.t != nil {
		return l.t.Name
	}
	return "Booking"
}

// slot is the booking's start and end.
func (l *linked) slot() (time.Time, time.Time) {
	start, _ := time.Parse(time.RFC3339, l.b.Start.DateTime)
	end, _ := time.Parse(time.RFC3339, l.b.End.DateTime)
	return start, end
}

// zone is the zone the booking's pages show times in: the request's tz,
// else the guest's, else the type's.
func (l *linked) zone(r *http.Request) *time.Location {
	fallback := l.b.Guest.TimeZone
	if fallback == "" {
		fallback = l.b.Start.TimeZone
	}
	return zoneOf(r.FormValue("tz"), fallback)
}

// confirmedPage handles GET /book/-/booking/{token}.
func (h *handler) confirmedPage(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeView)
	if !ok {
		return
	}
	start, end := l.slot()
	loc := l.zone(r)
	d := &confirmedData{Booking: l.b, When: when(start, end, loc), Cancelled: l.b.Status == booking.StatusCancelled,
		ICS: "/book/-/booking/" + l.tok + "/ics"}
	if !d.Cancelled && h.c.Now().Before(start) {
		tz := "?" + url.Values{"tz": {loc.String()}}.Encode()
		appID := l.appID
		d.Cancel = "/book/-/cancel/" + h.links.sign(linkClaims{Purpose: purposeCancel, AppID: appID, BookingID: l.b.ID, Expires: start}) + tz
		d.Reschedule = "/book/-/reschedule/" + h.links.sign(linkClaims{Purpose: purposeReschedule, AppID: appID, BookingID: l.b.ID, Expires: start}) + tz
	}
	h.render(w, http.StatusOK, l.t, "confirmed", &view{Title: l.name(), Type: l.t, Data: d})
}

// icsFile handles GET /book/-/booking/{token}/ics.
func (h *handler) icsFile(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeView)
	if !ok {
		return
	}
	body, err := bookingICS(l, h.c.Now())
	if err != nil {
		h.failed(w, l.t, err)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/calendar; charset=utf-8")
	hdr.Set("Content-Disposition", `attachment; filename="booking.ics"`)
	hdr.Set("Cache-Control", "no-store")
	_, _ = w.Write(body)
}

// cancelData is the cancel page.
type cancelData struct {
	When      string
	Action    string
	Cancelled bool
	Done      bool
}

// cancelPage handles GET /book/-/cancel/{token}: it asks before
// cancelling, since mail scanners open links.
func (h *handler) cancelPage(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeCancel)
	if !ok {
		return
	}
	start, end := l.slot()
	h.render(w, http.StatusOK, l.t, "cancel", &view{Title: l.name(), Type: l.t, Data: &cancelData{When: when(start, end, l.zone(r)),
		Action: r.URL.RequestURI(), Cancelled: l.b.Status == booking.StatusCancelled}})
}

// cancel handles POST /book/-/cancel/{token}.
func (h *handler) cancel(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeCancel)
	if !ok {
		return
	}
	if _, err := l.svc.CancelBooking(r.Context(), l.b.ID); err != nil {
		h.failed(w, l.t, err)
		return
	}
	start, end := l.slot()
	h.render(w, http.StatusOK, l.t, "cancel", &view{Title: l.name(), Type: l.t, Data: &cancelData{When: when(start, end, l.zone(r)), Cancelled: true, Done: true}})
}

// reschedulePage handles GET /book/-/reschedule/{token}: the pick page,
// whose slots move the booking.
func (h *handler) reschedulePage(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeReschedule)
	if !ok {
		return
	}
	if !h.reschedulable(w, l) {
		return
	}
	q := r.URL.Query()
	start, end := l.slot()
	loc := l.zone(r)
	h.renderPick(w, r.Context(), http.StatusOK, l.svc, l.t, pickRequest{base: r.URL.Path, action: r.URL.Path,
		tz: loc.String(), month: q.Get("month"), date: q.Get("date"), current: when(start, end, loc), script: q.Get("tz") == ""})
}

// reschedulable answers the page of a booking that cannot move: one
// cancelled, or whose type is gone.
func (h *handler) reschedulable(w http.ResponseWriter, l *linked) bool {
	if l.b.Status == booking.StatusCancelled {
		h.message(w, http.StatusConflict, l.t, l.name(), "This booking is cancelled.")
		return false
	}
	if l.t == nil {
		h.message(w, http.StatusGone, nil, "Booking", "This booking can no longer be moved here.")
		return false
	}
	return true
}

// reschedule handles POST /book/-/reschedule/{token}.
func (h *handler) reschedule(w http.ResponseWriter, r *http.Request) {
	l, ok := h.follow(w, r, purposeReschedule)
	if !ok || !h.reschedulable(w, l) {
		return
	}
	start := r.PostFormValue("start")
	loc := l.zone(r)
	b, err := l.svc.RescheduleBooking(r.Context(), l.b.ID, &booking.RescheduleParams{StartDateTime: start})
	if err != nil {
		if slotGone(err) {
			oldStart, oldEnd := l.slot()
			h.renderPick(w, r.Context(), http.StatusConflict, l.svc, l.t, pickRequest{base: r.URL.Path, action: r.URL.Path,
				tz: loc.String(), date: dateOf(start, loc), current: when(oldStart, oldEnd, loc), errMsg: goneMessage})
			return
		}
		h.failed(w, l.t, err)
		return
	}
	h.redirectToConfirmation(w, r, l.appID, b, loc.String())
}
