package unical_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/memory"
)

// declaring is the in-memory provider with a fixed declaration.
type declaring struct {
	*memory.Provider
	caps unical.Capabilities
}

func (d declaring) Capabilities() unical.Capabilities { return d.caps }

// TestCapabilitiesOf: declarations replace the defaults, every other field
// is supported, and a declaration of a field that is not writable or of
// an unknown support level is an error, so a table cannot name a field the
// check would never look at.
func TestCapabilitiesOf(t *testing.T) {
	t.Parallel()
	p := memory.New(memory.Config{Type: unical.ProviderMicrosoft})
	caps, err := unical.CapabilitiesOf(declaring{p, unical.Capabilities{
		Event: map[string]unical.FieldSupport{"colorId": {Support: unical.Refused, Note: "No palette."}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]unical.FieldSupport{"colorId": caps.Event["colorId"], "title": caps.Event["title"], "name": caps.Calendar["name"]}
	want := map[string]unical.FieldSupport{"colorId": {Support: unical.Refused, Note: "No palette."}, "title": {Support: unical.Supported}, "name": {Support: unical.Supported}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CapabilitiesOf() mismatch (-want +got):\n%s", diff)
	}
	if err := caps.CheckEvent(&unical.EventParams{ColorID: unical.Some("3")}); unical.ErrorCode(err) != unical.CodeInvalid || fieldOf(err) != "colorId" {
		t.Errorf("CheckEvent(colorId) = %v, want invalid naming colorId", err)
	}
	if err := caps.CheckEvent(&unical.EventParams{ColorID: unical.Null[string](), Title: unical.Some("x")}); err != nil {
		t.Errorf("CheckEvent(colorId null) = %v, want nil", err)
	}
	for name, bad := range map[string]unical.Capabilities{
		"unknown field":   {Event: map[string]unical.FieldSupport{"colour": {Support: unical.Refused}}},
		"read-only field": {Calendar: map[string]unical.FieldSupport{"isPrimary": {Support: unical.Refused}}},
		"unknown support": {Event: map[string]unical.FieldSupport{"title": {Support: "maybe"}}},
	} {
		if _, err := unical.CapabilitiesOf(declaring{p, bad}); err == nil {
			t.Errorf("%s: CapabilitiesOf() = nil error", name)
		}
	}
}

// TestCapabilityFieldsAreTheParams: the fields a table covers are exactly
// the JSON fields of EventParams and CalendarParams, so a writable field
// added later cannot escape the table (and the round-trip test of
// provider/providertest, which covers every one).
func TestCapabilityFieldsAreTheParams(t *testing.T) {
	t.Parallel()
	names := func(v any) []string {
		var out []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
		return out
	}
	if diff := cmp.Diff(names(unical.EventParams{}), unical.EventFields); diff != "" {
		t.Errorf("EventFields mismatch (-EventParams +EventFields):\n%s", diff)
	}
	if diff := cmp.Diff(names(unical.CalendarParams{}), unical.CalendarFields); diff != "" {
		t.Errorf("CalendarFields mismatch (-CalendarParams +CalendarFields):\n%s", diff)
	}
}

// fieldOf is the field an *unical.Error names, "" for any other error.
func fieldOf(err error) string {
	var e *unical.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
