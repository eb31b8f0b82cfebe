package httpwire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/unical/unical"
)

// invalidUTF8 is the 400 of a body that is not valid UTF-8. It names the
// field whose string holds the bad bytes ("body" when they are in a key or
// outside any field), in the spelling of FieldError: start.dateTime,
// attendees[0].email.
func invalidUTF8(body []byte) error {
	field := invalidUTF8Field(body)
	return unical.FieldError(field, "%s is not valid UTF-8.", field)
}

// jsonFrame is an object or array being read by invalidUTF8Field.
type jsonFrame struct {
	object  bool
	wantKey bool   // object: the next string is a key
	key     string // object: the member being read
	index   int    // array: the element being read
}

// invalidUTF8Field walks body's tokens and returns the path of the first
// one whose raw bytes are not valid UTF-8. The decoder's own tokens cannot
// tell (it has replaced the bad bytes), so each token's raw bytes are
// checked between its input offsets.
func invalidUTF8Field(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []jsonFrame
	var prev int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return "body"
		}
		end := dec.InputOffset()
		raw := body[prev:end]
		prev = end
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].wantKey
		if !utf8.Valid(raw) {
			if isKey {
				return jsonPath(stack[:top])
			}
			return jsonPath(stack)
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, jsonFrame{object: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, jsonFrame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			top--
		default:
			if isKey {
				stack[top].key, stack[top].wantKey = tok.(string), false
				continue
			}
		}
		// A value ended: its container moves on to the next member.
		if top >= 0 {
			if stack[top].object {
				stack[top].wantKey = true
			} else {
				stack[top].index++
			}
		}
	}
}

// jsonPath spells the member being read in each frame, or "body" for none.
func jsonPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}
