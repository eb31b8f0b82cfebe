package caldav

import (
	"encoding/xml"
	"strings"
)

// XML namespaces of the properties the provider reads.
const (
	nsDAV    = "DAV:"
	nsCalDAV = "urn:ietf:params:xml:ns:caldav"
	nsApple  = "http://apple.com/ns/ical/"
	nsCS     = "http://calendarserver.org/ns/"
)

// multistatus is a WebDAV 207 body (RFC 4918 §14.16).
type multistatus struct {
	Responses []msResponse `xml:"DAV: response"`
	// SyncToken is the new token of a sync-collection answer (RFC 6578
	// §6.4).
	SyncToken string `xml:"DAV: sync-token"`
}

type msResponse struct {
	Href      string     `xml:"DAV: href"`
	Status    string     `xml:"DAV: status"`
	Propstats []propstat `xml:"DAV: propstat"`
}

type propstat struct {
	Prop   element `xml:"DAV: prop"`
	Status string  `xml:"DAV: status"`
}

// element is any XML element with its children and text.
type element struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []element  `xml:",any"`
	Text     string     `xml:",chardata"`
}

// child returns the first child called space:local.
func (e *element) child(space, local string) (*element, bool) {
	for i := range e.Children {
		if c := &e.Children[i]; c.XMLName.Space == space && c.XMLName.Local == local {
			return c, true
		}
	}
	return nil, false
}

// href returns the text of the first DAV:href child.
func (e *element) href() string {
	if h, ok := e.child(nsDAV, "href"); ok {
		return strings.TrimSpace(h.Text)
	}
	return ""
}

// prop returns the property space:local if a propstat reported it with
// status 200.
func (r *msResponse) prop(space, local string) (*element, bool) {
	for i := range r.Propstats {
		ps := &r.Propstats[i]
		if !statusOK(ps.Status) {
			continue
		}
		if e, ok := ps.Prop.child(space, local); ok {
			return e, true
		}
	}
	return nil, false
}

// statusOK reports whether a DAV:status line ("HTTP/1.1 200 OK") is 2xx;
// a missing status counts as success.
func statusOK(status string) bool {
	f := strings.Fields(status)
	return len(f) < 2 || strings.HasPrefix(f[1], "2")
}
