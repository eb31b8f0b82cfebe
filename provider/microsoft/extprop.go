package microsoft

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/unical/unical"
)

// Extended properties. unical keeps an event's public and private extended
// properties in single-value extended properties (MAPI named string
// properties) in its own property set, whose GUID must never change:
//
//   - one property per key, so that Graph can filter on it:
//     String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name public:<key>
//     String {ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0} Name private:<key>
//     with the value as is;
//   - an index, String {...} Name unicalExtendedPropertyIndex, whose value
//     is the JSON object {"public": {...}, "private": {...}} of both maps.
//
// The index exists because Graph returns an extended property only when
// a request expands it by its exact id ("Get
// singleValueLegacyExtendedProperty": $filter with eq on id "is currently
// the only way to get" one), and a reader does not know the keys in
// advance: reading expands the index, filtering uses the per-key
// properties. Both are written in the same request, so they agree.
// Graph documents no way to delete an extended property, so a key that is
// removed keeps its per-key property with an empty value; the index no
// longer lists it, and the Client filters again what Graph returns.
//
// Events written before per-key properties carry only the legacy blob,
// String {...} Name unicalExtendedProperties, with the same JSON. It is
// still read (the index wins when both exist), filtered listings also ask
// for events that carry it, since Graph cannot look inside it, and the
// next write of such an event converts it and empties the blob.
//
// Graph has no per-attendee visibility for item properties, so "private"
// means only that unical does not show it to other accounts; both maps live
// in the organizer's copy of the event.
const (
	extPropSetGUID = "ca0c2986-f925-4dd0-8ce7-12f3db4aa4d0"
	extPropPrefix  = "String {" + extPropSetGUID + "} Name "
	// extIndexID is the index property.
	extIndexID = extPropPrefix + "unicalExtendedPropertyIndex"
	// legacyExtPropID is the single blob of events written before.
	legacyExtPropID = extPropPrefix + "unicalExtendedProperties"
	// expandExtProps makes Graph return the index and the legacy blob.
	expandExtProps = "singleValueExtendedProperties($filter=id eq '" + extIndexID + "' or id eq '" + legacyExtPropID + "')"
)

// extProps is the JSON value of the index (and of the legacy blob).
type extProps struct {
	Public  map[string]string `json:"public,omitempty"`
	Private map[string]string `json:"private,omitempty"`
}

// keyPropID is the id of the per-key property of a public or private key.
func keyPropID(private bool, key string) string {
	if private {
		return extPropPrefix + "private:" + key
	}
	return extPropPrefix + "public:" + key
}

// readExtProps returns an event's extended properties from its index, or
// from the legacy blob of an event written before the index existed.
func readExtProps(g *event) (extProps, error) {
	var index, legacy *singleValueExtendedProperty
	for i := range g.SingleValueExtendedProperties {
		p := &g.SingleValueExtendedProperties[i]
		switch {
		case sameExtPropID(p.ID, extIndexID):
			index = p
		case sameExtPropID(p.ID, legacyExtPropID):
			legacy = p
		}
	}
	src := index
	if src == nil {
		src = legacy
	}
	var props extProps
	if src == nil || src.Value == "" {
		return props, nil
	}
	if err := json.Unmarshal([]byte(src.Value), &props); err != nil {
		return props, unical.WrapError(unical.CodeUpstream, fmt.Errorf("microsoft: extended property value: %w", err), "Microsoft Graph returned event %q in a form unical cannot read.", g.ID)
	}
	return props, nil
}

// hasLegacyBlob reports whether an event still carries a non-empty legacy
// blob.
func hasLegacyBlob(g *event) bool {
	return slices.ContainsFunc(g.SingleValueExtendedProperties, func(p singleValueExtendedProperty) bool {
		return sameExtPropID(p.ID, legacyExtPropID) && p.Value != ""
	})
}

// migrateLegacy adds to a PATCH body what converts an event that still
// carries the legacy blob: its properties per key (unless the body already
// writes them) and an empty blob, so that filtered listings stop asking
// for it.
func migrateLegacy(body map[string]any, cur *event, current *unical.Event) error {
	if !hasLegacyBlob(cur) {
		return nil
	}
	list, _ := body["singleValueExtendedProperties"].([]singleValueExtendedProperty)
	if list == nil {
		props := extProps{Public: current.PublicExtendedProperties, Private: current.PrivateExtendedProperties}
		var err error
		if list, err = extPropsBody(props, extProps{}); err != nil {
			return err
		}
	}
	body["singleValueExtendedProperties"] = append(list, singleValueExtendedProperty{ID: legacyExtPropID, Value: ""})
	return nil
}

// sameExtPropID compares property ids as Graph does: the Name part
// exactly ("Filtering the string name (Name) in the id of an extended
// property is case-sensitive"), the type and GUID ignoring case.
func sameExtPropID(a, b string) bool {
	ia, ib := strings.Index(a, " Name "), strings.Index(b, " Name ")
	if ia < 0 || ib < 0 {
		return strings.EqualFold(a, b)
	}
	return strings.EqualFold(a[:ia], b[:ib]) && a[ia:] == b[ib:]
}

// extPropsBody is the singleValueExtendedProperties of a write that sets
// the maps to props: the index, one property per key, and an empty value
// for each key of prev that props no longer has.
func extPropsBody(props, prev extProps) ([]singleValueExtendedProperty, error) {
	b, err := json.Marshal(props)
	if err != nil {
		return nil, unical.WrapError(unical.CodeInternal, err, "Cannot encode extended properties.")
	}
	out := []singleValueExtendedProperty{{ID: extIndexID, Value: string(b)}}
	add := func(private bool, now, before map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(now)) {
			out = append(out, singleValueExtendedProperty{ID: keyPropID(private, k), Value: now[k]})
		}
		for _, k := range slices.Sorted(maps.Keys(before)) {
			if _, ok := now[k]; !ok {
				out = append(out, singleValueExtendedProperty{ID: keyPropID(private, k), Value: ""})
			}
		}
	}
	add(false, props.Public, prev.Public)
	add(true, props.Private, prev.Private)
	return out, nil
}

// metadataFilter is the Graph $filter for a metadataFilters query, or ""
// when there is none: every key must have its value, or the event carries
// a non-empty legacy blob (which Graph cannot look into; the Client
// filters it).
// Graph compares values ignoring case, so the Client's own filtering of
// what comes back is what makes the match exact.
func metadataFilter(f *unical.MetadataFilters) string {
	if f == nil || len(f.Public)+len(f.Private) == 0 {
		return ""
	}
	var terms []string
	add := func(private bool, m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			terms = append(terms, "singleValueExtendedProperties/Any(ep: ep/id eq '"+odataQuote(keyPropID(private, k))+"' and ep/value eq '"+odataQuote(m[k])+"')")
		}
	}
	add(false, f.Public)
	add(true, f.Private)
	return "(" + strings.Join(terms, " and ") + ") or singleValueExtendedProperties/Any(ep: ep/id eq '" + legacyExtPropID + "' and ep/value ne '')"
}

// odataQuote doubles each single quote, as OData string literals require.
func odataQuote(s string) string { return strings.ReplaceAll(s, "'", "''") }
