package httpapi

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// appendJSON appends v as json.Encoder writes it (HTML-safe escaping, a
// newline at the end). Accounts and pages of accounts, the answers of the
// most frequent calls, are written by hand: encoding/json spends most of
// their time on reflection and on re-checking what time.Time's MarshalJSON
// returns. Their bytes are the same as encoding/json's (encode_test.go
// compares them); anything else goes through encoding/json.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case *unical.Account:
		if out, ok := appendAccount(b, v); ok {
			return append(out, '\n'), nil
		}
	case *unical.Page[*unical.Account]:
		if out, ok := appendAccountPage(b, v); ok {
			return append(out, '\n'), nil
		}
	}
	return httpwire.AppendJSON(b, v)
}

// appendAccountPage appends a page of accounts; false when an account needs
// encoding/json (see appendAccount).
func appendAccountPage(b []byte, p *unical.Page[*unical.Account]) ([]byte, bool) {
	if p == nil {
		return append(b, "null"...), true
	}
	b = append(b, `{"data":`...)
	if p.Data == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range p.Data {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendAccount(b, a); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"nextPageToken":`...)
	b = appendStringPtr(b, p.NextPageToken)
	return append(b, '}'), true
}

// appendAccount appends a's JSON as unical.Account.MarshalJSON writes it;
// false for a time outside the years 0-9999, which encoding/json then
// encodes.
func appendAccount(b []byte, a *unical.Account) ([]byte, bool) {
	if a == nil {
		return append(b, "null"...), true
	}
	if !plainTime(a.CreatedAt) || !plainTime(a.UpdatedAt) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = appendString(b, a.ID)
	b = append(b, `,"createdAt":`...)
	b = appendTime(b, a.CreatedAt)
	b = append(b, `,"updatedAt":`...)
	b = appendTime(b, a.UpdatedAt)
	b = append(b, `,"email":`...)
	b = appendString(b, a.Email)
	b = append(b, `,"externalId":`...)
	b = appendString(b, a.ExternalID)
	b = append(b, `,"authorizedScopes":`...)
	if a.AuthorizedScopes == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range a.AuthorizedScopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	}
	b = append(b, `,"providerAccountId":`...)
	b = appendStringPtr(b, a.ProviderAccountID)
	b = append(b, `,"providerId":`...)
	b = appendString(b, a.ProviderID)
	b = append(b, `,"applicationId":`...)
	b = appendString(b, a.ApplicationID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(a.Status))
	if a.StatusReason != "" { // omitempty, as on the struct tag
		b = append(b, `,"statusReason":`...)
		b = appendString(b, string(a.StatusReason))
	}
	b = append(b, `,"providerType":`...)
	b = appendString(b, string(a.ProviderType))
	if a.ServerURL != "" { // omitempty, as on the struct tag
		b = append(b, `,"serverUrl":`...)
		b = appendString(b, a.ServerURL)
	}
	if a.Delegated { // omitempty, as on the struct tag
		b = append(b, `,"delegated":true`...)
	}
	if r := a.Room; r != nil { // omitempty, as on the struct tag
		b = append(b, `,"room":{"name":`...)
		b = appendString(b, r.Name)
		b = append(b, `,"capacity":`...)
		b = strconv.AppendInt(b, int64(r.Capacity), 10)
		b = append(b, `,"building":`...)
		b = appendString(b, r.Building)
		b = append(b, `,"floor":`...)
		b = appendString(b, r.Floor)
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// plainTime reports whether t has a four-digit year in UTC, which
// appendTime writes as unical.FormatTimestamp does.
func plainTime(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// appendTime appends t quoted as unical.FormatTimestamp writes it.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	if !t.IsZero() {
		b = t.UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	}
	return append(b, '"')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString appends s quoted. Printable ASCII other than the quote, the
// backslash and the HTML-sensitive <, > and & is written as it is; a
// string with anything else is left to encoding/json, whose escaping
// (control characters, invalid UTF-8, U+2028 and U+2029) is then exactly
// what the reader gets.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(b, quoted...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
