// Package captable writes the capability table a unical provider
// declares ([unical.CapabilityReporter]): which writable fields it keeps,
// keeps with loss or refuses, grouped by support level, each with its
// note. The Client refuses a write that gives a Refused field a value
// before the provider is called, and GET /v1/capabilities serves the
// table, so the two cannot drift.
package captable

import (
	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/captable"
)

// Fields declares fields (or a parameter's values) by support level:
// each level maps the names declared at that level to their notes.
type Fields = captable.Fields

// NotifyAttendees declares the notifyAttendees parameter: what the
// provider does without it (def) and with each of its values.
func NotifyAttendees(def string, values Fields) map[string]unical.ParameterSupport {
	return captable.NotifyAttendees(def, values)
}

// ReadOnly is the table of a provider whose calendars cannot be written:
// every writable calendar and event field, and every value of every
// parameter, Refused with note, so that each write is refused naming
// the first field it sets.
func ReadOnly(t unical.ProviderType, note string) unical.Capabilities {
	refused := func(names []string) map[string]unical.FieldSupport {
		out := map[string]unical.FieldSupport{}
		for _, name := range names {
			out[name] = unical.FieldSupport{Support: unical.Refused, Note: note}
		}
		return out
	}
	caps := unical.Capabilities{ProviderType: t, Calendar: refused(unical.CalendarFields), Event: refused(unical.EventFields),
		Parameters: map[string]unical.ParameterSupport{}}
	for name, values := range unical.Parameters {
		caps.Parameters[name] = unical.ParameterSupport{Default: note, Values: refused(values)}
	}
	return caps
}
