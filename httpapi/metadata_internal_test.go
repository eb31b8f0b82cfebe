package httpapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func TestParseMetadataFilters(t *testing.T) {
	t.Parallel()
	f, err := parseMetadataFilters(`{"private":{"crm":"42"},"public":{"team":"a"}}`)
	if err != nil {
		t.Fatal(err)
	}
	match := &unical.Event{PrivateExtendedProperties: map[string]string{"crm": "42", "x": "y"}, PublicExtendedProperties: map[string]string{"team": "a"}}
	wrongValue := &unical.Event{PrivateExtendedProperties: map[string]string{"crm": "43"}, PublicExtendedProperties: map[string]string{"team": "a"}}
	wrongSide := &unical.Event{PublicExtendedProperties: map[string]string{"crm": "42", "team": "a"}}
	if got := []bool{f.Match(match), f.Match(wrongValue), f.Match(wrongSide)}; !cmp.Equal(got, []bool{true, false, false}) {
		t.Errorf("Match = %v, want [true false false]", got)
	}
	for _, bad := range []string{`[]`, `{"secret":{}}`, `{"private":{"a":1}}`, `{} {}`, `{`} {
		if _, err := parseMetadataFilters(bad); unical.ErrorCode(err) != unical.CodeInvalid {
			t.Errorf("ParseMetadataFilters(%s) error code = %q, want invalid", bad, unical.ErrorCode(err))
		}
	}
}
