package captable_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
)

func TestFields_Table(t *testing.T) {
	t.Parallel()
	got := captable.Fields{
		unical.Supported: {"colorId": "From the palette."},
		unical.Refused:   {"customColor": "No custom colours.", "timeZone": ""},
	}.Table()
	want := map[string]unical.FieldSupport{
		"colorId":     {Support: unical.Supported, Note: "From the palette."},
		"customColor": {Support: unical.Refused, Note: "No custom colours."},
		"timeZone":    {Support: unical.Refused},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Table() mismatch (-want +got):\n%s", diff)
	}
}

func TestFields_Table_PanicsOnTwoLevels(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("Table() of a field declared at two levels did not panic")
		}
	}()
	captable.Fields{
		unical.Supported: {"colorId": "Kept."},
		unical.Refused:   {"colorId": "Refused."},
	}.Table()
}

func TestNotifyAttendees(t *testing.T) {
	t.Parallel()
	got := captable.NotifyAttendees("Nothing is sent.", captable.Fields{
		unical.Supported: {"false": "As always."},
		unical.Refused:   {"true": "No mail service."},
	})
	want := map[string]unical.ParameterSupport{
		unical.NotifyAttendeesParameter: {
			Default: "Nothing is sent.",
			Values: map[string]unical.FieldSupport{
				"false": {Support: unical.Supported, Note: "As always."},
				"true":  {Support: unical.Refused, Note: "No mail service."},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NotifyAttendees() mismatch (-want +got):\n%s", diff)
	}
}
