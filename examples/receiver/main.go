// Command receiver is a webhook receiver for unical: it verifies each
// delivery with the endpoint secrets unical handed out, skips messages it
// has already seen (delivery is at least once), and prints the events.
//
//	UNICAL_WEBHOOK_SECRETS=whsec_...,whsec_... ADDR=127.0.0.1:8443 \
//	  TLS_CERT=cert.pem TLS_KEY=key.pem go run ./examples/receiver
//
// UNICAL_WEBHOOK_SECRETS lists, comma-separated, the application's webhook
// secret and each subscription's endpointSecret that post to this
// receiver. unical posts to https URLs: give TLS_CERT and TLS_KEY, or
// leave them out and put the receiver behind a TLS-terminating proxy. A
// server started with --allow-private-targets also posts to plain http on
// loopback, as in the README's Quickstart:
//
//	UNICAL_WEBHOOK_SECRETS=whsec_... ADDR=127.0.0.1:8443 go run ./examples/receiver
package main

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/webhookreceiver"
)

func main() {
	secrets := strings.Split(os.Getenv("UNICAL_WEBHOOK_SECRETS"), ",")
	for i := range secrets {
		secrets[i] = strings.TrimSpace(secrets[i])
	}
	verifier, err := webhookreceiver.NewVerifier(webhookreceiver.Config{Secrets: secrets})
	if err != nil {
		log.Fatalf("UNICAL_WEBHOOK_SECRETS: %v", err)
	}
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = "127.0.0.1:8443"
	}
	seen := newSeenIDs(10000)
	mux := http.NewServeMux()
	mux.Handle("POST /unical", &webhookreceiver.Handler{
		Verifier: verifier,
		Receive: func(ctx context.Context, msg *webhookreceiver.Message) error {
			if !seen.add(msg.ID) {
				return nil // a retry of a message already handled
			}
			handle(msg)
			return nil
		},
		OnError: func(r *http.Request, status int, err error) {
			// The error's message is what the sender was told; its cause
			// (errors.Is(err, webhookreceiver.ErrNoMatchingSignature), ...)
			// is for the program, and says the same thing again.
			log.Printf("refused a delivery from %s: %d %s", r.RemoteAddr, status, refusal(err))
		},
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	log.Printf("receiving unical webhooks at %s/unical", addr)
	if cert, key := os.Getenv("TLS_CERT"), os.Getenv("TLS_KEY"); cert != "" {
		log.Fatal(srv.ListenAndServeTLS(cert, key))
	}
	log.Fatal(srv.ListenAndServe())
}

// handle prints what a message says and what a program would do about it.
func handle(msg *webhookreceiver.Message) {
	switch e := msg.Event.(type) {
	case *webhookreceiver.CalendarEvent:
		switch e.Type {
		case unical.EventTypeCalendarEventChanged:
			log.Printf("%s: events changed in calendar %s of account %s: list them with your sync token", msg.ID, e.CalendarID, e.EndUserAccountID)
		case unical.EventTypeCalendarEventUnknown:
			log.Printf("%s: changes to calendar %s of account %s may have been missed: resynchronise it", msg.ID, e.CalendarID, e.EndUserAccountID)
		}
	case *webhookreceiver.AccountEvent:
		log.Printf("%s: %s: account %s (%s, %s) is %s", msg.ID, e.Type, e.Account.ID, e.Account.Email, e.Account.ProviderType, e.Account.Status)
	case *webhookreceiver.TestEvent:
		log.Printf("%s: %s: a test message from unical, received and verified", msg.ID, e.Type)
	case *webhookreceiver.UnknownEvent:
		log.Printf("%s: %s, which this program does not know; acknowledged", msg.ID, e.Type)
	}
}

// seenIDs remembers the most recent message ids, to drop redeliveries.
// A real program keeps them where it stores what the message led to, in
// the same transaction.
type seenIDs struct {
	mu    sync.Mutex
	ids   map[string]bool
	order []string
	max   int
}

func newSeenIDs(max int) *seenIDs { return &seenIDs{ids: map[string]bool{}, max: max} }

// add records id and reports whether it was new.
func (s *seenIDs) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return false
	}
	s.ids[id] = true
	s.order = append(s.order, id)
	if len(s.order) > s.max {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	return true
}

// refusal is what a log line says of a refused delivery: the reason the
// sender was given, naming the header or field it concerns.
func refusal(err error) string {
	var e *unical.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	if e.Field != "" {
		return e.Message + " (" + e.Field + ")"
	}
	return e.Message
}
