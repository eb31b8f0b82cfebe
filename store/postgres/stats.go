package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/unical/unical"
	"github.com/unical/unical/storestats"
)

var _ storestats.Store = (*Store)(nil)

// Stats counts accounts by provider type and status and the pending outbox
// messages, in one snapshot, for metrics.
func (s *Store) Stats(ctx context.Context) (*storestats.Stats, error) {
	st := &storestats.Stats{Accounts: map[unical.ProviderType]map[unical.AccountStatus]int{}}
	err := s.tx(ctx, "stats", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT provider_type, status, count(*) FROM accounts GROUP BY provider_type, status")
		if err != nil {
			return err
		}
		var providerType, status string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&providerType, &status, &n}, func() error {
			t := unical.ProviderType(providerType)
			if st.Accounts[t] == nil {
				st.Accounts[t] = map[unical.AccountStatus]int{}
			}
			st.Accounts[t][unical.AccountStatus(status)] += n
			return nil
		})
		if err != nil {
			return err
		}
		var oldest *time.Time
		err = tx.QueryRow(ctx, "SELECT count(*), min(created_at) FROM outbox WHERE status = 'pending'").Scan(&st.PendingMessages, &oldest)
		if oldest != nil {
			st.OldestPending = oldest.UTC()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
