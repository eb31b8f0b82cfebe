package apidocs

import (
	"encoding/json"
	"sort"
	"strings"
)

// Examples are made from the document's schemas, not written beside them,
// so an example cannot drift from the contract: a value the schema gives
// (example, const, enum, default) is used as it is, and otherwise one is
// chosen from the type, the format and the field's name. The package's
// tests validate every example against its schema.

// exampleDepth bounds how deep an example unfolds nested objects; a
// schema that refers to itself stops earlier, at its second visit.
const exampleDepth = 12

// example returns a JSON value for s, with every field the schema
// describes; a request's example leaves out the fields the server sets
// (readOnly).
func (d *document) example(s *schema, name string, depth int, seen map[string]bool, request bool) any {
	if s == nil || depth > exampleDepth {
		return nil
	}
	if s.Ref != "" {
		ref := refName(s.Ref)
		target := d.Components.Schemas[ref]
		// Only a schema that holds others can refer back to itself.
		if seen[ref] && target != nil && holdsOthers(target) {
			return nil
		}
		return d.example(target, name, depth, with(seen, ref), request)
	}
	if len(s.Example) > 0 {
		var v any
		if json.Unmarshal(s.Example, &v) == nil {
			return v
		}
	}
	if s.Const != nil {
		return s.Const
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if e != nil {
				return e
			}
		}
	}
	if len(s.Default) > 0 {
		var v any
		if json.Unmarshal(s.Default, &v) == nil && v != nil {
			return v
		}
	}
	if len(s.AllOf) > 0 {
		merged := map[string]any{}
		for _, part := range s.AllOf {
			if m, ok := d.example(part, name, depth, seen, request).(map[string]any); ok {
				for k, v := range m {
					merged[k] = v
				}
			}
		}
		d.addProperties(merged, s, depth, seen, request)
		return merged
	}
	for _, alts := range [][]*schema{s.OneOf, s.AnyOf} {
		for _, alt := range alts {
			if v := d.example(alt, name, depth, seen, request); v != nil || isNullOnly(alt) {
				return v
			}
		}
	}
	switch exampleType(s) {
	case "object":
		obj := map[string]any{}
		d.addProperties(obj, s, depth, seen, request)
		if len(s.Properties) == 0 && len(s.AdditionalProperties) > 0 {
			var extra schema
			if json.Unmarshal(s.AdditionalProperties, &extra) == nil {
				if v := d.example(&extra, "value", depth+1, seen, request); v != nil {
					obj["key"] = v
				}
			}
		}
		return obj
	case "array":
		item := d.example(s.Items, singular(name), depth+1, seen, request)
		if item == nil {
			return []any{}
		}
		return []any{item}
	case "integer":
		return exampleNumber(s, 1)
	case "number":
		return exampleNumber(s, 1.5)
	case "boolean":
		return true
	case "string":
		return exampleString(s, name)
	}
	return nil
}

// addProperties sets obj's example fields from s's properties.
func (d *document) addProperties(obj map[string]any, s *schema, depth int, seen map[string]bool, request bool) {
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := s.Properties[n]
		if prop.ReadOnly && request {
			continue // a request body does not send what the server sets
		}
		v := d.example(prop, n, depth+1, seen, request)
		if v == nil && !required[n] {
			continue
		}
		obj[n] = v
	}
}

// exampleType is the schema's type, the first that is not "null".
func exampleType(s *schema) string {
	var many []string
	if json.Unmarshal(s.Type, &many) != nil {
		many = []string{typeNames(s.Type)}
	}
	for _, t := range many {
		if t != "null" && t != "" {
			return t
		}
	}
	if len(s.Properties) > 0 {
		return "object"
	}
	return ""
}

// holdsOthers reports whether s has fields, items or alternatives: a
// schema that can lead back to itself.
func holdsOthers(s *schema) bool {
	return len(s.Properties) > 0 || s.Items != nil || len(s.AdditionalProperties) > 0 ||
		len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0
}

// isNullOnly reports a schema that allows only null, whose example is nil.
func isNullOnly(s *schema) bool { return typeNames(s.Type) == "null" }

func exampleNumber(s *schema, fallback float64) any {
	v := fallback
	if s.Minimum != nil && v < *s.Minimum {
		v = *s.Minimum
	}
	if s.Maximum != nil && v > *s.Maximum {
		v = *s.Maximum
	}
	if exampleType(s) == "integer" {
		return int64(v)
	}
	return v
}

// exampleString chooses a string that fits the format and reads as what
// the field holds.
func exampleString(s *schema, name string) string {
	v := stringByFormat(s.Format, name)
	if v == "" {
		v = stringByName(name)
	}
	if s.MinLength != nil && len(v) < *s.MinLength {
		v += strings.Repeat("x", *s.MinLength-len(v))
	}
	if s.MaxLength != nil && len(v) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

func stringByFormat(format, name string) string {
	switch format {
	case "date-time":
		return "2030-06-07T09:00:00Z"
	case "date":
		return "2030-06-07"
	case "email":
		return "ada@example.com"
	case "uri", "url":
		return "https://app.example.com/" + strings.ToLower(name)
	case "uuid":
		return "0b5e0c5e-3f0c-4c59-9d7a-6d1c4d5e8a10"
	case "duration":
		return "PT30M"
	}
	return ""
}

// stringByName picks a plausible value from the field's name, so that an
// example reads like a real request rather than "string".
func stringByName(name string) string {
	lower := strings.ToLower(name)
	switch {
	case lower == "timezone" || strings.HasSuffix(lower, "timezone"):
		return "Europe/Berlin"
	case strings.HasPrefix(lower, "end") && strings.HasSuffix(lower, "datetime"):
		return "2030-06-07T17:00:00Z"
	case strings.HasSuffix(lower, "datetime") || strings.HasSuffix(name, "At"):
		return "2030-06-07T09:00:00Z"
	case lower == "date":
		return "2030-06-07"
	case strings.Contains(lower, "email"):
		return "ada@example.com"
	case strings.HasSuffix(lower, "url"):
		return "https://app.example.com/" + lower
	case lower == "enduseraccountid":
		return "acc_7Qm2xK9pLr"
	case lower == "calendarid":
		return "primary"
	case lower == "eventid":
		return "evt_3Fh8sD2kQa"
	case strings.HasSuffix(lower, "id"):
		return strings.TrimSuffix(lower, "id") + "_1a2b3c"
	case strings.Contains(lower, "token"):
		return "opaque-token"
	case lower == "title" || lower == "summary" || lower == "name":
		return "Design review"
	case lower == "description":
		return "Agenda in the linked document."
	case lower == "location":
		return "Room 4.2"
	}
	if name == "" {
		return "text"
	}
	return name
}

// singular names an array's item for the examples' field-name choices
// ("attendees" -> "attendee").
func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "ies"):
		return strings.TrimSuffix(name, "ies") + "y"
	case strings.HasSuffix(name, "s"):
		return strings.TrimSuffix(name, "s")
	}
	return name
}

// exampleJSON renders v as indented JSON for the page.
func exampleJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}
