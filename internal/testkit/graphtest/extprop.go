package graphtest

import (
	"net/http"
	"regexp"
	"strings"
)

// Single-value extended properties follow
// https://learn.microsoft.com/graph/api/resources/singlevaluelegacyextendedproperty
// and "Get singleValueLegacyExtendedProperty",
// https://learn.microsoft.com/graph/api/singlevaluelegacyextendedproperty-get
// (microsoft-graph-docs-contrib api-reference/v1.0/resources/
// singlevaluelegacyextendedproperty.md and
// api/singlevaluelegacyextendedproperty-get.md):
//
//   - An item returns extended properties only when a request expands them:
//     "Use a $filter and eq operator on the id property to specify the
//     extended property. This is currently the only way to get the
//     singleValueLegacyExtendedProperty object". The fake accepts
//     $expand=singleValueExtendedProperties($filter=id eq '...') with
//     several id terms joined by "or", which is how clients fetch more than
//     one property in one request; the page shows a single id.
//   - A collection is filtered with
//     $filter=singleValueExtendedProperties/Any(ep: ep/id eq '...' and
//     ep/value eq '...') ("To get resource instances that have certain
//     extended properties, use the $filter query parameter and apply an eq
//     operator on the id property. ... For string-typed extended
//     properties, apply a contains, startswith, eq, or ne operator on
//     value"). The fake implements eq on id alone, or with eq or ne on
//     value, and joins such terms with and, or and parentheses (OData's
//     logical operators); contains and startswith are refused.
//   - "Filtering the string name (Name) in the id of an extended property
//     is case-sensitive. Filtering the value property of an extended
//     property is case-insensitive." The fake compares the id's Name part
//     exactly, the rest of the id (type and GUID) ignoring case, and
//     values ignoring case.
//   - There is no documented way to delete an extended property; a client
//     overwrites its value.

// expandedExtProps returns the extended properties that the request's
// $expand asks for, or nil when it does not expand them.
func (c *call) expandedExtProps(ev *event) []extendedProperty {
	ids, all, ok := parseExpand(c.r.URL.Query().Get("$expand"))
	if !ok || (ids == nil && !all) {
		return nil
	}
	var out []extendedProperty
	for _, p := range ev.extProps {
		if all || matchesAnyID(p.ID, ids) {
			out = append(out, p)
		}
	}
	return out
}

var (
	expandExtProp = regexp.MustCompile(`(?i)^singleValueExtendedProperties(?:\(\s*\$filter\s*=\s*(.*)\))?$`)
	expandIDTerm  = regexp.MustCompile(`(?i)^\s*\(?\s*id\s+eq\s+'((?:[^']|'')*)'\s*\)?\s*`)
	expandOr      = regexp.MustCompile(`(?i)^or\s+`)
)

// parseExpand reads $expand: "" (ok, nothing), singleValueExtendedProperties
// alone (all), or with a $filter of id terms joined by or.
func parseExpand(exp string) (ids []string, all, ok bool) {
	if exp == "" {
		return nil, false, true
	}
	m := expandExtProp.FindStringSubmatch(strings.TrimSpace(exp))
	if m == nil {
		return nil, false, false
	}
	rest := strings.TrimSpace(m[1])
	if rest == "" {
		return nil, true, true
	}
	for {
		t := expandIDTerm.FindStringSubmatch(rest)
		if t == nil {
			return nil, false, false
		}
		ids = append(ids, unquote(t[1]))
		rest = rest[len(t[0]):]
		if rest == "" {
			return ids, false, true
		}
		o := expandOr.FindString(rest)
		if o == "" {
			return nil, false, false
		}
		rest = rest[len(o):]
	}
}

func unquote(s string) string { return strings.ReplaceAll(s, "''", "'") }

// sameExtPropID compares extended property ids: the Name part exactly, the
// rest ignoring case.
func sameExtPropID(a, b string) bool {
	ia, ib := strings.Index(a, " Name "), strings.Index(b, " Name ")
	if ia < 0 || ib < 0 {
		return strings.EqualFold(a, b)
	}
	return strings.EqualFold(a[:ia], b[:ib]) && a[ia:] == b[ib:]
}

func matchesAnyID(id string, ids []string) bool {
	for _, want := range ids {
		if sameExtPropID(id, want) {
			return true
		}
	}
	return false
}

// checkExpand refuses $expand values other than the extended property form.
func (c *call) checkExpand() bool {
	exp := c.r.URL.Query().Get("$expand")
	if _, _, ok := parseExpand(exp); !ok {
		c.fail(http.StatusBadRequest, "BadRequest", "graphtest: $expand=%s is not supported; only singleValueExtendedProperties($filter=id eq '...' [or id eq '...']).", exp)
		return false
	}
	return true
}

// eventFilter parses the $filter that lists events by extended properties.
func (c *call) eventFilter() (func(*event) bool, bool) {
	f := strings.TrimSpace(c.r.URL.Query().Get("$filter"))
	if f == "" {
		return func(*event) bool { return true }, true
	}
	p := &filterParser{s: f}
	keep, ok := p.or()
	if ok {
		p.space()
		ok = p.s == ""
	}
	if !ok {
		c.fail(http.StatusBadRequest, "BadRequest", "graphtest: $filter=%s is not supported; only singleValueExtendedProperties/Any(ep: ep/id eq '...' [and ep/value eq|ne '...']) terms joined by and, or and parentheses.", f)
		return nil, false
	}
	return keep, true
}

// filterParser is a recursive descent parser of
//
//	or   = and *("or" and)
//	and  = term *("and" term)
//	term = "(" or ")" / any
//	any  = "singleValueExtendedProperties/Any(" v ":" v "/id eq '...'" ["and" v "/value" ("eq" / "ne") "'...'"] ")"
type filterParser struct{ s string }

var (
	filterAny     = regexp.MustCompile(`(?i)^singleValueExtendedProperties/any\(\s*(\w+)\s*:\s*(\w+)/id\s+eq\s+'((?:[^']|'')*)'(?:\s+and\s+(\w+)/value\s+(eq|ne)\s+'((?:[^']|'')*)')?\s*\)`)
	filterKeyword = regexp.MustCompile(`(?i)^(and|or)\s+`)
)

func (p *filterParser) space() { p.s = strings.TrimLeft(p.s, " ") }

func (p *filterParser) keyword(k string) bool {
	p.space()
	m := filterKeyword.FindStringSubmatch(p.s)
	if m == nil || !strings.EqualFold(m[1], k) {
		return false
	}
	p.s = p.s[len(m[0]):]
	return true
}

func (p *filterParser) or() (func(*event) bool, bool) {
	left, ok := p.and()
	for ok && p.keyword("or") {
		var right func(*event) bool
		if right, ok = p.and(); ok {
			l := left
			left = func(ev *event) bool { return l(ev) || right(ev) }
		}
	}
	return left, ok
}

func (p *filterParser) and() (func(*event) bool, bool) {
	left, ok := p.term()
	for ok && p.keyword("and") {
		var right func(*event) bool
		if right, ok = p.term(); ok {
			l := left
			left = func(ev *event) bool { return l(ev) && right(ev) }
		}
	}
	return left, ok
}

func (p *filterParser) term() (func(*event) bool, bool) {
	p.space()
	if strings.HasPrefix(p.s, "(") {
		p.s = p.s[1:]
		inner, ok := p.or()
		p.space()
		if !ok || !strings.HasPrefix(p.s, ")") {
			return nil, false
		}
		p.s = p.s[1:]
		return inner, true
	}
	m := filterAny.FindStringSubmatch(p.s)
	if m == nil || m[1] != m[2] || (m[4] != "" && m[4] != m[1]) {
		return nil, false
	}
	p.s = p.s[len(m[0]):]
	id, hasValue, ne, value := unquote(m[3]), m[4] != "", strings.EqualFold(m[5], "ne"), unquote(m[6])
	return func(ev *event) bool {
		for _, ep := range ev.extProps {
			if sameExtPropID(ep.ID, id) && (!hasValue || strings.EqualFold(ep.Value, value) != ne) {
				return true
			}
		}
		return false
	}, true
}
