package storetest

import (
	"strconv"
	"sync"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/records"
)

// recordBatchTests cover records.BatchStore, for a Store that has it: a
// batch makes every write, in order, or none, with the compare-and-set
// and errors of PutRecord and DeleteRecord.
var recordBatchTests = []testCase{
	{"Commits", func(t *testing.T, s unical.Store) {
		bs := batchStore(t, s)
		app := mustCreateApplication(t, s)
		acc := mustCreateAccount(t, s, app.ID, unical.ProviderType("VIRTUAL"), "room@example.com")
		vOld, err := s.PutRecord(t.Context(), app.ID, acc.ID, "ledger", "claims", []byte("old"), 0)
		mustOK(t, "PutRecord(ledger)", err)
		vGone, err := s.PutRecord(t.Context(), app.ID, appRecords, "pending", "bk_1", []byte("pending"), 0)
		mustOK(t, "PutRecord(pending)", err)
		versions, err := bs.WriteRecords(t.Context(), app.ID, []records.Write{
			{AccountID: appRecords, Collection: "bookings", Key: "bk_1", Data: []byte("booking")},
			{AccountID: acc.ID, Collection: "ledger", Key: "claims", Data: []byte("new"), IfVersion: vOld},
			{AccountID: appRecords, Collection: "pending", Key: "bk_1", IfVersion: vGone, Delete: true},
		})
		mustOK(t, "WriteRecords()", err)
		if len(versions) != 3 || versions[0] == 0 || versions[1] == 0 || versions[0] == versions[1] || versions[1] == vOld || versions[2] != 0 {
			t.Fatalf("WriteRecords() versions = %v, want two new positive versions and 0 for the delete", versions)
		}
		got, err := s.GetRecord(t.Context(), app.ID, appRecords, "bookings", "bk_1")
		mustOK(t, "GetRecord(booking)", err)
		if d := diff(&records.Record{Key: "bk_1", Data: []byte("booking"), Version: versions[0]}, got); d != "" {
			t.Errorf("GetRecord(booking) mismatch (-want +got):\n%s", d)
		}
		got, err = s.GetRecord(t.Context(), app.ID, acc.ID, "ledger", "claims")
		mustOK(t, "GetRecord(ledger)", err)
		if d := diff(&records.Record{Key: "claims", Data: []byte("new"), Version: versions[1]}, got); d != "" {
			t.Errorf("GetRecord(ledger) mismatch (-want +got):\n%s", d)
		}
		_, err = s.GetRecord(t.Context(), app.ID, appRecords, "pending", "bk_1")
		wantCode(t, "GetRecord(deleted pending)", err, unical.CodeNotFound)
		// Writes apply in order: a later write sees an earlier one.
		versions, err = bs.WriteRecords(t.Context(), app.ID, []records.Write{
			{AccountID: appRecords, Collection: "holds", Key: "h", Data: []byte("x")},
			{AccountID: appRecords, Collection: "holds", Key: "h", Delete: true},
		})
		mustOK(t, "WriteRecords(put then delete)", err)
		_, err = s.GetRecord(t.Context(), app.ID, appRecords, "holds", "h")
		wantCode(t, "GetRecord(put then deleted)", err, unical.CodeNotFound)
		if _, err := s.PutRecord(t.Context(), app.ID, appRecords, "holds", "h", []byte("stale"), versions[0]); unical.ErrorCode(err) == "" {
			t.Errorf("PutRecord(version of the deleted put) succeeded; a key must never get a version it had before")
		}
	}},
	{"AllOrNothing", func(t *testing.T, s unical.Store) {
		bs := batchStore(t, s)
		app := mustCreateApplication(t, s)
		acc := mustCreateAccount(t, s, app.ID, unical.ProviderType("VIRTUAL"), "room@example.com")
		vKeep, err := s.PutRecord(t.Context(), app.ID, acc.ID, "ledger", "claims", []byte("kept"), 0)
		mustOK(t, "PutRecord(ledger)", err)
		vOther, err := s.PutRecord(t.Context(), app.ID, appRecords, "pending", "bk_0", []byte("kept too"), 0)
		mustOK(t, "PutRecord(pending)", err)
		for _, tc := range []struct {
			name string
			last records.Write
			want unical.Code
		}{
			{"stale version", records.Write{AccountID: acc.ID, Collection: "ledger", Key: "claims", Data: []byte("x"), IfVersion: vKeep + 1000}, unical.CodeConflict},
			{"create existing", records.Write{AccountID: acc.ID, Collection: "ledger", Key: "claims", Data: []byte("x")}, unical.CodeConflict},
			{"put absent with a version", records.Write{AccountID: appRecords, Collection: "pending", Key: "bk_9", Data: []byte("x"), IfVersion: vOther}, unical.CodeNotFound},
			{"delete absent", records.Write{AccountID: appRecords, Collection: "pending", Key: "bk_9", Delete: true}, unical.CodeNotFound},
			{"delete stale", records.Write{AccountID: acc.ID, Collection: "ledger", Key: "claims", IfVersion: vKeep, Delete: true}, unical.CodeConflict},
			{"deleted earlier in the batch", records.Write{AccountID: appRecords, Collection: "pending", Key: "bk_0", Data: []byte("x"), IfVersion: vOther}, unical.CodeNotFound},
			{"unknown account", records.Write{AccountID: newID("acc"), Collection: "ledger", Key: "claims", Data: []byte("x")}, unical.CodeNotFound},
			{"invalid key", records.Write{AccountID: appRecords, Collection: "pending", Key: "bad\x00", Data: []byte("x")}, unical.CodeInvalid},
		} {
			_, err := bs.WriteRecords(t.Context(), app.ID, []records.Write{
				{AccountID: appRecords, Collection: "bookings", Key: "bk_1", Data: []byte("booking")},
				{AccountID: acc.ID, Collection: "ledger", Key: "claims", Data: []byte("changed"), IfVersion: vKeep},
				{AccountID: appRecords, Collection: "pending", Key: "bk_0", IfVersion: vOther, Delete: true},
				tc.last,
			})
			wantCode(t, "WriteRecords("+tc.name+")", err, tc.want)
			_, err = s.GetRecord(t.Context(), app.ID, appRecords, "bookings", "bk_1")
			wantCode(t, "GetRecord(booking of a failed batch, "+tc.name+")", err, unical.CodeNotFound)
			got, err := s.GetRecord(t.Context(), app.ID, acc.ID, "ledger", "claims")
			mustOK(t, "GetRecord(ledger)", err)
			if d := diff(&records.Record{Key: "claims", Data: []byte("kept"), Version: vKeep}, got); d != "" {
				t.Errorf("GetRecord(ledger) after a failed batch (%s) mismatch (-want +got):\n%s", tc.name, d)
			}
			got, err = s.GetRecord(t.Context(), app.ID, appRecords, "pending", "bk_0")
			mustOK(t, "GetRecord(pending after a failed batch, "+tc.name+")", err)
			if got.Version != vOther {
				t.Errorf("pending record version = %d after a failed batch (%s), want %d", got.Version, tc.name, vOther)
			}
		}
	}},
	{"ConcurrentWriters", func(t *testing.T, s unical.Store) {
		bs := batchStore(t, s)
		a := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		b := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "desk@example.com")
		for _, acc := range []string{a.ID, b.ID} {
			_, err := s.PutRecord(t.Context(), "app_A", acc, "c", "counter", []byte("0"), 0)
			mustOK(t, "PutRecord()", err)
		}
		// Each writer moves both counters by compare-and-set in one batch;
		// a writer that lost either read starts again.
		const writers, increments = 6, 5
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for done := 0; done < increments; {
					var writes []records.Write
					for _, acc := range []string{a.ID, b.ID} {
						rec, err := s.GetRecord(t.Context(), "app_A", acc, "c", "counter")
						if err != nil {
							t.Errorf("GetRecord(): %v", err)
							return
						}
						n, _ := strconv.Atoi(string(rec.Data))
						writes = append(writes, records.Write{AccountID: acc, Collection: "c", Key: "counter", Data: []byte(strconv.Itoa(n + 1)), IfVersion: rec.Version})
					}
					_, err := bs.WriteRecords(t.Context(), "app_A", writes)
					switch unical.ErrorCode(err) {
					case "":
						done++
					case unical.CodeConflict:
					default:
						t.Errorf("WriteRecords(): %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		for _, acc := range []string{a.ID, b.ID} {
			got, err := s.GetRecord(t.Context(), "app_A", acc, "c", "counter")
			mustOK(t, "GetRecord()", err)
			if want := strconv.Itoa(writers * increments); string(got.Data) != want {
				t.Errorf("counter of %s = %s after %d batched increments, want %s", acc, got.Data, writers*increments, want)
			}
		}
	}},
}

// batchStore is s as a records.BatchStore; the case is skipped for a Store
// without it.
func batchStore(t *testing.T, s unical.Store) records.BatchStore {
	t.Helper()
	bs, ok := s.(records.BatchStore)
	if !ok {
		t.Skip("the Store does not implement records.BatchStore")
	}
	return bs
}
