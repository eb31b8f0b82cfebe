package unical_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

func TestOptional_JSON(t *testing.T) {
	t.Parallel()
	type body struct {
		Name unical.Optional[string] `json:"name,omitzero"`
	}
	tests := []struct {
		name              string
		in                string
		wantSet, wantNull bool
		wantValue         string
		wantRoundTrip     string
	}{
		{"Absent", `{}`, false, false, "", `{}`},
		{"Null", `{"name":null}`, true, true, "", `{"name":null}`},
		{"Value", `{"name":"x"}`, true, false, "x", `{"name":"x"}`},
		{"Empty", `{"name":""}`, true, false, "", `{"name":""}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b body
			if err := json.Unmarshal([]byte(tc.in), &b); err != nil {
				t.Fatal(err)
			}
			v, ok := b.Name.Get()
			got := []any{b.Name.IsSet(), b.Name.IsNull(), v, ok}
			want := []any{tc.wantSet, tc.wantNull, tc.wantValue, tc.wantSet && !tc.wantNull}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("set, null, value, ok mismatch (-want +got):\n%s", diff)
			}
			out, err := json.Marshal(b)
			if err != nil || string(out) != tc.wantRoundTrip {
				t.Errorf("Marshal = %s, %v; want %s", out, err, tc.wantRoundTrip)
			}
		})
	}
}

func TestOptional_Apply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    unical.Optional[string]
		want string
	}{
		{"Absent", unical.Optional[string]{}, "old"},
		{"Null", unical.Null[string](), ""},
		{"Value", unical.Some("new"), "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := "old"
			tc.o.Apply(&got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Apply() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptional_Ptr(t *testing.T) {
	t.Parallel()
	value := "new"
	tests := []struct {
		name string
		o    unical.Optional[string]
		want *string
	}{
		{"Absent", unical.Optional[string]{}, nil},
		{"Null", unical.Null[string](), nil},
		{"Value", unical.Some("new"), &value},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.o.Ptr()); diff != "" {
				t.Errorf("Ptr() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
