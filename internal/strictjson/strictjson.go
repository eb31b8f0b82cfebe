// Package strictjson decodes JSON into Go values the way unical reads
// every request: an object key must spell a struct field's JSON name
// exactly (encoding/json also takes "Title" for "title"), a key that names
// no field, at any depth, is an error, and so is a key given twice in one
// object (encoding/json keeps the last). Errors name the path of the key
// in the spelling of the API's error bodies: start.tz, attendees[0].mail,
// reminders.overides.
//
// It checks the document against the type first and then leaves the
// decoding to encoding/json, so values, types and their errors are
// exactly encoding/json's.
package strictjson

import (
	"encoding"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Error is a key the type does not take.
type Error struct {
	// Path names the key: "start.tz", "attendees[0].mail".
	Path string
	// Duplicate is true for a key given twice in one object, false for a
	// key that names no field.
	Duplicate bool
}

// Error returns a message for end users.
func (e *Error) Error() string {
	if e.Duplicate {
		return e.Path + " is given more than once."
	}
	return e.Path + " is not a field of this request."
}

// Wrapper is a type whose JSON is that of another type, such as
// unical.Optional[T]: its value is checked as a value of WrappedType.
type Wrapper interface {
	WrappedType() reflect.Type
}

// Unmarshal decodes data into v after checking every object key of data
// against v's type. A key in ignore is taken at the top level without
// being decoded (the read-only fields of a resource sent back whole).
// Values of types with their own UnmarshalJSON or UnmarshalText (other
// than Wrappers) are theirs to check.
func Unmarshal(data []byte, v any, ignore ...string) error {
	c := &checker{dec: json.NewDecoder(strings.NewReader(string(data))), ignore: ignore}
	err := c.value(reflect.TypeOf(v), nil, true)
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	// Syntax errors are encoding/json's to report, with its offsets.
	return json.Unmarshal(data, v)
}

type checker struct {
	dec    *json.Decoder
	ignore []string
}

var (
	wrapperType         = reflect.TypeFor[Wrapper]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// resolve returns the type whose fields t's JSON holds: pointers are
// followed and Wrappers unwrapped. It returns opaque for a type that
// decodes itself, and nil for one that takes any JSON (an interface).
func resolve(t reflect.Type) (resolved reflect.Type, opaque bool) {
	for t != nil {
		if t.Implements(wrapperType) {
			t = reflect.Zero(t).Interface().(Wrapper).WrappedType()
			continue
		}
		if t.Implements(unmarshalerType) || t.Implements(textUnmarshalerType) {
			return nil, true
		}
		if t.Kind() != reflect.Pointer {
			pt := reflect.PointerTo(t)
			if pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType) {
				return nil, true
			}
			if t.Kind() == reflect.Interface {
				return nil, false
			}
			return t, false
		}
		t = t.Elem()
	}
	return nil, false
}

// step is the path to a value, as a list back to the document, spelled
// only for an error: spelling it at every depth made a document nested
// n deep cost time and memory in n squared (a second for 10,000 levels,
// which encoding/json allows, in each element of an array).
type step struct {
	up    *step
	key   string
	index int
	elem  bool // an array element: index counts, key does not
}

func (s *step) String() string {
	var steps []*step
	for ; s != nil; s = s.up {
		steps = append(steps, s)
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		switch st := steps[i]; {
		case st.elem:
			b.WriteString("[" + strconv.Itoa(st.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + st.key)
		default:
			b.WriteString(st.key)
		}
	}
	return b.String()
}

// value reads one value of type t; path names it, top is true for the
// document itself.
func (c *checker) value(t reflect.Type, path *step, top bool) error {
	t, opaque := resolve(t)
	if opaque {
		var skip json.RawMessage
		return c.dec.Decode(&skip)
	}
	tok, err := c.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return c.object(t, path, top)
	case json.Delim('['):
		return c.array(t, path)
	}
	return nil
}

func (c *checker) object(t reflect.Type, path *step, top bool) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	seen := make(map[string]bool)
	for c.dec.More() {
		tok, err := c.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		at := &step{up: path, key: key}
		if seen[key] {
			return &Error{Path: at.String(), Duplicate: true}
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			f, ok := fields[key]
			if !ok && !(top && slices.Contains(c.ignore, key)) {
				return &Error{Path: at.String()}
			}
			ft = f
		}
		if err := c.value(ft, at, false); err != nil {
			return err
		}
	}
	_, err := c.dec.Token()
	return err
}

func (c *checker) array(t reflect.Type, path *step) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; c.dec.More(); i++ {
		if err := c.value(elem, &step{up: path, index: i, elem: true}, false); err != nil {
			return err
		}
	}
	_, err := c.dec.Token()
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// fieldCache holds fieldsOf's answer per struct type.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// fieldsOf returns the JSON names of t's fields with their types, as
// encoding/json sees them: exported fields under their tag's name or
// their own, "-" left out, and the fields of untagged embedded structs
// promoted unless a shallower field has the name.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := make(map[string]reflect.Type)
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fields[name] = sf.Type
	}
	for _, et := range embedded {
		for name, ft := range fieldsOf(et) {
			if _, ok := fields[name]; !ok {
				fields[name] = ft
			}
		}
	}
	fieldCache.Store(t, fields)
	return fields
}
