package bolt

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/storestats"
	bbolt "go.etcd.io/bbolt"
)

var _ storestats.Store = (*Store)(nil)

// Stats counts accounts by provider type and status and the pending
// outbox messages, in one read transaction, for metrics. It reads every
// account (decoding only the two fields it counts by) and the keys of
// outbox.pending; a caller that scrapes often should cache the answer.
//
// The oldest pending message is the one with the smallest id, read for its
// creation time: the Client's message ids begin with their creation time
// (see newID), so this finds it without decoding every pending message.
func (s *Store) Stats(ctx context.Context) (*storestats.Stats, error) {
	st := &storestats.Stats{Accounts: map[unical.ProviderType]map[unical.AccountStatus]int{}}
	err := s.view(ctx, "stats", func(tx *bbolt.Tx) error {
		var a struct {
			ProviderType unical.ProviderType  `json:"providerType"`
			Status       unical.AccountStatus `json:"status"`
		}
		err := tx.Bucket(bucketAccounts).ForEach(func(_, v []byte) error {
			a.ProviderType, a.Status = "", ""
			if err := json.Unmarshal(v, &a); err != nil {
				return err
			}
			byStatus := st.Accounts[a.ProviderType]
			if byStatus == nil {
				byStatus = map[unical.AccountStatus]int{}
				st.Accounts[a.ProviderType] = byStatus
			}
			byStatus[a.Status]++
			return nil
		})
		if err != nil {
			return err
		}
		var oldest []byte
		c := tx.Bucket(bucketOutboxPending).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			st.PendingMessages++
			if id := k[timeKeyLen:]; oldest == nil || bytes.Compare(id, oldest) < 0 {
				oldest = id
			}
		}
		if oldest == nil {
			return nil
		}
		var m struct {
			CreatedAt time.Time `json:"createdAt"`
		}
		if _, err := getJSON(tx.Bucket(bucketOutbox), oldest, &m); err != nil {
			return err
		}
		st.OldestPending = m.CreatedAt
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
