package booking

import (
	"context"
	"encoding/json"

	"github.com/unical/unical"
	"github.com/unical/unical/records"
)

// A booking's writes to the Store go in two atomic writes where the Store
// can make several at once (records.BatchStore): the pending record
// with the ledger claims, then the booking record with the removal of the
// pending record. A Store without it gets the same records one by one,
// in the same order, and the pending record covers the gaps: recovery
// finds a booking's claims or record by it. On bbolt each write is one
// fsync, which is most of a booking's time.

// writeBatch makes writes in one atomic write; ok is false, and nothing
// is written, when the Store cannot.
func (s *Service) writeBatch(ctx context.Context, writes []records.Write) (versions []uint64, ok bool, err error) {
	bs, ok := s.store.(records.BatchStore)
	if !ok {
		return nil, false, nil
	}
	versions, err = bs.WriteRecords(ctx, s.app.ID(), writes)
	return versions, true, err
}

// appRecord is the write of v as one of the application's records, new.
func appRecord(collection, id string, v any) (records.Write, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return records.Write{}, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return records.Write{AccountID: appRecords, Collection: collection, Key: id, Data: data}, nil
}

// ledgerRead is a ledger as read, with its version.
type ledgerRead struct {
	l       *ledger
	version uint64
}

// claimWith writes first, a new record of the application (a booking's
// pending record, a hold), and claims req.c in each account's ledger: all
// in one write, read again and retried while another writer changes a
// ledger meanwhile, or (a Store without batches) first, then the claims
// in turn, then first removed again if a claim is refused. The first
// attempt starts from the ledgers in read, where it has them (choose read
// them a moment before); the compare-and-set catches any change since. It
// returns first's version; on an error nothing is left written.
func (s *Service) claimWith(ctx context.Context, accounts []string, req *claimRequest, first records.Write, read map[string]ledgerRead) (uint64, error) {
	if _, batches := s.store.(records.BatchStore); !batches {
		version, err := s.store.PutRecord(ctx, s.app.ID(), first.AccountID, first.Collection, first.Key, first.Data, 0)
		if err != nil {
			return 0, err
		}
		if err := s.claimAll(ctx, accounts, req); err != nil {
			_ = s.store.DeleteRecord(context.WithoutCancel(ctx), s.app.ID(), first.AccountID, first.Collection, first.Key, version)
			return 0, err
		}
		return version, nil
	}
	for range casAttempts {
		writes := []records.Write{first}
		for _, acc := range accounts {
			l, version := read[acc].l, read[acc].version
			if l == nil {
				var err error
				if l, version, err = s.readLedger(ctx, acc); err != nil {
					return 0, err
				}
			}
			l.prune(s.c.Config().Now())
			if err := s.claimOne(l, acc, req); err != nil {
				return 0, err
			}
			data, err := json.Marshal(l)
			if err != nil {
				return 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
			}
			writes = append(writes, records.Write{AccountID: acc, Collection: ledgerCollection, Key: ledgerKey, Data: data, IfVersion: version})
		}
		read = nil
		versions, _, err := s.writeBatch(ctx, writes)
		if unical.ErrorCode(err) == unical.CodeConflict {
			// A ledger moved since it was read (first is new and
			// unique): read them again.
			continue
		}
		if err != nil {
			return 0, err
		}
		return versions[0], nil
	}
	return 0, unical.Errorf(unical.CodeConflict, "Too many concurrent bookings for these participants; retry.")
}

// recordBooking writes a booking's record and removes its pending record
// (at pendingVersion): in one write, or (a Store without batches) one
// after the other, where a pending record left behind is removed by
// recovery, which finds the booking written. On an error the booking's
// record is not written.
func (s *Service) recordBooking(ctx context.Context, rec *bookingRecord, pendingVersion uint64) error {
	put, err := appRecord(bookingsCollection, rec.ID, rec)
	if err != nil {
		return err
	}
	done := records.Write{AccountID: appRecords, Collection: pendingCollection, Key: rec.ID, IfVersion: pendingVersion, Delete: true}
	if _, ok, err := s.writeBatch(ctx, []records.Write{put, done}); ok {
		return err
	}
	if _, err := s.store.PutRecord(ctx, s.app.ID(), appRecords, bookingsCollection, rec.ID, put.Data, 0); err != nil {
		return err
	}
	_ = s.store.DeleteRecord(context.WithoutCancel(ctx), s.app.ID(), appRecords, pendingCollection, rec.ID, pendingVersion)
	return nil
}
