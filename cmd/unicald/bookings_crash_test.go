package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/postgres"
)

// TestReplicas_BookingsSurviveAKill sends 200 concurrent bookings for 20
// slots of one VIRTUAL host to three unicald replicas on one PostgreSQL
// database and kills one replica with SIGKILL while they run. Afterwards,
// once recovery has run at a time past the dead writers' leases, no two
// confirmed bookings overlap, each holds its event, and the host's
// calendar holds no event that is not a confirmed booking's.
func TestReplicas_BookingsSurviveAKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds unicald and starts three processes on PostgreSQL")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "unicald")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	storeURL := pgtest.Start(t, pgtest.Options{}).NewDatabase(t)
	key := seal.NewKey()
	env := envOf(map[string]string{"UNICAL_MASTER_KEY": key.String()})
	var out bytes.Buffer
	m := &Main{Stdout: &out, Stderr: io.Discard, Getenv: env, Providers: []unical.Provider{}}
	if err := m.Run(t.Context(), []string{"apps", "create", "--name", "bookings", "--json", "--store", storeURL}); err != nil {
		t.Fatal(err)
	}
	var app struct {
		ApplicationID string `json:"applicationId"`
		APIKey        string `json:"apiKey"`
	}
	if err := json.Unmarshal(out.Bytes(), &app); err != nil {
		t.Fatal(err)
	}
	var reps []*replica
	for i := range 3 {
		reps = append(reps, startReplica(t, bin, dir, i+1, []string{"UNICAL_MASTER_KEY=" + key.String()},
			"serve", "--addr", "127.0.0.1:"+freePort(t), "--store", storeURL, "--rate-limit-key", "0", "--rate-limit-ip", "0"))
	}
	for _, r := range reps {
		waitReady(t, r)
	}
	post := func(r *replica, path string, body any) (int, []byte, error) {
		b, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(t.Context(), "POST", r.url+path, bytes.NewReader(b))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("x-api-key", app.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		return resp.StatusCode, data, err
	}
	mustPost := func(path string, body, v any) {
		t.Helper()
		code, data, err := post(reps[0], path, body)
		if err != nil || (code != http.StatusOK && code != http.StatusCreated) {
			t.Fatalf("POST %s = %d %s %v", path, code, data, err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	var host unical.Account
	mustPost("/v1/endUserAccounts", map[string]any{"email": "host@example.com", "providerType": "VIRTUAL"}, &host)
	var bt booking.BookingType
	mustPost("/v1/bookingTypes", map[string]any{"name": "Crash", "durationMinutes": 30, "intervalMinutes": 30,
		"participants": []map[string]any{{"endUserAccountId": host.ID}}}, &bt)

	// 20 slots of 30 minutes from a Monday 10:00 UTC, ten requests each,
	// spread over the replicas; replica 3 dies after 5 answers, while the first bookings are being written.
	d := time.Now().UTC().AddDate(0, 0, 7)
	for d.Weekday() != time.Monday {
		d = d.AddDate(0, 0, 1)
	}
	first := time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, time.UTC)
	var (
		wg       sync.WaitGroup
		answered atomic.Int64
		killOnce sync.Once
		mu       sync.Mutex
		statuses = map[string]int{}
	)
	for i := range 200 {
		wg.Go(func() {
			start := first.Add(time.Duration(i%20) * 30 * time.Minute)
			code, _, err := post(reps[i%3], "/v1/bookings", map[string]any{"bookingTypeId": bt.ID, "startDateTime": start.Format(time.RFC3339),
				"guest": map[string]any{"email": fmt.Sprintf("guest%d@example.org", i)}})
			mu.Lock()
			if err != nil {
				statuses["no answer"]++
			} else {
				statuses[fmt.Sprint(code)]++
			}
			mu.Unlock()
			if answered.Add(1) == 5 {
				killOnce.Do(func() {
					_ = reps[2].cmd.Process.Signal(syscall.SIGKILL)
					_ = reps[2].cmd.Wait()
				})
			}
		})
	}
	wg.Wait()
	t.Logf("answers: %v", statuses)

	// Recovery as a surviving replica runs it once the leases are over:
	// a Client whose clock is 5 minutes ahead.
	store, err := postgres.Open(t.Context(), postgres.Config{URL: storeURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	later := func() time.Time { return time.Now().Add(5 * time.Minute) }
	client, err := unical.New(unical.Config{Store: store, Providers: virtual.Add(nil, virtual.Config{Store: store}), MasterKey: key, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	undone, err := booking.Recover(t.Context(), client)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recovery undid %d bookings of the killed replica", undone)

	a, err := client.App(t.Context(), app.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	svc := booking.New(client, a)
	confirmed := map[string]*booking.Booking{}
	slots := map[string]string{}
	for b, err := range unical.All(t.Context(), func(ctx context.Context, token string) (*unical.Page[*booking.Booking], error) {
		return svc.ListBookings(ctx, &booking.BookingListParams{PageToken: token, Limit: unical.MaxPageSize})
	}) {
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != booking.StatusConfirmed {
			continue
		}
		if other, taken := slots[b.Start.DateTime]; taken {
			t.Errorf("bookings %s and %s both hold %s", other, b.ID, b.Start.DateTime)
		}
		slots[b.Start.DateTime] = b.ID
		confirmed[b.ID] = b
	}
	if len(confirmed) == 0 || len(confirmed) > 20 {
		t.Errorf("%d confirmed bookings, want 1 to 20", len(confirmed))
	}
	events := map[string]string{} // event id -> booking id
	for ev, err := range unical.AllEvents(t.Context(), a, host.ID, "primary", nil, nil) {
		if err != nil {
			t.Fatal(err)
		}
		events[ev.ID] = ev.PrivateExtendedProperties["unicalBookingId"]
		if _, ok := confirmed[events[ev.ID]]; !ok {
			t.Errorf("event %s (booking %q) at %s belongs to no confirmed booking", ev.ID, events[ev.ID], ev.Start.DateTime)
		}
	}
	for id, b := range confirmed {
		if len(b.Events) != 1 || events[b.Events[0].EventID] != id {
			t.Errorf("booking %s has events %+v, not its one event in the host's calendar", id, b.Events)
		}
	}
	if len(events) != len(confirmed) {
		t.Errorf("%d events for %d confirmed bookings, want one each", len(events), len(confirmed))
	}
}
