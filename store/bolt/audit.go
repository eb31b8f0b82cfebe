package bolt

import (
	"bytes"
	"context"
	"time"

	"github.com/unical/unical/audit"
	"github.com/unical/unical/store/internal/storedoc"
	"go.etcd.io/bbolt"
)

// AppendAudit stores an audit entry under its id (ids sort by time) with
// an application index, and removes up to storedoc.AuditPruneLimit of the
// oldest entries made before removeBefore, in one transaction.
func (s *Store) AppendAudit(ctx context.Context, e *audit.Entry, removeBefore time.Time) error {
	if err := storedoc.CheckAuditEntry(e); err != nil {
		return err
	}
	return s.update(ctx, "append audit entry", func(tx *bbolt.Tx) error {
		log, byApp := tx.Bucket(bucketAudit), tx.Bucket(bucketAuditByApp)
		var old [][]byte
		c := log.Cursor()
		for k, v := c.First(); k != nil && len(old) < storedoc.AuditPruneLimit; k, v = c.Next() {
			var rec audit.Entry
			if err := decode(k, v, &rec); err != nil {
				return err
			}
			if !rec.At.Before(removeBefore) {
				break
			}
			old = append(old, k, keyOf(rec.ApplicationID, rec.ID))
		}
		for i := 0; i < len(old); i += 2 {
			if err := log.Delete(old[i]); err != nil {
				return err
			}
			if err := byApp.Delete(old[i+1]); err != nil {
				return err
			}
		}
		rec := *e
		rec.At = storedoc.UTC(rec.At)
		if err := putJSON(log, []byte(rec.ID), &rec); err != nil {
			return err
		}
		return byApp.Put(keyOf(rec.ApplicationID, rec.ID), nil)
	})
}

// ListAudit returns audit entries newest first, of one application or
// (appID "") of all, with ids before before, at most limit of them.
func (s *Store) ListAudit(ctx context.Context, appID, before string, limit int) ([]*audit.Entry, error) {
	var out []*audit.Entry
	err := s.view(ctx, "list audit entries", func(tx *bbolt.Tx) error {
		log := tx.Bucket(bucketAudit)
		read := func(id []byte) error {
			var rec audit.Entry
			ok, err := getJSON(log, id, &rec)
			if err != nil || !ok {
				return err
			}
			out = append(out, &rec)
			return nil
		}
		if appID == "" {
			c := log.Cursor()
			k, _ := c.Last()
			if before != "" {
				k, _ = c.Seek([]byte(before))
				if k == nil {
					k, _ = c.Last()
				} else {
					k, _ = c.Prev()
				}
			}
			for ; k != nil && len(out) < limit; k, _ = c.Prev() {
				if err := read(k); err != nil {
					return err
				}
			}
			return nil
		}
		prefix := keyOf(appID, "")
		c := tx.Bucket(bucketAuditByApp).Cursor()
		// Past the application's last key, then back.
		k, _ := c.Seek(keyOf(appID, "\xff"))
		if before != "" {
			k, _ = c.Seek(keyOf(appID, before))
		}
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Prev() {
			if err := read(k[len(prefix):]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
