package httpapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
)

// refusingProvider is the in-memory provider declaring that it cannot
// keep customColor or a calendar's timeZone.
type refusingProvider struct{ *memory.Provider }

func (refusingProvider) Capabilities() unical.Capabilities {
	return unical.Capabilities{
		Calendar: map[string]unical.FieldSupport{"timeZone": {Support: unical.Refused, Note: "Calendars have no time zone here."}},
		Event:    map[string]unical.FieldSupport{"customColor": {Support: unical.Refused, Note: "Events have no colour here."}},
	}
}

// TestCapabilities: GET /v1/capabilities serves each provider's table,
// and a write giving a value to a field the table refuses is a 400 naming
// it, with nothing written; an empty value of the same field is accepted.
func TestCapabilities(t *testing.T) {
	t.Parallel()
	var refusing unical.Provider
	ts := MustNewServerWith(t, func(p *memory.Provider) unical.Provider {
		refusing = refusingProvider{p}
		return refusing
	})
	var got unical.CapabilityList
	ts.must(t, "GET", "/v1/capabilities", nil).Into(t, &got)
	var types []unical.ProviderType
	for _, c := range got.Data {
		types = append(types, c.ProviderType)
	}
	if diff := cmp.Diff(unical.ProviderTypes, types); diff != "" {
		t.Errorf("provider types mismatch (-want +got):\n%s", diff)
	}
	want, err := unical.CapabilitiesOf(refusing)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Data[0]); diff != "" {
		t.Errorf("PROVIDER_A capabilities mismatch (-want +got):\n%s", diff)
	}
	if s := got.Data[0].Event["customColor"].Support; s != unical.Refused {
		t.Errorf("customColor support = %q, want refused", s)
	}
	if s := got.Data[1].Event["customColor"].Support; s != unical.Supported {
		t.Errorf("PROVIDER_B (no declaration) customColor support = %q, want supported", s)
	}

	acct := ts.mustConnect(t)[unical.ProviderGoogle]
	events := "/v1/events/" + acct + "/" + esc("primary/"+googleUser)
	r := ts.do(t, "POST", events, map[string]any{"title": "Colourful", "start": map[string]any{"dateTime": "2027-03-01T09:00:00Z"}, "customColor": "#ff0000"})
	wantError(t, "POST event with customColor", r, 400, "invalid_request", "customColor")
	r = ts.do(t, "POST", "/v1/calendars/"+acct, map[string]any{"name": "Zoned", "timeZone": "Europe/Paris"})
	wantError(t, "POST calendar with timeZone", r, 400, "invalid_request", "timeZone")
	var list unical.SyncPage[*unical.Event]
	ts.must(t, "GET", events, nil).Into(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("a refused write left %d events", len(list.Data))
	}
	ts.must(t, "POST", events, map[string]any{"title": "Plain", "start": map[string]any{"dateTime": "2027-03-01T09:00:00Z"}, "customColor": ""})
}
