// Package grants keeps the OAuth grants of end user accounts alive and
// checked without waiting for traffic.
//
// A grant can end while nobody uses the account: Microsoft ends a refresh
// token that goes unused for 90 days ("Refresh tokens in the Microsoft
// identity platform", https://learn.microsoft.com/entra/identity-platform/refresh-tokens,
// "Token lifetime"; the token endpoint then answers invalid_grant with
// AADSTS700082), Google one unused for six months, and either provider
// ends a grant the user or an administrator revokes, which shows only on
// the next token refresh (invalid_grant). An account without a
// subscription and without calls would stay ACTIVE until someone calls
// and finds it EXPIRED. So the engine (package engine) calls [Check] now
// and then: it refreshes the token of every ACTIVE Google and Microsoft
// account that has gone a [Config.Period] without a refresh (calls refresh
// tokens too, so a busy account costs nothing more), which keeps the
// refresh token in use and moves an account whose grant ended to EXPIRED,
// with one enduseraccount.updated, as a refused call does.
//
// Each account's next check time is a record of the account in the Store
// (a [records.Store] record), and an engine takes a due account by
// moving that time on with a compare-and-set on the record's version, so
// engines sharing the Store check each account once per period in all.
package grants

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"sync"
	"time"

	"github.com/unical/unical"
)

// Defaults of Config.CheckInterval and KeepAlive.
const (
	DefaultCheckInterval = 6 * time.Hour
	DefaultKeepAlive     = 30 * 24 * time.Hour
)

// Collection and key of the record that holds an account's next check.
const (
	collection = "grant"
	key        = "schedule"
)

// concurrency bounds how many refreshes one pass makes at once.
const concurrency = 8

// Config is the grant settings (engine.Settings' GrantCheckInterval and
// GrantKeepAlive).
type Config struct {
	// CheckInterval is how often, at most, a revoked grant goes unnoticed;
	// default DefaultCheckInterval, negative: never.
	CheckInterval time.Duration
	// KeepAlive is how long a refresh token may go unused; default
	// DefaultKeepAlive, negative: never.
	KeepAlive time.Duration
}

// Period is how often each account's grant is refreshed under cfg: the
// shorter of CheckInterval and KeepAlive (each with its default; a
// negative one does not count); 0 when both are disabled.
func (cfg Config) Period() time.Duration {
	var period time.Duration
	for _, d := range []time.Duration{orDefault(cfg.CheckInterval, DefaultCheckInterval), orDefault(cfg.KeepAlive, DefaultKeepAlive)} {
		if d > 0 && (period == 0 || d < period) {
			period = d
		}
	}
	return period
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// schedule is the stored record: when the account is next due.
type schedule struct {
	Due time.Time `json:"due"`
}

// Check refreshes the token of every ACTIVE account, of every
// application, whose grant check is due every period ([Config.Period]; 0 checks nothing), and returns how many accounts it
// took to check. An account seen for the first time is due
// within one period (spread by its id, so that a server's accounts are not
// all refreshed at once), or at once when its credentials have not been
// refreshed for a period. Accounts connected through the application's
// delegation credential have no refresh token of their own and are left
// alone, as are CalDAV and VIRTUAL accounts. Check returns the first
// Store error; a refused refresh expires its account (see
// [unical.App.ProviderFailed]), any other failure of one account is
// logged and left for its next due time.
func Check(ctx context.Context, c *unical.Client, period time.Duration) (int, error) {
	if period <= 0 {
		return 0, nil
	}
	st := c.Store()
	apps, err := st.ListApplications(ctx)
	if err != nil {
		return 0, err
	}
	now := c.Config().Now().UTC()
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	checked := 0
	for _, app := range apps {
		recs, err := st.ListAccounts(ctx, app.ID, unical.AccountFilter{Status: unical.AccountStatusActive})
		if err != nil {
			return checked, err
		}
		for _, rec := range recs {
			if c.Credential(rec.ProviderType) != unical.CredentialOAuth || rec.Delegated {
				continue
			}
			due, err := claim(ctx, st, rec, now, period)
			if err != nil {
				return checked, err
			}
			if !due {
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return checked, ctx.Err()
			}
			wg.Go(func() {
				defer func() { <-sem }()
				if err := refresh(ctx, c, rec.ApplicationID, rec.ID); err != nil && ctx.Err() == nil {
					c.Config().Logger.WarnContext(ctx, "check account grant", "app", rec.ApplicationID, "account", rec.ID, "err", err)
				}
				mu.Lock()
				checked++
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return checked, nil
}

// claim reports whether rec is due at now and, when it is, takes it: it
// moves the account's due time on by whole periods to the first time
// after now, in a write that fails for a caller that read the record
// before another one took it. An account whose token was refreshed less
// than a period ago (by a call) is not due: its due time moves to one
// period after that refresh.
func claim(ctx context.Context, st unical.Store, rec *unical.AccountRecord, now time.Time, period time.Duration) (bool, error) {
	stored, err := st.GetRecord(ctx, rec.ApplicationID, rec.ID, collection, key)
	var version uint64
	var s schedule
	switch {
	case unical.ErrorCode(err) == unical.CodeNotFound:
		s.Due = firstDue(rec, now, period)
	case err != nil:
		return false, err
	default:
		version = stored.Version
		if json.Unmarshal(stored.Data, &s) != nil || s.Due.IsZero() {
			s.Due = now // unreadable: check now and start afresh
		}
	}
	due := !s.Due.After(now)
	switch {
	case due && rec.CredentialsUpdatedAt.Add(period).After(now):
		// A call refreshed the token within the period, which showed the
		// grant alive then: the check is due one period after that.
		s.Due, due = rec.CredentialsUpdatedAt.Add(period), false
	case due:
		s.Due = s.Due.Add(period * (now.Sub(s.Due)/period + 1))
	case version != 0:
		return false, nil // not due, and already scheduled
	}
	data, _ := json.Marshal(s)
	_, err = st.PutRecord(ctx, rec.ApplicationID, rec.ID, collection, key, data, version)
	switch unical.ErrorCode(err) {
	case "":
		return due, nil
	case unical.CodeConflict, unical.CodeNotFound:
		// Another engine took or scheduled it first, or the account went.
		return false, nil
	}
	return false, err
}

// firstDue is when an account seen for the first time is due: within one
// period from now, at an offset drawn from its id, but no later than one
// period after its credentials were last refreshed.
func firstDue(rec *unical.AccountRecord, now time.Time, period time.Duration) time.Time {
	h := fnv.New64a()
	h.Write([]byte(rec.ID))
	due := now.Add(time.Duration(h.Sum64()%uint64(period)) + 1)
	if last := rec.CredentialsUpdatedAt; !last.IsZero() && last.Add(period).Before(due) {
		due = last.Add(period)
	}
	return due
}

// refresh refreshes the token of one account through its provider. A
// refused grant expires the account through App.ProviderFailed, which
// sends enduseraccount.updated once, however many callers find it.
func refresh(ctx context.Context, c *unical.Client, appID, accountID string) error {
	app, err := c.App(ctx, appID)
	if err != nil {
		return err
	}
	_, p, s, err := app.Session(ctx, accountID)
	switch {
	case unical.ErrorCode(err) == unical.CodeAccountExpired || unical.ErrorCode(err) == unical.CodeNotFound:
		return nil // it expired or went since it was listed
	case err != nil:
		return err
	}
	r, ok := unical.RefresherOf(p)
	if !ok || s.Token.RefreshToken == "" {
		return nil
	}
	if _, err := r.RefreshToken(ctx, s); err != nil {
		if err := app.ProviderFailed(ctx, accountID, err); unical.ErrorCode(err) != unical.CodeAccountExpired {
			return err
		}
	}
	return nil
}
