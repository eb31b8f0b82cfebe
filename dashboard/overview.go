package dashboard

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/internal/adapter/httpwire"
	"github.com/unical/unical/storestats"
)

// The overview is the dashboard's landing page, for the whole server: the
// counters /metrics exports (webhook deliveries, HTTP requests) read from
// the same collectors, the store's counts the unical_accounts and outbox
// gauges read, readiness as /readyz checks it, and when each account's
// subscribed calendars were last synced.

// overviewData is what the overview shows.
type overviewData struct {
	Ready  httpwire.Readiness
	Outbox *admin.OutboxStatus
	// Accounts counts accounts by provider and status, as the
	// unical_accounts gauge does; nil when the store keeps no counts.
	Accounts []accountCount
	// Counts are the delivery attempts since start by outcome; nil when
	// the server measures none (Config.DeliveryCounts unset).
	Counts map[string]float64
	// Attempts counts the attempts that reached a receiver or failed;
	// ErrorRate is the share of them that did not deliver and
	// SuccessRate the share that did, in percent.
	Attempts               float64
	ErrorRate, SuccessRate float64
	// Requests are the HTTP requests since start by status class; nil
	// when the server measures none (Config.RequestCounts unset).
	Requests *requestCounts
	// Synced are the accounts with subscriptions, the longest unsynced
	// first, at most syncedRows of them; SyncedMore says there are more.
	Synced     []*accountSync
	SyncedMore bool
}

// accountCount is one provider's accounts by status.
type accountCount struct {
	Provider        unical.ProviderType
	Active, Expired int
}

// requestCounts sorts the HTTP requests since start by status class.
type requestCounts struct {
	Total, ClientErrors, ServerErrors float64
	// ClientErrorRate and ServerErrorRate are in percent of Total.
	ClientErrorRate, ServerErrorRate float64
}

// accountSync is when the engine last synced an account's subscribed
// calendars.
type accountSync struct {
	AppID, AppName, AccountID, Email string
	Provider                         unical.ProviderType
	Status                           unical.AccountStatus
	Subscriptions                    int
	// LastSync is the latest time a subscription of the account took up
	// changes with a new sync cursor, or was reconciled; zero when never.
	// NextCheck is the earliest time the engine checks one again.
	LastSync, NextCheck time.Time
}

const (
	// syncedRows bounds the accounts of the last-sync table.
	syncedRows = 50
	// syncScan bounds the subscriptions read for it, syncPage at a time.
	syncScan = 5000
	syncPage = 500
)

// overviewPage handles GET /dashboard/overview.
func (h *handler) overviewPage(w http.ResponseWriter, r *http.Request, s *session) {
	client := h.admin.Client()
	ready, _ := httpwire.CheckReadiness(r.Context(), client.Store(), client.Config().Outbox.Running(), httpwire.ReadyTimeout)
	d := &overviewData{Ready: ready}
	status, errMsg := http.StatusOK, ""
	fail := func(err error) {
		if errMsg == "" {
			errMsg, status = h.message(r, err), statusOf(err)
		}
	}
	// A store without counts (CodeNotImplemented) leaves them out.
	switch st, err := storestats.Of(r.Context(), h.admin.Client().Store()); {
	case err == nil:
		d.Accounts = accountCounts(st)
	case unical.ErrorCode(err) != unical.CodeNotImplemented:
		fail(err)
	}
	switch out, err := h.admin.Outbox(r.Context()); {
	case err == nil:
		d.Outbox = out
	case unical.ErrorCode(err) != unical.CodeNotImplemented:
		fail(err)
	}
	if h.deliveryCounts != nil {
		d.Counts = h.deliveryCounts()
		failed := d.Counts[engine.DeliveryRetrying] + d.Counts[engine.DeliveryFailed]
		d.Attempts = d.Counts[engine.DeliveryDelivered] + failed
		if d.Attempts > 0 {
			d.ErrorRate = 100 * failed / d.Attempts
			d.SuccessRate = 100 - d.ErrorRate
		}
	}
	if h.requestCounts != nil {
		d.Requests = classifyRequests(h.requestCounts())
	}
	var err error
	if d.Synced, d.SyncedMore, err = h.lastSyncs(r.Context()); err != nil {
		fail(err)
	}
	h.render(w, r, status, "overview", &view{Session: s, Title: "Overview", Error: errMsg, Section: "overview", Data: d})
}

// accountCounts lists the store's account counts by provider, every
// provider the server knows, in the order of unical.ProviderTypes.
func accountCounts(st *storestats.Stats) []accountCount {
	var out []accountCount
	for _, t := range unical.ProviderTypes {
		out = append(out, accountCount{Provider: t, Active: st.Accounts[t][unical.AccountStatusActive], Expired: st.Accounts[t][unical.AccountStatusExpired]})
	}
	return out
}

// classifyRequests sums requests by status code into classes.
func classifyRequests(byStatus map[string]float64) *requestCounts {
	c := &requestCounts{}
	for status, n := range byStatus {
		code, err := strconv.Atoi(status)
		if err != nil {
			continue
		}
		c.Total += n
		switch {
		case code >= 500:
			c.ServerErrors += n
		case code >= 400:
			c.ClientErrors += n
		}
	}
	if c.Total > 0 {
		c.ClientErrorRate, c.ServerErrorRate = 100*c.ClientErrors/c.Total, 100*c.ServerErrors/c.Total
	}
	return c
}

// lastSyncs reads the subscriptions of every application (at most
// syncScan of them) and returns, per account, when they were last synced,
// the longest unsynced first; more reports that rows were left out.
func (h *handler) lastSyncs(ctx context.Context) (rows []*accountSync, more bool, err error) {
	store := h.admin.Client().Store()
	byAccount := map[[2]string]*accountSync{}
	after := ""
	for scanned := 0; scanned < syncScan; {
		page, err := store.ListAllSubscriptions(ctx, after, syncPage)
		if err != nil {
			return nil, false, err
		}
		for _, sub := range page {
			key := [2]string{sub.ApplicationID, sub.EndUserAccountID}
			row := byAccount[key]
			if row == nil {
				row = &accountSync{AppID: sub.ApplicationID, AccountID: sub.EndUserAccountID, Provider: sub.Provider}
				byAccount[key] = row
				rows = append(rows, row)
			}
			row.Subscriptions++
			for _, t := range []time.Time{sub.CursorAt, sub.ReconciledAt} {
				if t.After(row.LastSync) {
					row.LastSync = t
				}
			}
			if row.NextCheck.IsZero() || sub.NextCheckAt.Before(row.NextCheck) {
				row.NextCheck = sub.NextCheckAt
			}
		}
		scanned += len(page)
		if len(page) < syncPage {
			break
		}
		after = page[len(page)-1].ID
		more = scanned >= syncScan
	}
	slices.SortStableFunc(rows, func(a, b *accountSync) int { return a.LastSync.Compare(b.LastSync) })
	if len(rows) > syncedRows {
		rows, more = rows[:syncedRows], true
	}
	names := map[string]string{}
	for _, row := range rows {
		if _, ok := names[row.AppID]; !ok {
			if app, err := h.admin.GetApplication(ctx, row.AppID); err == nil {
				names[row.AppID] = app.Name
			}
		}
		row.AppName = names[row.AppID]
		if acct, err := h.admin.GetAccount(ctx, row.AppID, row.AccountID); err == nil {
			row.Email, row.Provider, row.Status = acct.Email, acct.ProviderType, acct.Status
		}
	}
	return rows, more, nil
}
