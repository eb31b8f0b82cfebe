package httpwire

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzInvalidUTF8Field checks that naming the field of invalid UTF-8 never
// panics and always names something, and that a bad string under a key of
// a valid object is named by that key.
func FuzzInvalidUTF8Field(f *testing.F) {
	f.Add([]byte("{\"a\":\"\xff\"}"), "k")
	f.Add([]byte("{\"a\":[{\"b\":\"x\xfe\"}]}"), "title")
	f.Add([]byte("[[[{\"\xff\":1}]]]"), "a.b")
	f.Add([]byte("\xff{"), "")
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		if got := invalidUTF8Field(body); got == "" {
			t.Errorf("invalidUTF8Field(%q) is empty", body)
		}
		if !utf8.ValidString(key) || key == "" {
			return
		}
		enc, err := json.Marshal(key)
		if err != nil {
			t.Fatal(err)
		}
		doc := []byte(`{"ok":1,` + string(enc) + ":\"bad \xff\",\"z\":2}")
		if got := invalidUTF8Field(doc); got != key {
			t.Errorf("invalidUTF8Field(%q) = %q, want %q", doc, got, key)
		}
	})
}
