package davtest_test

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"
)

// Namespaces of the properties the tests look at.
const (
	nsDAV  = "DAV:"
	nsCal  = "urn:ietf:params:xml:ns:caldav"
	nsCS   = "http://calendarserver.org/ns/"
	nsICal = "http://apple.com/ns/ical/"
)

// multistatus is a WebDAV 207 body (RFC 4918 §14.16) with the top-level
// sync-token of RFC 6578.
type multistatus struct {
	Responses []msResponse `xml:"DAV: response"`
	SyncToken string       `xml:"DAV: sync-token"`
}

// msResponse is one DAV:response.
type msResponse struct {
	Href      string     `xml:"DAV: href"`
	Status    string     `xml:"DAV: status"`
	Propstats []propstat `xml:"DAV: propstat"`
	Error     *element   `xml:"DAV: error"`
}

// propstat is one DAV:propstat.
type propstat struct {
	Status string `xml:"DAV: status"`
	Prop   struct {
		Props []element `xml:",any"`
	} `xml:"DAV: prop"`
}

// element is any XML element with its text and children.
type element struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Text     string     `xml:",chardata"`
	Children []element  `xml:",any"`
}

// parseMultistatus decodes a 207 body and fails t if it is not one.
func parseMultistatus(t *testing.T, body []byte) *multistatus {
	t.Helper()
	var ms multistatus
	if err := xml.Unmarshal(body, &ms); err != nil {
		t.Fatalf("parse multistatus: %v\n%s", err, body)
	}
	return &ms
}

// propStatus returns the status line of the propstat holding property
// space:local in r, or "" if r does not mention it.
func (r *msResponse) propStatus(space, local string) string {
	for _, ps := range r.Propstats {
		for _, p := range ps.Prop.Props {
			if p.XMLName.Space == space && p.XMLName.Local == local {
				return ps.Status
			}
		}
	}
	return ""
}

// prop returns property space:local from a 200 propstat of r.
func (r *msResponse) prop(space, local string) (element, bool) {
	for _, ps := range r.Propstats {
		if !strings.Contains(ps.Status, " 200 ") {
			continue
		}
		for _, p := range ps.Prop.Props {
			if p.XMLName.Space == space && p.XMLName.Local == local {
				return p, true
			}
		}
	}
	return element{}, false
}

// hrefs returns the text of e's DAV:href children.
func (e element) hrefs() []string {
	var out []string
	for _, c := range e.Children {
		if c.XMLName.Space == nsDAV && c.XMLName.Local == "href" {
			out = append(out, c.Text)
		}
	}
	return out
}

// childNames returns the local names of e's children, sorted.
func (e element) childNames() []string {
	var out []string
	for _, c := range e.Children {
		out = append(out, c.XMLName.Local)
	}
	slices.Sort(out)
	return out
}

// privileges returns the privileges in a current-user-privilege-set, sorted.
func (e element) privileges() []string {
	var out []string
	for _, p := range e.Children {
		for _, c := range p.Children {
			out = append(out, c.XMLName.Local)
		}
	}
	slices.Sort(out)
	return out
}

// compNames returns the name attributes of a supported-calendar-component-set.
func (e element) compNames() []string {
	var out []string
	for _, c := range e.Children {
		for _, a := range c.Attrs {
			if a.Name.Local == "name" {
				out = append(out, a.Value)
			}
		}
	}
	slices.Sort(out)
	return out
}
