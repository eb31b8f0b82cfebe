package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
)

var flowTests = []testCase{
	{"Consume/OK", func(t *testing.T, s unical.Store) {
		id := newID("flow")
		want := fullFlow(id, "app_A", base.Add(10*time.Minute))
		checkFull(t, want)
		mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), fullFlow(id, "app_A", base.Add(10*time.Minute)), 0))
		got, err := s.ConsumeFlow(t.Context(), id, base.Add(10*time.Minute-time.Microsecond))
		mustOK(t, "ConsumeFlow()", err)
		if d := diff(want, got); d != "" {
			t.Errorf("ConsumeFlow() mismatch (-want +got):\n%s", d)
		}
		_, err = s.ConsumeFlow(t.Context(), id, base)
		wantCode(t, "ConsumeFlow(used)", err, unical.CodeNotFound)
	}},
	{"Consume/ErrNotFound", func(t *testing.T, s unical.Store) {
		_, err := s.ConsumeFlow(t.Context(), newID("flow"), base)
		wantCode(t, "ConsumeFlow(unknown)", err, unical.CodeNotFound)
	}},
	{"Consume/ErrExpired", func(t *testing.T, s unical.Store) {
		flow := fullFlow(newID("flow"), "app_A", base.Add(10*time.Minute))
		mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), flow, 0))
		_, err := s.ConsumeFlow(t.Context(), flow.ID, flow.ExpiresAt)
		wantCode(t, "ConsumeFlow(at expiry)", err, unical.CodeNotFound)
	}},
	{"Consume/Once", func(t *testing.T, s unical.Store) {
		flow := fullFlow(newID("flow"), "app_A", base.Add(10*time.Minute))
		mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), flow, 0))
		var (
			wins atomic.Int32
			wg   sync.WaitGroup
		)
		for range 8 {
			wg.Go(func() {
				_, err := s.ConsumeFlow(t.Context(), flow.ID, base)
				switch unical.ErrorCode(err) {
				case "":
					wins.Add(1)
				case unical.CodeNotFound:
				default:
					t.Errorf("ConsumeFlow(): %v", err)
				}
			})
		}
		wg.Wait()
		if got := wins.Load(); got != 1 {
			t.Errorf("%d of 8 concurrent ConsumeFlow() calls succeeded, want 1", got)
		}
	}},
	{"Create/ErrConflict", func(t *testing.T, s unical.Store) {
		flow := fullFlow(newID("flow"), "app_A", base.Add(10*time.Minute))
		mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), flow, 0))
		dup := fullFlow(flow.ID, "app_B", base.Add(20*time.Minute))
		wantCode(t, "CreateFlow(same id)", s.CreateFlow(t.Context(), dup, 0), unical.CodeConflict)
		got, err := s.ConsumeFlow(t.Context(), flow.ID, base)
		mustOK(t, "ConsumeFlow()", err)
		if d := diff(flow, got); d != "" {
			t.Errorf("ConsumeFlow() after conflict mismatch (-want +got):\n%s", d)
		}
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		id := newID("flow")
		flow := fullFlow(id, "app_A", base.Add(time.Minute))
		mustOK(t, "CreateFlow()", s.CreateFlow(t.Context(), flow, 0))
		flow.SealedVerifier[0] = 'X'
		flow.State = "changed"
		got, err := s.ConsumeFlow(t.Context(), id, base)
		mustOK(t, "ConsumeFlow()", err)
		if d := diff(fullFlow(id, "app_A", base.Add(time.Minute)), got); d != "" {
			t.Errorf("ConsumeFlow() after changing the input mismatch (-want +got):\n%s", d)
		}
	}},
}

var blobTests = []testCase{
	{"PutGet/OK", func(t *testing.T, s unical.Store) {
		data := []byte{0x00, 'b', 'l', 'o', 'b', 0xff}
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "cursor/1", data, base.Add(time.Hour)))
		got, err := s.GetBlob(t.Context(), "app_A", "cursor/1", base.Add(time.Hour-time.Microsecond))
		mustOK(t, "GetBlob()", err)
		if d := diff([]byte{0x00, 'b', 'l', 'o', 'b', 0xff}, got); d != "" {
			t.Errorf("GetBlob() mismatch (-want +got):\n%s", d)
		}
	}},
	{"Put/Replaces", func(t *testing.T, s unical.Store) {
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "k", []byte("old"), base.Add(time.Hour)))
		mustOK(t, "PutBlob(again)", s.PutBlob(t.Context(), "app_A", "k", []byte("new"), base.Add(2*time.Hour)))
		got, err := s.GetBlob(t.Context(), "app_A", "k", base.Add(90*time.Minute))
		mustOK(t, "GetBlob()", err)
		if d := diff([]byte("new"), got); d != "" {
			t.Errorf("GetBlob() after replace mismatch (-want +got):\n%s", d)
		}
		mustOK(t, "PutBlob(shorter)", s.PutBlob(t.Context(), "app_A", "k", []byte("short"), base.Add(time.Minute)))
		_, err = s.GetBlob(t.Context(), "app_A", "k", base.Add(90*time.Minute))
		wantCode(t, "GetBlob(after the shorter expiry)", err, unical.CodeNotFound)
	}},
	{"Get/ErrExpired", func(t *testing.T, s unical.Store) {
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "k", []byte("data"), base))
		_, err := s.GetBlob(t.Context(), "app_A", "k", base)
		wantCode(t, "GetBlob(at expiry)", err, unical.CodeNotFound)
	}},
	{"Get/ErrNotFound", func(t *testing.T, s unical.Store) {
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "k", []byte("data"), base.Add(time.Hour)))
		_, err := s.GetBlob(t.Context(), "app_A", "k2", base)
		wantCode(t, "GetBlob(unknown)", err, unical.CodeNotFound)
	}},
	{"Get/ErrForeignApp", func(t *testing.T, s unical.Store) {
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "k", []byte("data"), base.Add(time.Hour)))
		_, err := s.GetBlob(t.Context(), "app_B", "k", base)
		wantCode(t, "GetBlob(other app)", err, unical.CodeNotFound)
		mustOK(t, "PutBlob(other app, same key)", s.PutBlob(t.Context(), "app_B", "k", []byte("theirs"), base.Add(time.Hour)))
		got, err := s.GetBlob(t.Context(), "app_A", "k", base)
		mustOK(t, "GetBlob()", err)
		if d := diff([]byte("data"), got); d != "" {
			t.Errorf("GetBlob() after another app's put mismatch (-want +got):\n%s", d)
		}
	}},
	{"Copies", func(t *testing.T, s unical.Store) {
		data := []byte("data")
		mustOK(t, "PutBlob()", s.PutBlob(t.Context(), "app_A", "k", data, base.Add(time.Hour)))
		data[0] = 'X'
		got, err := s.GetBlob(t.Context(), "app_A", "k", base)
		mustOK(t, "GetBlob()", err)
		got[0] = 'X'
		got, err = s.GetBlob(t.Context(), "app_A", "k", base)
		mustOK(t, "GetBlob()", err)
		if d := diff([]byte("data"), got); d != "" {
			t.Errorf("GetBlob() after changing copies mismatch (-want +got):\n%s", d)
		}
	}},
}
