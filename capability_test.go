package unical_test

import (
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
	p := memory.New(unical.ProviderMicrosoft)
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
	if err := caps.CheckEvent(&unical.EventParams{ColorID: unical.Some("3")}); unical.ErrorCode(err) != unical.CodeInvalid || err.(*unical.Error).Field != "colorId" {
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
