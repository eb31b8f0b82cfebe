package microsoft

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// graph sends a request straight to the fake Graph as the fixture's user
// and decodes the answer into out (when not nil).
func (f *fixture) graph(t *testing.T, method, path string, body, out any) {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, f.srv.GraphBaseURL()+path, r)
	req.Header.Set("Authorization", "Bearer "+f.srv.IssueAccessToken("app", f.userID))
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s = %d", method, path, resp.StatusCode)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// storedProps returns the values Graph holds for the given property ids
// of an event, as $expand shows them.
func (f *fixture) storedProps(t *testing.T, eventID string, ids ...string) map[string]string {
	t.Helper()
	filter := ""
	for i, id := range ids {
		if i > 0 {
			filter += " or "
		}
		filter += "id eq '" + id + "'"
	}
	q := url.Values{"$expand": {"singleValueExtendedProperties($filter=" + filter + ")"}}
	var g event
	f.graph(t, "GET", "/me/events/"+eventID+"?"+q.Encode(), nil, &g)
	out := map[string]string{}
	for _, p := range g.SingleValueExtendedProperties {
		out[p.ID] = p.Value
	}
	return out
}

func (f *fixture) titles(t *testing.T, s *unical.Session, calID string, q *unical.EventQuery) []string {
	t.Helper()
	b, err := f.p.ListEvents(t.Context(), s, calID, q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range b.Events {
		out = append(out, e.Title)
	}
	slices.Sort(out)
	return out
}

// TestExtendedPropertiesPerKey: each key is its own single-value extended
// property, Graph filters listings on them with $filter, a removed key no
// longer matches, and events written with the old single JSON blob are
// read, found by filtered listings, and converted by their next write.
func TestExtendedPropertiesPerKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, _ := f.session(t)
	cal := f.srv.DefaultCalendarID(f.userID)
	create := func(title string, public, private map[string]string) *unical.Event {
		t.Helper()
		e, err := f.p.CreateEvent(t.Context(), s, cal, &unical.EventParams{
			Title:                    unical.Some(title),
			Start:                    unical.Some(unical.EventDateTime{DateTime: "2026-04-01T09:00:00Z"}),
			End:                      unical.Some(unical.EventDateTime{DateTime: "2026-04-01T10:00:00Z"}),
			PublicExtendedProperties: unical.Some(public), PrivateExtendedProperties: unical.Some(private),
		})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := create("A", map[string]string{"team": "red", "stage": "draft"}, map[string]string{"crm": "42"})
	create("B", map[string]string{"team": "blue", "stage": "draft"}, nil)

	team, stage, crm := keyPropID(false, "team"), keyPropID(false, "stage"), keyPropID(true, "crm")
	want := map[string]string{team: "red", stage: "draft", crm: "42"}
	if diff := cmp.Diff(want, f.storedProps(t, a.ID, team, stage, crm)); diff != "" {
		t.Errorf("per-key properties at Graph (-want +got):\n%s", diff)
	}

	// A legacy event: only the JSON blob, as written before.
	var legacy event
	f.graph(t, "POST", "/me/events", map[string]any{
		"subject":                       "Legacy",
		"start":                         map[string]any{"dateTime": "2026-04-02T09:00:00", "timeZone": "UTC"},
		"end":                           map[string]any{"dateTime": "2026-04-02T10:00:00", "timeZone": "UTC"},
		"singleValueExtendedProperties": []any{map[string]any{"id": legacyExtPropID, "value": `{"public":{"team":"red"},"private":{"crm":"7"}}`}},
	}, &legacy)
	got, err := f.p.GetEvent(t.Context(), s, cal, legacy.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]string{{"team": "red"}, {"crm": "7"}}, []map[string]string{got.PublicExtendedProperties, got.PrivateExtendedProperties}); diff != "" {
		t.Errorf("legacy event's properties (-want +got):\n%s", diff)
	}

	// Graph does the filtering (the provider hands back what Graph sent;
	// the Client filters again). Legacy events come along, since Graph
	// cannot look into the blob.
	tests := []struct {
		name   string
		filter unical.MetadataFilters
		want   []string
	}{
		{"one key", unical.MetadataFilters{Public: map[string]string{"team": "red"}}, []string{"A", "Legacy"}},
		{"two keys", unical.MetadataFilters{Public: map[string]string{"team": "blue", "stage": "draft"}}, []string{"B", "Legacy"}},
		{"private key", unical.MetadataFilters{Private: map[string]string{"crm": "42"}}, []string{"A", "Legacy"}},
		{"quote in value", unical.MetadataFilters{Public: map[string]string{"team": "o'brien"}}, []string{"Legacy"}},
	}
	for _, tc := range tests {
		for _, expand := range []bool{false, true} {
			q := &unical.EventQuery{Metadata: &tc.filter}
			if expand {
				q.SingleEvents, q.TimeMin, q.TimeMax = true, mustTime(t, "2026-03-01T00:00:00Z"), mustTime(t, "2026-05-01T00:00:00Z")
			}
			if diff := cmp.Diff(tc.want, f.titles(t, s, cal, q)); diff != "" {
				t.Errorf("%s (expanded %v) (-want +got):\n%s", tc.name, expand, diff)
			}
		}
	}

	// Removing a key blanks its property: it no longer matches.
	if _, err := f.p.UpdateEvent(t.Context(), s, cal, a.ID, &unical.EventParams{PublicExtendedProperties: unical.Some(map[string]string{"team": "red"})}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{team: "red", stage: ""}, f.storedProps(t, a.ID, team, stage)); diff != "" {
		t.Errorf("after removing stage (-want +got):\n%s", diff)
	}
	draft := &unical.EventQuery{Metadata: &unical.MetadataFilters{Public: map[string]string{"stage": "draft"}}}
	if diff := cmp.Diff([]string{"B", "Legacy"}, f.titles(t, s, cal, draft)); diff != "" {
		t.Errorf("stage=draft after removing A's stage (-want +got):\n%s", diff)
	}

	// Any write of the legacy event converts it to per-key properties.
	if _, err := f.p.UpdateEvent(t.Context(), s, cal, legacy.ID, &unical.EventParams{Title: unical.Some("Converted")}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{team: "red", crm: "7", legacyExtPropID: ""}, f.storedProps(t, legacy.ID, team, crm, legacyExtPropID)); diff != "" {
		t.Errorf("legacy event after a write (-want +got):\n%s", diff)
	}
	// Converted, it is found by its own properties only.
	blue := &unical.EventQuery{Metadata: &unical.MetadataFilters{Public: map[string]string{"team": "blue"}}}
	red := &unical.EventQuery{Metadata: &unical.MetadataFilters{Public: map[string]string{"team": "red"}}}
	if diff := cmp.Diff([][]string{{"B"}, {"A", "Converted"}}, [][]string{f.titles(t, s, cal, blue), f.titles(t, s, cal, red)}); diff != "" {
		t.Errorf("team=blue and team=red after the conversion (-want +got):\n%s", diff)
	}
	got, err = f.p.GetEvent(t.Context(), s, cal, legacy.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]string{{"team": "red"}, {"crm": "7"}}, []map[string]string{got.PublicExtendedProperties, got.PrivateExtendedProperties}); diff != "" {
		t.Errorf("converted event's properties (-want +got):\n%s", diff)
	}
}
