package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// This file holds the read-only pages of an account's calendars and
// events, read through the same App methods /v1 uses, and the forms that
// create a VIRTUAL account or connect a CalDAV one.

var (
	pageAccount  = appPage{"accounts", "account", "Account", (*handler).loadAccount}
	pageCalendar = appPage{"accounts", "calendar", "Calendar", (*handler).loadCalendar}
)

// accountData is an account with its calendars.
type accountData struct {
	Account   *unical.Account
	Calendars []*unical.Calendar
	// NextPage continues the calendar list.
	NextPage string
}

// loadAccount reads the account of the path and a page of its calendars.
func (h *handler) loadAccount(r *http.Request, app *admin.ApplicationView) (any, error) {
	a, err := h.admin.Client().App(r.Context(), app.ID)
	if err != nil {
		return nil, err
	}
	d := &accountData{}
	if d.Account, err = a.GetAccount(r.Context(), r.PathValue("account")); err != nil {
		return d, err
	}
	page, err := a.ListCalendars(r.Context(), d.Account.ID, &unical.CalendarListParams{PageToken: r.URL.Query().Get("page")})
	if err != nil {
		return d, err
	}
	d.Calendars = page.Data
	if page.NextPageToken != "" {
		d.NextPage = "?" + url.Values{"page": {page.NextPageToken}}.Encode()
	}
	return d, nil
}

// calendarData is one week of a calendar's events, recurring ones
// expanded to their occurrences, laid out as a grid in a time zone.
type calendarData struct {
	Account  *unical.Account
	Calendar *unical.Calendar
	// Week is the Monday the week starts on (YYYY-MM-DD) and Zone the
	// IANA zone it is shown in; Zones are the suggestions of the zone
	// field.
	Week, Zone string
	Zones      []string
	// Prev, Next, Today and NextEvent are the query strings of the week
	// before and after, of the current week and of the week of the next
	// event after this one.
	Prev, Next, Today, NextEvent string
	Grid                         *weekGrid
	// Jumped says where "Next event" led; Truncated that the week has
	// more events than the grid shows.
	Jumped    string
	Truncated bool
	Shown     int
}

// zoneSuggestions are offered in the time zone field, after the
// calendar's own; any IANA name may be typed.
var zoneSuggestions = []string{"UTC", "Europe/London", "Europe/Berlin", "America/New_York", "America/Chicago", "America/Los_Angeles", "Asia/Kolkata", "Asia/Tokyo", "Australia/Sydney"}

const (
	// weekPages bounds the pages of a week read for the grid.
	weekPages = 8
	// nextEventYears bounds the search for the next event: a year a
	// request, the first page of each.
	nextEventYears = 10
)

// weekOf returns the Monday 00:00 in loc of the week parameter (a date in
// the week, YYYY-MM-DD), or of now's week when it is empty.
func weekOf(param string, now time.Time, loc *time.Location) (time.Time, error) {
	day := now.In(loc)
	if param != "" {
		d, err := time.ParseInLocation(unical.DateLayout, param, loc)
		if err != nil {
			return time.Time{}, unical.FieldError("week", "week must be a date, YYYY-MM-DD.")
		}
		day = d
	}
	return weekStart(day, loc), nil
}

// zoneOf is the zone of the tz parameter, or the calendar's when it is
// empty (UTC when the calendar names none it knows).
func zoneOf(param string, cal *unical.Calendar) (*time.Location, error) {
	if param != "" {
		loc, err := unical.LoadLocation(param)
		if err != nil {
			return nil, unical.FieldError("tz", "tz must be an IANA time zone name such as Europe/Berlin; %q is not one.", param)
		}
		return loc, nil
	}
	if loc, err := unical.LoadLocation(cal.TimeZone); err == nil {
		return loc, nil
	}
	return time.UTC, nil
}

// loadCalendar reads the calendar of the path and its events of one week,
// expanded as GET /v1/events?expandRecurrences=true does, and lays them
// out in the chosen zone. With jump=next it shows the week of the first
// event that starts after the asked week instead.
func (h *handler) loadCalendar(r *http.Request, app *admin.ApplicationView) (any, error) {
	a, err := h.admin.Client().App(r.Context(), app.ID)
	if err != nil {
		return nil, err
	}
	d := &calendarData{}
	accountID, calendarID := r.PathValue("account"), r.PathValue("calendar")
	if d.Account, err = a.GetAccount(r.Context(), accountID); err != nil {
		return d, err
	}
	if d.Calendar, err = a.GetCalendar(r.Context(), accountID, calendarID); err != nil {
		return d, err
	}
	q := r.URL.Query()
	loc, err := zoneOf(q.Get("tz"), d.Calendar)
	if err != nil {
		return d, err
	}
	d.Zone = loc.String()
	d.Zones = zoneSuggestions
	if tz := d.Calendar.TimeZone; tz != "" && !slices.Contains(zoneSuggestions, tz) {
		d.Zones = append([]string{tz}, zoneSuggestions...)
	}
	start, err := weekOf(q.Get("week"), h.now(), loc)
	if err != nil {
		return d, err
	}
	if q.Get("jump") == "next" {
		next, found, err := nextEventAfter(r.Context(), a, accountID, calendarID, start.AddDate(0, 0, 7))
		if err != nil {
			return d, err
		}
		if found == nil {
			d.Jumped = fmt.Sprintf("No event starts in the %d years after the week of %s.", nextEventYears, start.Format(unical.DateLayout))
		} else {
			start = weekStart(next, loc)
			d.Jumped = fmt.Sprintf("The next event: %s, %s.", found.Title, next.In(loc).Format("Monday 2 January 2006 15:04 MST"))
		}
	}
	weekQuery := func(day time.Time, extra ...string) string {
		v := url.Values{"week": {day.Format(unical.DateLayout)}, "tz": {d.Zone}}
		for i := 0; i+1 < len(extra); i += 2 {
			v.Set(extra[i], extra[i+1])
		}
		return "?" + v.Encode()
	}
	d.Week = start.Format(unical.DateLayout)
	d.Prev, d.Next, d.NextEvent = weekQuery(start.AddDate(0, 0, -7)), weekQuery(start.AddDate(0, 0, 7)), weekQuery(start, "jump", "next")
	d.Today = "?" + url.Values{"tz": {d.Zone}}.Encode()

	params := &unical.EventListParams{Start: start, End: start.AddDate(0, 0, 7), ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, TimeZone: d.Zone, Limit: unical.MaxPageSize}
	var events []*unical.Event
	for i := 0; ; i++ {
		page, err := a.ListEvents(r.Context(), accountID, calendarID, params)
		if err != nil {
			return d, err
		}
		events = append(events, page.Data...)
		if page.NextPageToken == "" {
			break
		}
		if i == weekPages-1 {
			d.Truncated = true
			break
		}
		params = &unical.EventListParams{PageToken: page.NextPageToken, TimeZone: d.Zone, Limit: unical.MaxPageSize}
	}
	d.Shown = len(events)
	d.Grid = layoutWeek(events, start, loc)
	d.Grid.ID, d.Grid.Caption = "week-title", fmt.Sprintf("Week of %s (%s)", d.Week, d.Zone)
	return d, nil
}

// nextEventAfter finds the first event (or occurrence) of the calendar
// that starts at or after from, looking nextEventYears ahead, a year a
// request.
func nextEventAfter(ctx context.Context, a *unical.App, accountID, calendarID string, from time.Time) (time.Time, *unical.Event, error) {
	for year := range nextEventYears {
		params := &unical.EventListParams{Start: from.AddDate(year, 0, 0), End: from.AddDate(year+1, 0, 0), ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, TimeZone: "UTC", Limit: unical.MaxPageSize}
		page, err := a.ListEvents(ctx, accountID, calendarID, params)
		if err != nil {
			return time.Time{}, nil, err
		}
		// The listing keeps events that end after its start: skip the
		// ones that began before from.
		for _, ev := range page.Data {
			if ev.Start == nil {
				continue
			}
			var t time.Time
			if ev.Start.IsDateOnly() {
				day, err := ev.Start.Day("start")
				if err != nil {
					continue
				}
				t = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, from.Location())
			} else if t, err = ev.Start.Time("start"); err != nil {
				continue
			}
			if !t.Before(from) {
				return t, ev, nil
			}
		}
	}
	return time.Time{}, nil, nil
}

// createVirtualAccount handles POST /dashboard/apps/{app}/accounts/virtual.
func (h *handler) createVirtualAccount(w http.ResponseWriter, r *http.Request, s *session) {
	acct, err := h.admin.CreateVirtualAccount(r.Context(), r.PathValue("app"), r.PostFormValue("email"))
	if err != nil {
		h.failed(w, r, s, pageAccounts, err)
		return
	}
	done(w, r, "/accounts/"+url.PathEscape(acct.ID), "account-created", nil)
}

// calDAVForm is the CalDAV form as the operator filled it in, shown
// again after a failed connect with the error beside the field it names.
// The password is never part of it: it is not echoed into HTML.
type calDAVForm struct {
	Email, Username, ServerURL string
	// Field is the form field the error names (email, username,
	// password, serverUrl) and Error the error's message, shown beside
	// it; both are empty when the error names none of them, and is shown
	// above the page instead.
	Field, Error string
}

// calDAVFields are the CalDAV form's fields, by the names errors give.
var calDAVFields = []string{"email", "username", "password", "serverUrl"}

// connectCalDAVAccount handles POST /dashboard/apps/{app}/accounts/caldav.
// A failure shows the form again as it was filled in, except the
// password, with the error beside its field.
func (h *handler) connectCalDAVAccount(w http.ResponseWriter, r *http.Request, s *session) {
	form := &calDAVForm{Email: r.PostFormValue("email"), Username: r.PostFormValue("username"), ServerURL: r.PostFormValue("serverUrl")}
	acct, err := h.admin.ConnectCalDAVAccount(r.Context(), r.PathValue("app"), admin.CalDAVConnection{
		Email: form.Email, Username: form.Username, Password: r.PostFormValue("password"), ServerURL: form.ServerURL,
	})
	if err != nil {
		summary := h.message(r, err)
		var e *unical.Error
		if errors.As(err, &e) && slices.Contains(calDAVFields, e.Field) {
			form.Field, form.Error = e.Field, unical.ErrorMessage(err)
			summary = "The CalDAV account was not connected: see the field marked below."
		}
		h.show(w, r, s, pageAccounts, statusOf(err), summary, func(data any) { data.(*accountsData).CalDAV = form })
		return
	}
	done(w, r, "/accounts/"+url.PathEscape(acct.ID), "account-connected", nil)
}
