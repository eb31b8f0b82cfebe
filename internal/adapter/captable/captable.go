// Package captable writes the capability tables providers declare
// ([unical.CapabilityReporter]) grouped by support level, so that a
// provider's table reads as what it keeps, what it keeps with loss and
// what it refuses, each field with its note.
package captable

import (
	"fmt"

	"github.com/unical/unical"
)

// Fields declares fields (or a parameter's values) by support level:
// each level maps the names declared at that level to their notes.
type Fields map[unical.Support]map[string]string

// Table returns f keyed by name, as [unical.Capabilities] holds it. A
// name declared at two levels is a mistake in a provider's static table,
// so it panics, which every provider's New (through
// [unical.CapabilitiesOf]) and its tests reach.
func (f Fields) Table() map[string]unical.FieldSupport {
	table := map[string]unical.FieldSupport{}
	for support, notes := range f {
		for name, note := range notes {
			if prev, ok := table[name]; ok {
				panic(fmt.Sprintf("captable: %q declared both %s and %s", name, prev.Support, support))
			}
			table[name] = unical.FieldSupport{Support: support, Note: note}
		}
	}
	return table
}

// NotifyAttendees declares the notifyAttendees parameter
// ([unical.NotifyAttendeesParameter]): what the provider does without it
// (def) and with each of its values.
func NotifyAttendees(def string, values Fields) map[string]unical.ParameterSupport {
	return map[string]unical.ParameterSupport{
		unical.NotifyAttendeesParameter: {Default: def, Values: values.Table()},
	}
}
