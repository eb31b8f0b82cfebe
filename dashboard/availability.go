package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
)

// This file holds the availability explorer: the operator chooses
// accounts of the application and a window, and the page paints the free
// slots POST /v1/availability answers for the same input, found by the
// same function (availability.Find over the application's App), as week
// grids. The form is a GET form, so that an answer can be linked and the
// page works without JavaScript.

var pageAvailability = appPage{"availability", "availability", "Availability", (*handler).loadAvailability}

// availabilityForm is the explorer's form, as the address gives it.
type availabilityForm struct {
	// Accounts are the ids of the chosen accounts.
	Accounts []string
	// Date is the window's first day (YYYY-MM-DD) and Days its length in
	// days; Duration and Step are minutes; Zone is an IANA name.
	Date                 string
	Days, Duration, Step int
	Zone                 string
	// From and To are working hours (HH:MM) on every day of the window,
	// or only Monday to Friday with Weekdays; both empty is any time.
	From, To string
	Weekdays bool
}

// availabilityData is the explorer's page.
type availabilityData struct {
	Form *availabilityForm
	// Choices are the application's accounts to choose from; More says
	// that it has more than are listed.
	Choices []*unical.Account
	More    bool
	// Zones are the suggestions of the zone field.
	Zones []string
	// Asked says the form was sent with accounts; Params is what it asked
	// POST /v1/availability, Result its answer, shown as Grids.
	Asked  bool
	Params *availability.Params
	// Body is Params as the JSON body of the request.
	Body   string
	Result *availability.Result
	Grids  []*weekGrid
	// Truncated says the answer holds availability.MaxResults slots, so
	// that more may be free.
	Truncated bool
}

// Chosen reports whether the account id is among the chosen ones.
func (f *availabilityForm) Chosen(id string) bool { return slices.Contains(f.Accounts, id) }

// Defaults of the explorer's form.
const (
	explorerDays     = 7
	explorerDuration = 30
)

// readAvailabilityForm reads the form from the query; a number that is
// not one is CodeInvalid naming its field.
func readAvailabilityForm(r *http.Request, now time.Time) (*availabilityForm, error) {
	q := r.URL.Query()
	f := &availabilityForm{Accounts: q["account"], Date: q.Get("date"), Zone: q.Get("tz"), From: q.Get("from"), To: q.Get("to"), Weekdays: q.Get("weekdays") == "on"}
	if f.Zone == "" {
		f.Zone = "UTC"
	}
	number := func(name string, def int) (int, error) {
		v := q.Get(name)
		if v == "" {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, unical.FieldError(name, "%s must be a whole number.", name)
		}
		return n, nil
	}
	var err error
	if f.Days, err = number("days", explorerDays); err != nil {
		return f, err
	}
	if f.Duration, err = number("duration", explorerDuration); err != nil {
		return f, err
	}
	// The step defaults to the duration, so that the slots tile the free
	// time without overlapping (the API's own default is 15 minutes).
	if f.Step, err = number("step", min(f.Duration, 24*60)); err != nil {
		return f, err
	}
	if f.Date == "" {
		loc, err := unical.LoadLocation(f.Zone)
		if err != nil {
			loc = time.UTC
		}
		f.Date = now.In(loc).Format(unical.DateLayout)
	}
	return f, nil
}

// params is the body of POST /v1/availability the form asks: every chosen
// account a required participant on its default calendars, the window
// from midnight of Date for Days days in Zone, and, with From and To,
// those working hours on every day (Monday to Friday with Weekdays).
func (f *availabilityForm) params() (*availability.Params, error) {
	day, err := time.Parse(unical.DateLayout, f.Date)
	if err != nil {
		return nil, unical.FieldError("date", "date must be a date, YYYY-MM-DD.")
	}
	if f.Days < 1 || f.Days > int(availability.MaxWindow/(24*time.Hour)) {
		return nil, unical.FieldError("days", "days must be between 1 and %d.", int(availability.MaxWindow/(24*time.Hour)))
	}
	const layout = "2006-01-02T15:04:05"
	p := &availability.Params{
		StartDateTime: day.Format(layout), EndDateTime: day.AddDate(0, 0, f.Days).Format(layout),
		DurationMinutes: f.Duration, IntervalMinutes: f.Step, TimeZone: f.Zone, MaxResults: availability.MaxResults,
	}
	var hours *availability.WorkingHours
	switch {
	case f.From != "" && f.To != "":
		hours = &availability.WorkingHours{TimeZone: f.Zone}
		for i, name := range []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
			if i < 5 || !f.Weekdays {
				hours.Intervals = append(hours.Intervals, availability.WorkingInterval{Day: name, Start: f.From, End: f.To})
			}
		}
	case f.From != "" || f.To != "":
		return nil, unical.FieldError("to", "Give both hours, from and to, or neither.")
	case f.Weekdays:
		hours = &availability.WorkingHours{TimeZone: f.Zone}
		for _, name := range []string{"monday", "tuesday", "wednesday", "thursday", "friday"} {
			hours.Intervals = append(hours.Intervals, availability.WorkingInterval{Day: name, Start: "00:00", End: "24:00"})
		}
	}
	for _, id := range f.Accounts {
		p.Participants = append(p.Participants, availability.Participant{EndUserAccountID: id, WorkingHours: hours})
	}
	return p, nil
}

// loadAvailability reads the application's accounts and, when the form
// names some, finds their free slots as POST /v1/availability does.
func (h *handler) loadAvailability(r *http.Request, app *admin.ApplicationView) (any, error) {
	client := h.admin.Client()
	a, err := client.App(r.Context(), app.ID)
	if err != nil {
		return nil, err
	}
	d := &availabilityData{Form: &availabilityForm{}, Zones: zoneSuggestions}
	page, err := a.ListAccounts(r.Context(), &unical.AccountListParams{Limit: unical.MaxPageSize})
	if err != nil {
		return d, err
	}
	d.Choices, d.More = page.Data, page.NextPageToken != nil
	if d.Form, err = readAvailabilityForm(r, client.Now()); err != nil {
		return d, err
	}
	if len(d.Form.Accounts) == 0 {
		return d, nil
	}
	d.Asked = true
	if d.Params, err = d.Form.params(); err != nil {
		return d, err
	}
	body, err := json.MarshalIndent(d.Params, "", "  ")
	if err != nil {
		return d, err
	}
	d.Body = string(body)
	if d.Result, err = availability.Find(r.Context(), a, client.Now(), d.Params); err != nil {
		return d, err
	}
	d.Truncated = len(d.Result.Data) >= availability.MaxResults
	loc, err := unical.LoadLocation(d.Params.TimeZone)
	if err != nil {
		return d, err
	}
	d.Grids = freeGrids(d.Result.Data, d.Form.Date, d.Form.Days, loc)
	return d, nil
}

// freeGrids lays out slots in the weeks (from Monday) that hold the
// window of days days from date, in loc.
func freeGrids(slots []*availability.Slot, date string, days int, loc *time.Location) []*weekGrid {
	first, err := time.ParseInLocation(unical.DateLayout, date, loc)
	if err != nil {
		return nil
	}
	events := make([]*unical.Event, 0, len(slots))
	for _, s := range slots {
		start, end := s.Start, s.End
		events = append(events, &unical.Event{Title: "Free", Start: &start, End: &end})
	}
	end := first.AddDate(0, 0, days)
	var grids []*weekGrid
	for week := weekStart(first, loc); week.Before(end); week = week.AddDate(0, 0, 7) {
		g := layoutWeek(events, week, loc)
		g.Free = true
		g.ID = "free-" + week.Format(unical.DateLayout)
		g.Caption = fmt.Sprintf("Free slots, week of %s (%s)", week.Format(unical.DateLayout), loc)
		grids = append(grids, g)
	}
	return grids
}
