package admin

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/outbox"
	"github.com/unical/unical/webhooksender"
)

// SentMessage is a webhook message as one attempt sent it, for the
// payload viewer: the body exactly as signed and sent, and the request's
// headers. It never holds the endpoint's secret.
type SentMessage struct {
	ID             string
	SubscriptionID string // "" for the application's own endpoint
	EventType      string
	Status         outbox.Status
	// At is the attempt's time, the webhook-timestamp it carried.
	At time.Time
	// Body is the signed body.
	Body []byte
	// Header lists the request's headers in name order, names in lower
	// case (as HTTP/2 sends them; HTTP/1.1 capitalises them, and header
	// names are case-insensitive).
	Header []HeaderField
	// Unsigned says why webhook-signature is not among Header (the
	// endpoint has no secret now, or it cannot be opened); "" when it is.
	Unsigned string
}

// HeaderField is one header of a sent request.
type HeaderField struct{ Name, Value string }

// SentMessage returns message messageID of an application as the attempt
// made at at sent it: its body as kept in the outbox and the headers of
// that attempt (webhook-id, webhook-timestamp, webhook-signature,
// Content-Type and the User-Agent of unicald's sender). The signature is
// computed again with the endpoint's current secret: the one sent unless
// the secret was rotated since. Returns CodeNotFound when the application
// has no such message, or no longer keeps it (delivered messages are kept
// for engine.Config.DeliveredRetention, failed ones for FailedRetention).
func (s *Service) SentMessage(ctx context.Context, appID, messageID string, at time.Time) (*SentMessage, error) {
	msg, err := s.store.GetMessage(ctx, appID, messageID)
	if err != nil {
		return nil, err
	}
	sent := &SentMessage{ID: msg.ID, SubscriptionID: msg.SubscriptionID, EventType: msg.EventType, Status: msg.Status, At: at.UTC().Truncate(time.Second), Body: msg.Payload}
	header, err := engine.SentHeaders(ctx, s.client, msg, at)
	if err != nil {
		if unical.ErrorCode(err) == unical.CodeNotFound || errors.Is(err, context.Canceled) {
			return nil, err
		}
		s.log.ErrorContext(ctx, "admin: sign a message for the payload viewer", "message", msg.ID, "err", err)
		sent.Unsigned = "The endpoint has no signing secret now, or it cannot be opened with the server's master key."
		header = map[string][]string{"webhook-id": {msg.ID}, "webhook-timestamp": {strconv.FormatInt(at.Unix(), 10)}, "Content-Type": {"application/json"}}
	}
	header["User-Agent"] = []string{webhooksender.DefaultUserAgent}
	for name, values := range header {
		for _, v := range values {
			sent.Header = append(sent.Header, HeaderField{Name: strings.ToLower(name), Value: v})
		}
	}
	slices.SortFunc(sent.Header, func(a, b HeaderField) int { return strings.Compare(a.Name, b.Name) })
	return sent, nil
}

// MessageStatus returns the delivery status of message messageID of an
// application. Returns CodeNotFound when it has no such message, or no
// longer keeps it.
func (s *Service) MessageStatus(ctx context.Context, appID, messageID string) (outbox.Status, error) {
	msg, err := s.store.GetMessage(ctx, appID, messageID)
	if err != nil {
		return "", err
	}
	return msg.Status, nil
}
