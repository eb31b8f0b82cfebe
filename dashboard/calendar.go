package dashboard

import (
	"net/http"
	"net/url"
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
// expanded to their occurrences.
type calendarData struct {
	Account  *unical.Account
	Calendar *unical.Calendar
	// Week is the Monday (UTC) the week starts on; Prev and Next are the
	// weeks around it, as the week query parameter.
	Week, Prev, Next string
	Events           []*unical.Event
	NextPage         string
}

// weekOf returns the Monday 00:00 UTC of the week parameter (a date in
// the week, YYYY-MM-DD), or of now's week when it is empty.
func weekOf(param string, now time.Time) (time.Time, error) {
	day := now.UTC()
	if param != "" {
		d, err := time.Parse(unical.DateLayout, param)
		if err != nil {
			return time.Time{}, unical.FieldError("week", "week must be a date, YYYY-MM-DD.")
		}
		day = d
	}
	day = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)), nil
}

// loadCalendar reads the calendar of the path and its events of one week,
// expanded as GET /v1/events?expandRecurrences=true does, in time order.
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
	start, err := weekOf(q.Get("week"), h.now())
	if err != nil {
		return d, err
	}
	d.Week, d.Prev, d.Next = start.Format(unical.DateLayout), start.AddDate(0, 0, -7).Format(unical.DateLayout), start.AddDate(0, 0, 7).Format(unical.DateLayout)
	params := &unical.EventListParams{Start: start, End: start.AddDate(0, 0, 7), ExpandRecurrences: true, OrderBy: unical.OrderByStartTime, TimeZone: "UTC"}
	if token := q.Get("page"); token != "" {
		params = &unical.EventListParams{PageToken: token, TimeZone: "UTC"}
	}
	page, err := a.ListEvents(r.Context(), accountID, calendarID, params)
	if err != nil {
		return d, err
	}
	d.Events = page.Data
	if page.NextPageToken != "" {
		d.NextPage = "?" + url.Values{"week": {d.Week}, "page": {page.NextPageToken}}.Encode()
	}
	return d, nil
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

// connectCalDAVAccount handles POST /dashboard/apps/{app}/accounts/caldav.
func (h *handler) connectCalDAVAccount(w http.ResponseWriter, r *http.Request, s *session) {
	acct, err := h.admin.ConnectCalDAVAccount(r.Context(), r.PathValue("app"), admin.CalDAVConnection{
		Email: r.PostFormValue("email"), Username: r.PostFormValue("username"),
		Password: r.PostFormValue("password"), ServerURL: r.PostFormValue("serverUrl"),
	})
	if err != nil {
		h.failed(w, r, s, pageAccounts, err)
		return
	}
	done(w, r, "/accounts/"+url.PathEscape(acct.ID), "account-connected", nil)
}
