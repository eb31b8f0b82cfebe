package strictjson_test

import (
	"encoding/json"
	"testing"

	"github.com/unical/unical/internal/strictjson"
)

// fuzzTarget has the shapes request bodies have: nested objects, lists of
// objects, maps, pointers, embedded fields and a type that reads itself.
type fuzzTarget struct {
	Title    string            `json:"title"`
	Start    *fuzzTime         `json:"start"`
	People   []fuzzPerson      `json:"attendees"`
	Props    map[string]string `json:"props"`
	Count    int               `json:"count,omitempty"`
	Raw      json.RawMessage   `json:"raw"`
	Skipped  string            `json:"-"`
	fuzzBase                   // embedded: its fields are the target's
	Anything any               `json:"anything"`
}

type fuzzBase struct {
	ID string `json:"id"`
}

type fuzzTime struct {
	DateTime string `json:"dateTime"`
	TimeZone string `json:"timeZone"`
}

type fuzzPerson struct {
	Email string    `json:"email"`
	Rsvp  *fuzzTime `json:"rsvp"`
}

// FuzzUnmarshal: on any input, strictjson never panics, never accepts what
// encoding/json refuses, and what it accepts decodes to the value
// encoding/json makes of it.
func FuzzUnmarshal(f *testing.F) {
	for _, seed := range []string{
		`{"title":"x","start":{"dateTime":"2026-01-01T00:00:00Z","timeZone":"UTC"}}`,
		`{"attendees":[{"email":"a@example.com"},{"mail":"b"}]}`,
		`{"title":"a","title":"b"}`,
		`{"Title":"x"}`,
		`{"props":{"k":"v","k":"w"},"raw":{"any":[1,2,{"x":null}]},"id":"e1"}`,
		`{"anything":{"a":{"a":{"a":1}}},"count":1e3}`,
		`[1,2]`, `null`, `{"start":null,"attendees":null}`, `{"-":1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strict, plain fuzzTarget
		strictErr := strictjson.Unmarshal(data, &strict)
		plainErr := json.Unmarshal(data, &plain)
		if strictErr == nil && plainErr != nil {
			t.Fatalf("strictjson accepted what encoding/json refuses (%v): %q", plainErr, data)
		}
		if strictErr != nil {
			return
		}
		a, _ := json.Marshal(strict)
		b, _ := json.Marshal(plain)
		if string(a) != string(b) {
			t.Fatalf("decoded differently:\nstrict %s\nplain  %s\ninput  %q", a, b, data)
		}
	})
}
