package graphtest_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

// TestExtendedPropertyQueries covers the $expand and $filter forms of
// "Get singleValueLegacyExtendedProperty" the fake implements.
func TestExtendedPropertyQueries(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	const (
		team  = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name team"
		Team  = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name Team"
		stage = "String {66f5a359-4659-4830-9070-00047ec6ac6e} Name stage"
	)
	create := func(subject string, props map[string]string) string {
		var list []any
		for id, v := range props {
			list = append(list, map[string]any{"id": id, "value": v})
		}
		r := f.do(t, http.MethodPost, "/v1.0/me/events", map[string]any{
			"subject":                       subject,
			"start":                         map[string]any{"dateTime": "2025-03-10T09:00:00", "timeZone": "UTC"},
			"end":                           map[string]any{"dateTime": "2025-03-10T10:00:00", "timeZone": "UTC"},
			"singleValueExtendedProperties": list,
		})
		mustStatus(t, r, http.StatusCreated)
		return r.str("id")
	}
	a := create("a", map[string]string{team: "Red", stage: "draft"})
	create("b", map[string]string{team: "blue", stage: "draft"})
	create("c", map[string]string{Team: "red"})

	t.Run("ExpandSeveralIDs", func(t *testing.T) {
		q := url.Values{"$expand": {"singleValueExtendedProperties($filter=id eq '" + team + "' or id eq '" + stage + "')"}}
		r := f.do(t, http.MethodGet, "/v1.0/me/events/"+a+"?"+q.Encode(), nil)
		mustStatus(t, r, http.StatusOK)
		got, _ := r.body["singleValueExtendedProperties"].([]any)
		if len(got) != 2 {
			t.Errorf("expanded %v, want both properties", got)
		}
	})

	tests := []struct {
		filter string
		want   []string
	}{
		// Values compare ignoring case; the Name in an id does not.
		{"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "' and ep/value eq 'red')", []string{"a"}},
		{"singleValueExtendedProperties/Any(ep: ep/id eq '" + Team + "' and ep/value eq 'red')", []string{"c"}},
		{"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "')", []string{"a", "b"}},
		{"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "' and ep/value ne 'RED')", []string{"b"}},
		{"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "' and ep/value eq 'blue') and singleValueExtendedProperties/Any(ep: ep/id eq '" + stage + "' and ep/value eq 'draft')", []string{"b"}},
		{"(singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "' and ep/value eq 'blue') and singleValueExtendedProperties/Any(ep: ep/id eq '" + stage + "' and ep/value eq 'final')) or singleValueExtendedProperties/Any(ep: ep/id eq '" + Team + "')", []string{"c"}},
	}
	for _, tc := range tests {
		r := f.do(t, http.MethodGet, "/v1.0/me/calendar/events?"+url.Values{"$filter": {tc.filter}}.Encode(), nil)
		mustStatus(t, r, http.StatusOK)
		var got []string
		for _, v := range r.values() {
			got = append(got, v["subject"].(string))
		}
		slices.Sort(got)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("$filter=%s (-want +got):\n%s", tc.filter, diff)
		}
	}

	for _, bad := range []string{
		"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "' and startswith(ep/value, 'r'))",
		"singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "') or",
		"(singleValueExtendedProperties/Any(ep: ep/id eq '" + team + "')",
		"subject eq 'a'",
	} {
		r := f.do(t, http.MethodGet, "/v1.0/me/calendar/events?"+url.Values{"$filter": {bad}}.Encode(), nil)
		mustStatus(t, r, http.StatusBadRequest)
	}
}
