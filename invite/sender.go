package invite

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/imip"
	"github.com/unical/unical/internal/adapter/smtpsend"
	"github.com/unical/unical/internal/ids"
)

// Defaults of [Sender].
var (
	// DefaultRetrySchedule is the wait before each retry of a message the
	// SMTP server could not take: about two days in all.
	DefaultRetrySchedule = []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 12 * time.Hour, 24 * time.Hour}
	// DefaultScanInterval is how often the sender looks for queued
	// messages it was not woken for (queued by another replica, or
	// before a restart).
	DefaultScanInterval = 30 * time.Second
)

// lease is how long a claimed message is left to its sender; past it
// another sender may take it (the first one died).
const lease = 2 * time.Minute

// Sender sends the queued invitations of every application through the
// application's SMTP server. Several senders (replicas) may share a
// Store: each message is claimed with a lease first, so it goes out once
// unless a sender dies between the SMTP server's answer and recording it.
type Sender struct {
	client   *unical.Client
	owner    string
	retries  []time.Duration
	interval time.Duration
	wake     Wakeup
	log      *slog.Logger
}

// SenderConfig configures a [Sender]. Client is required; the other
// fields' zero values take the defaults.
type SenderConfig struct {
	// Client is whose Store the queued messages are in and whose
	// applications' mail settings send them.
	Client *unical.Client
	// RetrySchedule is the wait before each retry; after the last the
	// message fails. nil means DefaultRetrySchedule.
	RetrySchedule []time.Duration
	// ScanInterval is how often queued messages are looked for without a
	// wake-up; 0 means DefaultScanInterval.
	ScanInterval time.Duration
	// Wakeup is the one the wrapped providers tell; nil means the one of
	// the first provider of Client that [Wrap] wrapped, if any.
	Wakeup Wakeup
}

// NewSender returns a sender over cfg.Client's Store and mail settings.
func NewSender(cfg SenderConfig) *Sender {
	c := cfg.Client
	s := &Sender{client: c, owner: ids.New("sender"), retries: cfg.RetrySchedule, interval: cfg.ScanInterval,
		wake: cfg.Wakeup, log: c.Config().Logger}
	for _, t := range []unical.ProviderType{unical.ProviderVirtual, unical.ProviderCalDAV} {
		p, err := c.Provider(t)
		for err == nil && s.wake == nil && p != nil {
			if w, ok := p.(*Provider); ok {
				s.wake = w.cfg.Wakeup
			}
			u, ok := p.(interface{ Unwrap() unical.Provider })
			if !ok {
				break
			}
			p = u.Unwrap()
		}
	}
	if s.wake == nil {
		s.wake = NewWakeup()
	}
	if s.retries == nil {
		s.retries = DefaultRetrySchedule
	}
	if s.interval <= 0 {
		s.interval = DefaultScanInterval
	}
	return s
}

// Wake makes a running sender look for queued messages now.
func (s *Sender) Wake() { s.wake.notify() }

// Run sends queued messages until ctx ends: at once when woken, and
// every scan interval.
func (s *Sender) Run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		if err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "send invitations", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-t.C:
		}
	}
}

// SendDue makes one pass: every message due now, of every application
// with mail settings, is sent (or its failure recorded).
func (s *Sender) SendDue(ctx context.Context) error {
	st := s.client.Store()
	apps, err := st.ListApplications(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, app := range apps {
		if app.SealedMail == nil {
			continue
		}
		for _, t := range []unical.ProviderType{unical.ProviderVirtual, unical.ProviderCalDAV} {
			after := ""
			for {
				accts, err := st.ListAccounts(ctx, app.ID, unical.AccountFilter{ProviderType: t, After: after, Limit: 100})
				if err != nil {
					return err
				}
				for _, a := range accts {
					errs = append(errs, s.sendAccount(ctx, app, a.ID))
				}
				if len(accts) < 100 {
					break
				}
				after = accts[len(accts)-1].ID
			}
		}
	}
	return errors.Join(errs...)
}

// sendAccount sends the due messages of one account's records.
func (s *Sender) sendAccount(ctx context.Context, app *unical.Application, accountID string) error {
	st := s.client.Store()
	after := ""
	for {
		recs, err := st.ListRecords(ctx, app.ID, accountID, collection, "", after, 100)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if err := s.sendRecord(ctx, app, accountID, rec.Key); err != nil {
				return err
			}
		}
		if len(recs) < 100 {
			return nil
		}
		after = recs[len(recs)-1].Key
	}
}

// sendRecord claims the due messages of one record, sends each and
// records the outcome.
func (s *Sender) sendRecord(ctx context.Context, app *unical.Application, accountID, key string) error {
	st := s.client.Store()
	now := s.client.Config().Now().UTC()
	var claimed []outgoing
	_, err := updateRecord(ctx, st, app.ID, accountID, key, func(r *record) (*record, error) {
		claimed = claimed[:0]
		if r == nil {
			return nil, nil
		}
		for _, m := range r.Queue {
			if m.NextAttemptAt.After(now) || (m.LeaseOwner != "" && m.LeaseExpiry.After(now)) {
				continue
			}
			m.LeaseOwner, m.LeaseExpiry = s.owner, now.Add(lease)
			claimed = append(claimed, *m)
		}
		if len(claimed) == 0 {
			return nil, nil
		}
		return r, nil
	})
	if err != nil || len(claimed) == 0 {
		return err
	}
	srv, set, srvErr := smtpsend.ForApplication(s.client, app)
	for _, m := range claimed {
		var sendErr error
		if srvErr == nil {
			var msg *imip.Message
			msg, sendErr = imip.Encode(&imip.Invitation{Method: m.Method, Event: m.Event, Sequence: m.Sequence,
				Organizer: m.Organizer, From: set.From, To: m.To}, now)
			if sendErr == nil {
				_, sendErr = srv.Send(ctx, set.From, []string{m.To}, msg.Data)
			}
		} else {
			sendErr = &smtpsend.Error{Reply: unical.ErrorMessage(srvErr)}
		}
		if ctx.Err() != nil {
			return ctx.Err() // the lease ends and the message is tried again
		}
		if err := s.record(ctx, app.ID, accountID, key, m.ID, sendErr); err != nil {
			return err
		}
	}
	return nil
}

// record writes the outcome of sending message id: sent, retried later,
// or failed.
func (s *Sender) record(ctx context.Context, appID, accountID, key, id string, sendErr error) error {
	now := s.client.Config().Now().UTC()
	_, err := updateRecord(ctx, s.client.Store(), appID, accountID, key, func(r *record) (*record, error) {
		if r == nil {
			return nil, nil
		}
		i := -1
		for j, m := range r.Queue {
			if m.ID == id && m.LeaseOwner == s.owner {
				i = j
			}
		}
		if i < 0 {
			return nil, nil // our lease ran out and another sender took it
		}
		m := r.Queue[i]
		m.Attempts++
		m.LeaseOwner, m.LeaseExpiry = "", time.Time{}
		d := r.delivery(m.To)
		current := d.Method == m.Method && d.Sequence == m.Sequence
		var se *smtpsend.Error
		switch {
		case sendErr == nil:
			r.Queue = append(r.Queue[:i], r.Queue[i+1:]...)
			if current && d.Status != StatusReplied {
				d.Status, d.LastError = StatusSent, ""
			}
		case errors.As(sendErr, &se) && se.Temporary && m.Attempts <= len(s.retries):
			wait := s.retries[m.Attempts-1]
			m.NextAttemptAt = now.Add(wait + time.Duration(rand.Int64N(int64(wait/10)+1)))
			if current {
				d.LastError = "Attempt " + strconv.Itoa(m.Attempts) + " failed, retrying: " + se.Reply
			}
		default:
			r.Queue = append(r.Queue[:i], r.Queue[i+1:]...)
			if current {
				d.Status, d.LastError = StatusFailed, errorText(sendErr)
			}
		}
		if current {
			d.Attempts, d.UpdatedAt = m.Attempts, now
		}
		return r, nil
	})
	return err
}

// errorText is what the delivery log says of a failed send.
func errorText(err error) string {
	var se *smtpsend.Error
	if errors.As(err, &se) {
		return se.Reply
	}
	return err.Error()
}
