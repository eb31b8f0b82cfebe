package strictjson_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/strictjson"
)

// wrapped stands for unical.Optional: its JSON is that of T.
type wrapped[T any] struct{ V T }

func (w wrapped[T]) WrappedType() reflect.Type { return reflect.TypeFor[T]() }

func (w *wrapped[T]) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &w.V) }

type when struct {
	DateTime string `json:"dateTime"`
	TimeZone string `json:"timeZone,omitempty"`
}

type person struct {
	Email string `json:"email"`
}

type base struct {
	Kind string `json:"kind"`
}

type body struct {
	base
	Title     string            `json:"title"`
	Start     wrapped[when]     `json:"start"`
	End       *when             `json:"end"`
	Attendees []person          `json:"attendees"`
	Props     map[string]string `json:"props"`
	Raw       json.RawMessage   `json:"raw"`
	Any       any               `json:"any"`
	At        time.Time         `json:"at"`
	Skipped   string            `json:"-"`
	Untagged  int
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		ignore  []string
		want    *strictjson.Error
		wantErr bool // an error of encoding/json
	}{
		{name: "OK", in: `{"kind":"k","title":"t","start":{"dateTime":"x","timeZone":"UTC"},"end":{"dateTime":"y"},"attendees":[{"email":"a"}],"props":{"Any":"v"},"raw":{"x":1,"x":2},"any":{"a":[1]},"at":"2026-01-01T00:00:00Z","Untagged":1}`},
		{name: "ErrCase", in: `{"Title":"t"}`, want: &strictjson.Error{Path: "Title"}},
		{name: "ErrUnknownTop", in: `{"title":"t","bogus":1}`, want: &strictjson.Error{Path: "bogus"}},
		{name: "ErrUnknownInWrapper", in: `{"start":{"dateTime":"x","tz":"UTC"}}`, want: &strictjson.Error{Path: "start.tz"}},
		{name: "ErrUnknownInPointer", in: `{"end":{"datetime":"x"}}`, want: &strictjson.Error{Path: "end.datetime"}},
		{name: "ErrUnknownInArray", in: `{"attendees":[{"email":"a"},{"mail":"b"}]}`, want: &strictjson.Error{Path: "attendees[1].mail"}},
		{name: "ErrDuplicate", in: `{"title":"a","title":"b"}`, want: &strictjson.Error{Path: "title", Duplicate: true}},
		{name: "ErrDuplicateInMap", in: `{"props":{"k":"a","k":"b"}}`, want: &strictjson.Error{Path: "props.k", Duplicate: true}},
		{name: "ErrDuplicateInAny", in: `{"any":[{"k":1,"k":2}]}`, want: &strictjson.Error{Path: "any[0].k", Duplicate: true}},
		{name: "ErrDuplicateDeep", in: `{"any":[[{"":{"k":1,"k":2}}]]}`, want: &strictjson.Error{Path: "any[0][0]..k", Duplicate: true}},
		{name: "ErrSkippedField", in: `{"Skipped":"x"}`, want: &strictjson.Error{Path: "Skipped"}},
		{name: "Ignored", in: `{"id":"e1","title":"t"}`, ignore: []string{"id"}},
		{name: "ErrIgnoredOnlyAtTop", in: `{"end":{"id":"e1"}}`, ignore: []string{"id"}, want: &strictjson.Error{Path: "end.id"}},
		{name: "ErrSyntax", in: `{"title":`, wantErr: true},
		{name: "ErrType", in: `{"title":5}`, wantErr: true},
		{name: "ErrTrailing", in: `{"title":"a"} {}`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var v body
			err := strictjson.Unmarshal([]byte(tc.in), &v, tc.ignore...)
			var got *strictjson.Error
			if errors.As(err, &got) || tc.want != nil {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("Unmarshal(%s) error mismatch (-want +got):\n%s", tc.in, diff)
				}
				return
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("Unmarshal(%s) = %v, want error %v", tc.in, err, tc.wantErr)
			}
		})
	}
}

func TestUnmarshalDecodes(t *testing.T) {
	t.Parallel()
	var got body
	in := `{"kind":"k","title":"t","start":{"dateTime":"x"},"attendees":[{"email":"a"}]}`
	if err := strictjson.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	want := body{base: base{Kind: "k"}, Title: "t", Start: wrapped[when]{V: when{DateTime: "x"}}, Attendees: []person{{Email: "a"}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(body{})); diff != "" {
		t.Fatalf("Unmarshal() mismatch (-want +got):\n%s", diff)
	}
}

// TestUnmarshalDeepNesting checks a body nested as deep as encoding/json
// allows (10,000 levels) in each of several array elements: the path of
// each value was spelled at every depth, so checking it allocated memory
// (and took time) in the square of the depth, half a gigabyte here.
func TestUnmarshalDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	in := `{"attendees":[` + strings.Repeat(deep+",", 3) + deep + `]}`
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var v body
	err := strictjson.Unmarshal([]byte(in), &v)
	runtime.ReadMemStats(&after)
	var e *strictjson.Error
	if err == nil || errors.As(err, &e) {
		t.Fatalf("Unmarshal = %v, want encoding/json's type error", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("checking 4 values nested 9,000 deep allocated %d MB", n>>20)
	}
}
