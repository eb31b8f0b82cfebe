package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/apitest"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
)

// requestTarget is the API handler over a Client with a VIRTUAL account,
// served in-process.
type requestTarget struct {
	h         http.Handler
	log       *apitest.LogBuffer
	key       string
	accountID string
}

func newRequestTarget(tb testing.TB) *requestTarget {
	tb.Helper()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(tb.TempDir(), "unical.db"), NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	client, err := unical.New(unical.Config{Store: store, Providers: virtual.Add(nil, virtual.Config{Store: store}), MasterKey: seal.NewKey()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	operator, err := admin.New(admin.Config{Store: store, Client: client})
	if err != nil {
		tb.Fatal(err)
	}
	created, err := operator.CreateApplication(tb.Context(), &admin.ApplicationParams{Name: unical.Some("fuzz")})
	if err != nil {
		tb.Fatal(err)
	}
	rt := &requestTarget{log: &apitest.LogBuffer{}, key: created.APIKey}
	rt.h = httpapi.NewHandler(httpapi.Config{Client: client, Logger: slog.New(slog.NewTextHandler(rt.log, nil))})
	var acct struct{ ID string }
	if status, body, _ := rt.do("POST", "/v1/endUserAccounts", `{"email":"fuzz@example.com","providerType":"VIRTUAL"}`); status != http.StatusOK && status != http.StatusCreated || json.Unmarshal(body, &acct) != nil {
		tb.Fatalf("creating the account: %d %s", status, body)
	}
	rt.accountID = acct.ID
	return rt
}

// do serves one request; ok is false for a path no client can send.
func (rt *requestTarget) do(method, path, body string) (status int, answer []byte, ok bool) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, "http://unical.test"+path, rd)
	if err != nil || strings.ContainsAny(path, " \t\r\n") {
		return 0, nil, false
	}
	r.RequestURI, r.RemoteAddr = path, "192.0.2.1:1234"
	r.Header.Set("x-api-key", rt.key)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	rt.h.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes(), true
}

// FuzzEventRequests sends what one client controls about a series: its
// start and end (any year, any zone, all-day or not) and a recurrence
// line, then lists, expands and queries free/busy over a window it also
// picks (with any other query parameters, and the next page), asks for
// availability there, and reads and changes an instance by an original
// start it picks. No request may end in a 5xx: each is an answer or a 4xx, so
// neither a panic (which the handler turns into a 500) nor an internal
// error is reachable with one request.
func FuzzEventRequests(f *testing.F) {
	f.Add("2026-01-05T09:00:00", "2026-01-05T10:00:00", "Europe/Berlin", false, "RRULE:FREQ=WEEKLY;BYDAY=MO,FR;COUNT=10", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z", "America/New_York", "20260109T080000Z", 30, "orderBy=startTime")
	f.Add("2026-07-01", "2026-07-02", "", true, "RRULE:FREQ=YEARLY", "2026-01-01T00:00:00Z", "2036-01-01T00:00:00Z", "", "20270701", 60, "search=fuzz&limit=1")
	f.Add("9999-12-31T22:00:00Z", "9999-12-31T23:59:59Z", "", false, "RRULE:FREQ=SECONDLY;INTERVAL=7", "9999-12-31T00:00:00Z", "9999-12-31T23:59:59Z", "Pacific/Kiritimati", "99991231T235959Z", 153722868, "metadataFilters=%7B%22public%22%3A%7B%22k%22%3A%22v%22%7D%7D")
	f.Add("0001-01-01T09:00:00Z", "0001-01-01T10:00:00Z", "UTC", false, "RRULE:FREQ=DAILY;UNTIL=00010110T000000Z", "0001-01-01T01:00:00Z", "0001-12-31T00:00:00Z", "Etc/GMT+12", "00000101T000000Z", 1440, "limit=2")
	f.Add("9999-12-30", "9999-12-31", "Pacific/Apia", true, "RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;INTERVAL=1000", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "Pacific/Apia", "99991230", 1999, "orderBy=updated&limit=1")
	f.Add("2026-03-29T02:30:00", "2026-03-29T03:30:00", "Europe/Berlin", false, "EXDATE;TZID=Europe/Berlin:20260329T023000", "2026-03-28T00:00:00+14:00", "2026-03-30T00:00:00-12:00", "Europe/Berlin", "20260329T003000Z", 45, "")
	rt := newRequestTarget(f)
	f.Fuzz(func(t *testing.T, start, end, zone string, allDay bool, rule, from, to, queryZone, original string, minutes int, extra string) {
		if len(rule) > 512 {
			return
		}
		at := func(v string) map[string]string {
			if allDay {
				return map[string]string{"date": v}
			}
			return map[string]string{"dateTime": v, "timeZone": zone}
		}
		event := map[string]any{"title": "fuzz", "isAllDay": allDay, "start": at(start), "end": at(end)}
		if rule != "" {
			event["recurrence"] = []string{rule}
		}
		body, err := json.Marshal(event)
		if err != nil {
			t.Fatal(err)
		}
		check := func(method, path, body string) []byte {
			status, answer, ok := rt.do(method, path, body)
			if !ok {
				return nil
			}
			if status >= 500 {
				t.Fatalf("%s %s %s: %d %s\nlog: %s", method, path, body, status, answer, rt.log.Take())
			}
			if status >= 300 {
				return nil
			}
			return answer
		}
		// A calendar of its own: a deleted event stays as a tombstone for
		// sync, and one calendar for every run would grow without end.
		var cal struct{ ID string }
		if answer := check("POST", "/v1/calendars/"+rt.accountID, `{"name":"fuzz"}`); answer == nil || json.Unmarshal(answer, &cal) != nil {
			t.Fatalf("creating a calendar: %s", answer)
		}
		calendar := rt.accountID + "/" + url.PathEscape(cal.ID)
		defer check("DELETE", "/v1/calendars/"+calendar, "")
		events := "/v1/events/" + calendar
		var created struct{ ID string }
		if answer := check("POST", events, string(body)); answer != nil {
			if err := json.Unmarshal(answer, &created); err != nil || created.ID == "" {
				t.Fatalf("created event %s: %v", answer, err)
			}
			defer check("DELETE", events+"/"+url.PathEscape(created.ID), "")
		}
		window := url.Values{"startDateTime": {from}, "endDateTime": {to}, "timeZone": {queryZone}, "limit": {"50"}}
		expanded := url.Values{"expandRecurrences": {"true"}}
		for k, v := range window {
			expanded[k] = v
		}
		// The client's own query parameters come last and may repeat the
		// window's, and the next page is asked for with the token.
		list := events + "?" + expanded.Encode() + "&" + extra
		if answer := check("GET", list, ""); answer != nil {
			var page struct{ NextPageToken string }
			if json.Unmarshal(answer, &page) == nil && page.NextPageToken != "" {
				check("GET", list+"&pageToken="+url.QueryEscape(page.NextPageToken), "")
			}
		}
		if created.ID != "" {
			eventPath := events + "/" + url.PathEscape(created.ID)
			check("GET", eventPath, "")
			// An instance id names its original start; a client may send
			// any.
			instance := events + "/" + url.PathEscape(created.ID+"_"+original)
			check("GET", instance, "")
			check("PUT", instance, `{"location":"elsewhere"}`)
			if answer := check("GET", eventPath+"/occurrences?"+window.Encode()+"&"+extra, ""); answer != nil {
				var page struct{ Data []struct{ ID string } }
				if err := json.Unmarshal(answer, &page); err == nil && len(page.Data) > 0 {
					last := page.Data[len(page.Data)-1].ID
					check("GET", events+"/"+url.PathEscape(last), "")
					check("PUT", events+"/"+url.PathEscape(last), `{"title":"moved"}`)
				}
			}
		}
		freeBusy, _ := json.Marshal(map[string]any{"startDateTime": from, "endDateTime": to, "timeZone": queryZone, "calendarIds": []string{cal.ID}})
		check("POST", "/v1/freeBusy/"+rt.accountID, string(freeBusy))
		// Availability over the same window, its slots aligned in the
		// query's zone and working hours in the event's.
		availability, _ := json.Marshal(map[string]any{
			"participants": []any{map[string]any{"endUserAccountId": rt.accountID, "calendarIds": []string{cal.ID},
				"workingHours": map[string]any{"timeZone": zone, "intervals": []any{map[string]string{"day": "monday", "start": "09:00", "end": "17:00"}},
					"overrides": []any{map[string]any{"date": start[:min(len(start), len("2006-01-02"))], "intervals": []any{map[string]string{"start": "22:00", "end": "24:00"}}}}}}},
			"startDateTime": from, "endDateTime": to, "timeZone": queryZone,
			"durationMinutes": minutes, "intervalMinutes": 5 + minutes%1436,
		})
		check("POST", "/v1/availability", string(availability))
	})
}
