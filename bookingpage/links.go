package bookingpage

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// purpose is what a signed link may do: each link does one thing, so a
// cancel link cannot move the booking and a reschedule link cannot
// cancel it.
type purpose string

const (
	purposeView       purpose = "view"       // the confirmation page and its .ics
	purposeCancel     purpose = "cancel"     // cancel the booking
	purposeReschedule purpose = "reschedule" // move the booking
)

// viewLinkLife is how long after the booking's end the confirmation page
// and its .ics stay readable.
const viewLinkLife = 30 * 24 * time.Hour

// linkVersion starts every signed payload, so that the format can change
// without an old link being read as a new one.
const linkVersion = "b1"

var (
	errLinkInvalid = errors.New("link invalid")
	errLinkExpired = errors.New("link expired")
)

// linkClaims is what a signed link says.
type linkClaims struct {
	Purpose   purpose
	AppID     string
	BookingID string
	Expires   time.Time
}

// signer signs and checks the booking page's links with HMAC-SHA256
// under a key of its own (unicald derives it from the master key). A
// link is base64url(payload) "." base64url(mac); the payload names the
// purpose, application, booking and expiry, so a link is good for one
// purpose on one booking until its expiry, and needs no stored state.
type signer struct{ key []byte }

func (s signer) sign(c linkClaims) string {
	payload := strings.Join([]string{linkVersion, string(c.Purpose), c.AppID, c.BookingID, strconv.FormatInt(c.Expires.Unix(), 10)}, "|")
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(payload)) + "." + enc.EncodeToString(s.mac(payload))
}

func (s signer) mac(payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// check returns the claims of token if it is signed by s for want and
// has not expired at now: errLinkInvalid for a token that is malformed,
// tampered with or of another purpose, errLinkExpired for one past its
// expiry.
func (s signer) check(token string, want purpose, now time.Time) (*linkClaims, error) {
	enc := base64.RawURLEncoding
	p64, m64, ok := strings.Cut(token, ".")
	if !ok {
		return nil, errLinkInvalid
	}
	payload, err1 := enc.DecodeString(p64)
	mac, err2 := enc.DecodeString(m64)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(string(payload))) {
		return nil, errLinkInvalid
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 5 || parts[0] != linkVersion || purpose(parts[1]) != want {
		return nil, errLinkInvalid
	}
	exp, err := strconv.ParseInt(parts[4], 10, 64)
	if err != nil {
		return nil, errLinkInvalid
	}
	c := &linkClaims{Purpose: want, AppID: parts[2], BookingID: parts[3], Expires: time.Unix(exp, 0)}
	if !now.Before(c.Expires) {
		return nil, errLinkExpired
	}
	return c, nil
}
