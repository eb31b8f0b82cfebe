package openapienum_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/adapter/openapienum"
)

const doc = `{"a": {"enum": ["PROVIDER_A", "VIRTUAL"], "x-unical-enum": "providerTypes"}, "b": {"enum": ["PROVIDER_A"]}, "c": [{"enum": ["x"], "x-unical-enum": "other"}]}`

func TestFill(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lists map[string][]string
		want  map[string][]string // enum of a, b and c[0]
		same  bool                // the document's own bytes
	}{
		{"Unchanged", map[string][]string{"providerTypes": {"PROVIDER_A", "VIRTUAL"}}, nil, true},
		{"Fewer", map[string][]string{"providerTypes": {"VIRTUAL"}}, nil, true},
		{"Added", map[string][]string{"providerTypes": {"PROVIDER_A", "ICS_FEED"}},
			map[string][]string{"a": {"PROVIDER_A", "VIRTUAL", "ICS_FEED"}, "b": {"PROVIDER_A"}, "c": {"x"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := openapienum.Fill([]byte(doc), tc.lists)
			if err != nil {
				t.Fatal(err)
			}
			if tc.same {
				if !bytes.Equal(got, []byte(doc)) {
					t.Errorf("Fill() = %s, want the document as written", got)
				}
				return
			}
			var d struct {
				A, B struct{ Enum []string }
				C    []struct{ Enum []string }
			}
			if err := json.Unmarshal(got, &d); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, map[string][]string{"a": d.A.Enum, "b": d.B.Enum, "c": d.C[0].Enum}); diff != "" {
				t.Errorf("Fill() enums (-want +got):\n%s", diff)
			}
		})
	}
}
