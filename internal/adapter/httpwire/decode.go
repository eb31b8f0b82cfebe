package httpwire

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/strictjson"
)

// MaxBodyBytes is the largest request body accepted: 1 MiB.
const MaxBodyBytes = 1 << 20

// DecodeJSON reads a JSON object into v: at most MaxBodyBytes, keys spelled
// exactly, no unknown field at any depth, no key twice, none of readOnly,
// nothing after the object. Each failure is a 400 (413 for size) naming
// the field where there is one. An update passes no readOnly: the
// resource's read-only fields are then taken, so that a fetched resource
// can be sent back, and ignored by v's UnmarshalJSON.
func DecodeJSON(w http.ResponseWriter, r *http.Request, v any, readOnly []string) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return unical.FieldError("Content-Type", "Send the body as application/json.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return unical.Errorf(unical.CodeTooLarge, "The request body is larger than 1 MiB.")
		}
		return unical.Errorf(unical.CodeInvalid, "The request body could not be read.")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return unical.Errorf(unical.CodeInvalid, "A JSON request body is required.")
	}
	// encoding/json would turn invalid UTF-8 into U+FFFD without a word.
	if !utf8.Valid(body) {
		return invalidUTF8(body)
	}
	// One object and nothing after it: encoding/json refuses the rest.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return syntaxError(err)
	}
	for _, name := range readOnly {
		if _, ok := fields[name]; ok {
			return unical.FieldError(name, "%s is read-only.", name)
		}
	}
	if err := strictjson.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

func syntaxError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return unical.Errorf(unical.CodeInvalid, "The request body is not valid JSON (at byte %d).", syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		return unical.Errorf(unical.CodeInvalid, "The request body must be a JSON object.")
	}
	return unical.Errorf(unical.CodeInvalid, "The request body is not valid JSON.")
}

// decodeError names the field of a decoding failure.
func decodeError(err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := typ.Field
		if field == "" {
			return unical.Errorf(unical.CodeInvalid, "The request body must be a JSON object.")
		}
		return unical.FieldError(field, "%s must be %s, not %s.", field, jsonType(typ.Type.Kind().String()), typ.Value)
	}
	var e *unical.Error
	if errors.As(err, &e) {
		return e
	}
	var key *strictjson.Error
	if errors.As(err, &key) {
		return unical.FieldError(key.Path, "%s", key.Error())
	}
	return syntaxError(err)
}

// jsonType names a Go kind as a JSON type.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "float64", "uint":
		return "a number"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "another type"
}
