package unical

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"

	"github.com/unical/unical/internal/strictjson"
)

// Optional is a field of an update that can be absent, explicitly null, or
// set to a value. Updates leave absent fields alone and clear null ones, as
// docs/api.md describes. The zero value is absent.
type Optional[T any] struct {
	value T
	set   bool
	null  bool
}

// Some returns an Optional set to v.
func Some[T any](v T) Optional[T] { return Optional[T]{value: v, set: true} }

// Null returns an Optional that clears the field.
func Null[T any]() Optional[T] { return Optional[T]{set: true, null: true} }

// IsSet reports whether the field was given at all, as a value or as null.
func (o Optional[T]) IsSet() bool { return o.set }

// IsNull reports whether the field was given as null.
func (o Optional[T]) IsNull() bool { return o.set && o.null }

// Get returns the value and whether one was given (false for absent and null).
func (o Optional[T]) Get() (T, bool) { return o.value, o.set && !o.null }

// Value returns the value, or the zero value when absent or null.
func (o Optional[T]) Value() T { return o.value }

// Apply writes o onto *dst as an update does: its value, or the zero
// value for null; an absent o leaves *dst alone.
func (o Optional[T]) Apply(dst *T) {
	if o.set {
		*dst = o.value
	}
}

// Ptr returns a pointer to a copy of the value, or nil when o is absent
// or null: the form a stored record keeps an optional field in.
func (o Optional[T]) Ptr() *T {
	if v, ok := o.Get(); ok {
		return &v
	}
	return nil
}

// IsZero reports whether the field is absent; it makes `omitzero` skip it.
func (o Optional[T]) IsZero() bool { return !o.set }

// MarshalJSON writes the value, or null.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.set || o.null {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON records that the field was present, and whether it was null.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.null = true
		var zero T
		o.value = zero
		return nil
	}
	o.null = false
	return json.Unmarshal(b, &o.value)
}

// WrappedType returns T's type, so that package internal/strictjson checks
// the JSON of an Optional field as strictly as that of a plain one.
func (o Optional[T]) WrappedType() reflect.Type { return reflect.TypeFor[T]() }

// unmarshalStrict decodes b into v as the HTTP API reads request bodies
// (see internal/strictjson): keys spelled exactly, none unknown at any
// depth, none twice. The keys in ignore are taken at the top level and
// not decoded. A refused key is CodeInvalid naming its path.
func unmarshalStrict(b []byte, v any, ignore []string) error {
	err := strictjson.Unmarshal(b, v, ignore...)
	var e *strictjson.Error
	if errors.As(err, &e) {
		return invalidf(e.Path, "%s", e.Error())
	}
	return err
}
