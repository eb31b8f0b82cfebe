package storetest

import (
	"strconv"
	"sync"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/records"
)

// appRecords is the account id of an application's own records.
const appRecords = ""

// recordTests cover records.Store: compare-and-set versions, listing by
// prefix, isolation between applications and accounts, and removal with
// the account.
var recordTests = []testCase{
	{"PutGet/OK", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		data := []byte{'{', 0x00, 0xff, '}'}
		v, err := s.PutRecord(t.Context(), "app_A", acc.ID, "calendars", "cal/1", data, 0)
		mustOK(t, "PutRecord()", err)
		if v == 0 {
			t.Fatalf("PutRecord() version = 0, want a positive version")
		}
		data[0] = 'X' // the Store keeps a copy
		got, err := s.GetRecord(t.Context(), "app_A", acc.ID, "calendars", "cal/1")
		mustOK(t, "GetRecord()", err)
		want := &records.Record{Key: "cal/1", Data: []byte{'{', 0x00, 0xff, '}'}, Version: v}
		if d := diff(want, got); d != "" {
			t.Errorf("GetRecord() mismatch (-want +got):\n%s", d)
		}
		got.Data[0] = 'Y' // and hands out copies
		again, err := s.GetRecord(t.Context(), "app_A", acc.ID, "calendars", "cal/1")
		mustOK(t, "GetRecord(again)", err)
		if d := diff(want, again); d != "" {
			t.Errorf("GetRecord() after changing the output mismatch (-want +got):\n%s", d)
		}
	}},
	{"Put/CompareAndSet", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		v1, err := s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("one"), 0)
		mustOK(t, "PutRecord(create)", err)
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("again"), 0)
		wantCode(t, "PutRecord(create existing)", err, unical.CodeConflict)
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("stale"), v1+1000)
		wantCode(t, "PutRecord(wrong version)", err, unical.CodeConflict)
		v2, err := s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("two"), v1)
		mustOK(t, "PutRecord(current version)", err)
		if v2 == v1 || v2 == 0 {
			t.Fatalf("PutRecord() version = %d after %d, want a new positive version", v2, v1)
		}
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("lost update"), v1)
		wantCode(t, "PutRecord(superseded version)", err, unical.CodeConflict)
		got, err := s.GetRecord(t.Context(), "app_A", acc.ID, "c", "k")
		mustOK(t, "GetRecord()", err)
		if d := diff(&records.Record{Key: "k", Data: []byte("two"), Version: v2}, got); d != "" {
			t.Errorf("GetRecord() mismatch (-want +got):\n%s", d)
		}
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "absent", []byte("x"), v2)
		wantCode(t, "PutRecord(absent, with a version)", err, unical.CodeNotFound)
	}},
	{"Put/ErrNotFoundAccount", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		_, err := s.PutRecord(t.Context(), "app_B", acc.ID, "c", "k", []byte("x"), 0)
		wantCode(t, "PutRecord(other app's account)", err, unical.CodeNotFound)
		_, err = s.PutRecord(t.Context(), "app_A", newID("acc"), "c", "k", []byte("x"), 0)
		wantCode(t, "PutRecord(unknown account)", err, unical.CodeNotFound)
		_, err = s.GetRecord(t.Context(), "app_B", acc.ID, "c", "k")
		wantCode(t, "GetRecord(after refused put)", err, unical.CodeNotFound)
	}},
	{"Invalid", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		for _, tc := range []struct{ collection, key string }{{"", "k"}, {"c", ""}, {"c\x00d", "k"}, {"c", "k\x00"}} {
			_, err := s.PutRecord(t.Context(), "app_A", acc.ID, tc.collection, tc.key, []byte("x"), 0)
			wantCode(t, "PutRecord("+strconv.Quote(tc.collection)+", "+strconv.Quote(tc.key)+")", err, unical.CodeInvalid)
		}
		_, err := s.ListRecords(t.Context(), "app_A", acc.ID, "", "", "", 0)
		wantCode(t, "ListRecords(no collection)", err, unical.CodeInvalid)
	}},
	{"Isolation", func(t *testing.T, s unical.Store) {
		a := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		b := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "desk@example.com")
		_, err := s.PutRecord(t.Context(), "app_A", a.ID, "c", "k", []byte("a's"), 0)
		mustOK(t, "PutRecord(a)", err)
		_, err = s.GetRecord(t.Context(), "app_A", b.ID, "c", "k")
		wantCode(t, "GetRecord(other account)", err, unical.CodeNotFound)
		_, err = s.GetRecord(t.Context(), "app_B", a.ID, "c", "k")
		wantCode(t, "GetRecord(other app)", err, unical.CodeNotFound)
		_, err = s.GetRecord(t.Context(), "app_A", a.ID, "other", "k")
		wantCode(t, "GetRecord(other collection)", err, unical.CodeNotFound)
		wantCode(t, "DeleteRecord(other app)", s.DeleteRecord(t.Context(), "app_B", a.ID, "c", "k", 0), unical.CodeNotFound)
		got, err := s.ListRecords(t.Context(), "app_B", a.ID, "c", "", "", 0)
		mustOK(t, "ListRecords(other app)", err)
		if len(got) != 0 {
			t.Errorf("ListRecords(other app) = %d records, want none", len(got))
		}
		// The same key in b is a record of its own.
		vb, err := s.PutRecord(t.Context(), "app_A", b.ID, "c", "k", []byte("b's"), 0)
		mustOK(t, "PutRecord(b)", err)
		gotB, err := s.GetRecord(t.Context(), "app_A", b.ID, "c", "k")
		mustOK(t, "GetRecord(b)", err)
		if d := diff(&records.Record{Key: "k", Data: []byte("b's"), Version: vb}, gotB); d != "" {
			t.Errorf("GetRecord(b) mismatch (-want +got):\n%s", d)
		}
	}},
	{"Delete", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		v1, err := s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("one"), 0)
		mustOK(t, "PutRecord()", err)
		wantCode(t, "DeleteRecord(wrong version)", s.DeleteRecord(t.Context(), "app_A", acc.ID, "c", "k", v1+1000), unical.CodeConflict)
		_, err = s.GetRecord(t.Context(), "app_A", acc.ID, "c", "k")
		mustOK(t, "GetRecord(after refused delete)", err)
		mustOK(t, "DeleteRecord(current version)", s.DeleteRecord(t.Context(), "app_A", acc.ID, "c", "k", v1))
		_, err = s.GetRecord(t.Context(), "app_A", acc.ID, "c", "k")
		wantCode(t, "GetRecord(deleted)", err, unical.CodeNotFound)
		wantCode(t, "DeleteRecord(deleted)", s.DeleteRecord(t.Context(), "app_A", acc.ID, "c", "k", 0), unical.CodeNotFound)
		// A version read before the delete does not match the new record.
		v2, err := s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("two"), 0)
		mustOK(t, "PutRecord(recreate)", err)
		if v2 == v1 {
			t.Fatalf("PutRecord(recreate) version = %d, the version the key had before its delete", v2)
		}
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "k", []byte("stale"), v1)
		wantCode(t, "PutRecord(version from before the delete)", err, unical.CodeConflict)
		mustOK(t, "DeleteRecord(any version)", s.DeleteRecord(t.Context(), "app_A", acc.ID, "c", "k", 0))
	}},
	{"List", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		other := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "desk@example.com")
		versions := map[string]uint64{}
		for _, k := range []string{"b/1", "a/2", "a/10", "a/1", "a"} {
			v, err := s.PutRecord(t.Context(), "app_A", acc.ID, "events", k, []byte("data of "+k), 0)
			mustOK(t, "PutRecord("+k+")", err)
			versions[k] = v
		}
		_, err := s.PutRecord(t.Context(), "app_A", acc.ID, "eventsX", "a/3", []byte("other collection"), 0)
		mustOK(t, "PutRecord(other collection)", err)
		_, err = s.PutRecord(t.Context(), "app_A", other.ID, "events", "a/4", []byte("other account"), 0)
		mustOK(t, "PutRecord(other account)", err)
		rec := func(k string) *records.Record {
			return &records.Record{Key: k, Data: []byte("data of " + k), Version: versions[k]}
		}
		for _, tc := range []struct {
			name, prefix, after string
			limit               int
			want                []*records.Record
		}{
			{"all", "", "", 0, []*records.Record{rec("a"), rec("a/1"), rec("a/10"), rec("a/2"), rec("b/1")}},
			{"prefix", "a/", "", 0, []*records.Record{rec("a/1"), rec("a/10"), rec("a/2")}},
			{"prefix after", "a/", "a/1", 0, []*records.Record{rec("a/10"), rec("a/2")}},
			{"after a missing key", "", "a/11", 0, []*records.Record{rec("a/2"), rec("b/1")}},
			{"after before the prefix", "b/", "a/2", 0, []*records.Record{rec("b/1")}},
			{"after past the prefix", "a/", "b", 0, nil},
			{"limit", "", "a", 2, []*records.Record{rec("a/1"), rec("a/10")}},
			{"no match", "c", "", 0, nil},
		} {
			got, err := s.ListRecords(t.Context(), "app_A", acc.ID, "events", tc.prefix, tc.after, tc.limit)
			mustOK(t, "ListRecords("+tc.name+")", err)
			if d := diff(tc.want, got); d != "" {
				t.Errorf("ListRecords(%s) mismatch (-want +got):\n%s", tc.name, d)
			}
		}
	}},
	{"DeleteAccount", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		keep := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "desk@example.com")
		for _, c := range []string{"calendars", "events"} {
			for _, k := range []string{"1", "2"} {
				_, err := s.PutRecord(t.Context(), "app_A", acc.ID, c, k, []byte("x"), 0)
				mustOK(t, "PutRecord()", err)
			}
		}
		vKeep, err := s.PutRecord(t.Context(), "app_A", keep.ID, "events", "1", []byte("kept"), 0)
		mustOK(t, "PutRecord(kept account)", err)
		mustOK(t, "DeleteAccount()", s.DeleteAccount(t.Context(), "app_A", acc.ID))
		_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "events", "3", []byte("x"), 0)
		wantCode(t, "PutRecord(deleted account)", err, unical.CodeNotFound)
		// An account created again with the same id starts with no records.
		mustOK(t, "CreateAccount(same id)", s.CreateAccount(t.Context(), fullAccount(acc.ID, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")))
		for _, c := range []string{"calendars", "events"} {
			got, err := s.ListRecords(t.Context(), "app_A", acc.ID, c, "", "", 0)
			mustOK(t, "ListRecords("+c+")", err)
			if len(got) != 0 {
				t.Errorf("ListRecords(%s) after DeleteAccount = %d records, want none", c, len(got))
			}
		}
		got, err := s.GetRecord(t.Context(), "app_A", keep.ID, "events", "1")
		mustOK(t, "GetRecord(kept account)", err)
		if d := diff(&records.Record{Key: "1", Data: []byte("kept"), Version: vKeep}, got); d != "" {
			t.Errorf("GetRecord(kept account) mismatch (-want +got):\n%s", d)
		}
	}},
	{"ApplicationRecords", func(t *testing.T, s unical.Store) {
		app := mustCreateApplication(t, s)
		other := mustCreateApplication(t, s)
		acc := mustCreateAccount(t, s, app.ID, unical.ProviderType("VIRTUAL"), "room@example.com")
		v, err := s.PutRecord(t.Context(), app.ID, appRecords, "bookings", "bk_1", []byte("app's"), 0)
		mustOK(t, "PutRecord(application record)", err)
		_, err = s.PutRecord(t.Context(), app.ID, appRecords, "bookings", "bk_1", []byte("again"), 0)
		wantCode(t, "PutRecord(application record exists)", err, unical.CodeConflict)
		_, err = s.PutRecord(t.Context(), app.ID, acc.ID, "bookings", "bk_1", []byte("account's"), 0)
		mustOK(t, "PutRecord(account record, same key)", err)
		got, err := s.ListRecords(t.Context(), app.ID, appRecords, "bookings", "", "", 0)
		mustOK(t, "ListRecords(application)", err)
		if d := diff([]*records.Record{{Key: "bk_1", Data: []byte("app's"), Version: v}}, got); d != "" {
			t.Errorf("ListRecords(application) mismatch (-want +got):\n%s", d)
		}
		_, err = s.GetRecord(t.Context(), other.ID, appRecords, "bookings", "bk_1")
		wantCode(t, "GetRecord(other application)", err, unical.CodeNotFound)
		// The application goes with its records once its accounts are gone.
		mustOK(t, "DeleteAccount()", s.DeleteAccount(t.Context(), app.ID, acc.ID))
		_, err = s.PutRecord(t.Context(), other.ID, appRecords, "bookings", "bk_1", []byte("kept"), 0)
		mustOK(t, "PutRecord(other application)", err)
		mustOK(t, "DeleteApplication()", s.DeleteApplication(t.Context(), app.ID))
		_, err = s.GetRecord(t.Context(), app.ID, appRecords, "bookings", "bk_1")
		wantCode(t, "GetRecord(deleted application)", err, unical.CodeNotFound)
		_, err = s.GetRecord(t.Context(), other.ID, appRecords, "bookings", "bk_1")
		mustOK(t, "GetRecord(other application after the delete)", err)
	}},
	{"ConcurrentWriters", func(t *testing.T, s unical.Store) {
		acc := mustCreateAccount(t, s, "app_A", unical.ProviderType("VIRTUAL"), "room@example.com")
		_, err := s.PutRecord(t.Context(), "app_A", acc.ID, "c", "counter", []byte("0"), 0)
		mustOK(t, "PutRecord()", err)
		const writers, increments = 6, 5
		var wg sync.WaitGroup
		for range writers {
			wg.Go(func() {
				for done := 0; done < increments; {
					rec, err := s.GetRecord(t.Context(), "app_A", acc.ID, "c", "counter")
					if err != nil {
						t.Errorf("GetRecord(): %v", err)
						return
					}
					n, _ := strconv.Atoi(string(rec.Data))
					_, err = s.PutRecord(t.Context(), "app_A", acc.ID, "c", "counter", []byte(strconv.Itoa(n+1)), rec.Version)
					switch unical.ErrorCode(err) {
					case "":
						done++
					case unical.CodeConflict: // another writer won: read again
					default:
						t.Errorf("PutRecord(): %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		got, err := s.GetRecord(t.Context(), "app_A", acc.ID, "c", "counter")
		mustOK(t, "GetRecord()", err)
		if want := strconv.Itoa(writers * increments); string(got.Data) != want {
			t.Errorf("counter = %s after %d compare-and-set increments, want %s (an update was lost)", got.Data, writers*increments, want)
		}
	}},
}
