package httpapi_test

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/httpapi"
	"github.com/unical/unical/httpclient"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/internal/testkit/pgtest"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/provider/virtual"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
)

// plainStack serves store and providers (and VIRTUAL) with the bare
// handler unicald serves, no test middleware, and returns a client of an
// application that can connect PROVIDER_A accounts.
func plainStack(b *testing.B, store unical.Store, providers ...unical.Provider) *httpclient.Client {
	b.Helper()
	client, err := unical.New(unical.Config{Store: store, Providers: virtual.Add(providers, virtual.Config{Store: store}), MasterKey: seal.NewKey()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { client.Close() })
	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Config{Client: client}))
	b.Cleanup(srv.Close)
	created, err := admin.Of(client).CreateApplication(b.Context(), &admin.ApplicationParams{Name: unical.Some("bench"),
		Providers: map[unical.ProviderType]unical.ProviderSettings{unical.ProviderGoogle: {ClientID: "client-1", ClientSecret: "client-secret-1"}}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := httpclient.New(httpclient.Config{BaseURL: srv.URL, APIKey: created.APIKey})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkBookingSlots10Slow is issue 34's bound on slots: a booking
// type of 10 participants whose provider answers each event listing
// after 100 ms, slots over 30 days with working hours; the slots cost
// about one participant's free/busy, not ten (the issue asks for at most
// 1.5x). The x-delay metric is the time per request over the delay,
// x-freebusy over one participant's free/busy of the same window through
// the same stack, measured just before. The server is the bare handler
// unicald serves, on bbolt.
func BenchmarkBookingSlots10Slow(b *testing.B) {
	const delay = 100 * time.Millisecond
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(b.TempDir(), "unical.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	c := plainStack(b, store, slowProvider{google, delay})
	var parts []booking.Participant
	hours := &availability.WorkingHours{TimeZone: "Europe/Berlin"}
	for _, d := range []string{"monday", "tuesday", "wednesday", "thursday", "friday"} {
		hours.Intervals = append(hours.Intervals, availability.WorkingInterval{Day: d, Start: "09:00", End: "17:00"})
	}
	for i := range 10 {
		email := fmt.Sprintf("p%d@example.com", i)
		cal := google.AddUser(email, "refresh-"+email, "")
		acct, err := c.CreateAccount(b.Context(), &unical.AccountCreateParams{Email: email, ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-" + email)})
		if err != nil {
			b.Fatal(err)
		}
		busy := time.Now().UTC().AddDate(1, 0, 2).Truncate(24 * time.Hour).Add(time.Duration(8+i%8) * time.Hour)
		if _, err := c.CreateEvent(b.Context(), acct.ID, cal, &unical.EventParams{Title: unical.Some("Busy"),
			Start: unical.Some(unical.EventDateTime{DateTime: busy.Format(time.RFC3339)}), End: unical.Some(unical.EventDateTime{DateTime: busy.Add(30 * time.Minute).Format(time.RFC3339)})}); err != nil {
			b.Fatal(err)
		}
		parts = append(parts, booking.Participant{Participant: availability.Participant{EndUserAccountID: acct.ID, CalendarIDs: []string{cal},
			WorkingHours: hours, Required: unical.Some(i < 5)}})
	}
	bt, err := c.CreateBookingType(b.Context(), &booking.BookingTypeParams{Name: unical.Some("Team"), DurationMinutes: unical.Some(30),
		Participants: unical.Some(parts), HorizonDays: unical.Some(730)})
	if err != nil {
		b.Fatal(err)
	}
	// 30 days some years ahead, inside the horizon.
	from := time.Now().UTC().AddDate(1, 0, 0).Truncate(24 * time.Hour)
	params := &booking.SlotParams{StartDateTime: from.Format(time.RFC3339), EndDateTime: from.AddDate(0, 0, 30).Format(time.RFC3339)}
	if res, err := c.ListSlots(b.Context(), bt.ID, params); err != nil || len(res.Data) == 0 {
		b.Fatalf("slots = %v, %v; want some", res, err)
	}
	// The slowest participant's free/busy over the same window, through
	// the same stack: they are all equally slow, so the first one's.
	fb := &unical.FreeBusyParams{StartDateTime: params.StartDateTime, EndDateTime: params.EndDateTime, TimeZone: "Europe/Berlin", CalendarIDs: parts[0].CalendarIDs}
	const fbRuns = 5
	fbStart := time.Now()
	for range fbRuns {
		if _, err := c.QueryFreeBusy(b.Context(), parts[0].EndUserAccountID, fb); err != nil {
			b.Fatal(err)
		}
	}
	perFreeBusy := time.Since(fbStart) / fbRuns
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := c.ListSlots(b.Context(), bt.ID, params); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(delay), "x-delay")
	b.ReportMetric(float64(per)/float64(perFreeBusy), "x-freebusy")
}

// BenchmarkBookingCreate is issue 34's bound on bookings: POST
// /v1/bookings on distinct slots of VIRTUAL hosts against POST /v1/events
// on the same hosts' calendars, over loopback HTTP to a plain handler (no
// test middleware), on bbolt (default durability) and on PostgreSQL, with
// 8 requests in flight. req/s is the metric; the issue asks bookings for
// at least half of event creates. cpu-µs/op is the test process's CPU
// (client and server) per request, steadier on a busy machine.
func BenchmarkBookingCreate(b *testing.B) {
	for _, kind := range []string{"bolt", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			var store unical.Store
			switch kind {
			case "bolt":
				s, err := bolt.Open(bolt.Config{Path: filepath.Join(b.TempDir(), "unical.db")})
				if err != nil {
					b.Fatal(err)
				}
				store = s
			case "postgres":
				s, err := postgres.Open(b.Context(), postgres.Config{URL: pgtest.Start(b, pgtest.Options{}).NewDatabase(b), MaxConns: 16})
				if err != nil {
					b.Fatal(err)
				}
				store = s
			}
			b.Cleanup(func() { store.Close() })
			c := plainStack(b, store)
			const hosts = 16
			type host struct{ account, bookingType string }
			newHosts := func(prefix string) []host {
				var out []host
				for i := range hosts {
					a, err := c.CreateAccount(b.Context(), &unical.AccountCreateParams{Email: fmt.Sprintf("%s%d@example.com", prefix, i), ProviderType: unical.ProviderVirtual})
					if err != nil {
						b.Fatal(err)
					}
					bt, err := c.CreateBookingType(b.Context(), &booking.BookingTypeParams{Name: unical.Some("Bench"), DurationMinutes: unical.Some(30),
						IntervalMinutes: unical.Some(30), HorizonDays: unical.Some(730),
						Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: a.ID}}})})
					if err != nil {
						b.Fatal(err)
					}
					out = append(out, host{a.ID, bt.ID})
				}
				return out
			}
			first := time.Now().UTC().AddDate(0, 0, 2).Truncate(24 * time.Hour)
			// slot is the n-th write's host and distinct start.
			slot := func(hs []host, n int64) (host, unical.EventDateTime, unical.EventDateTime) {
				start := first.Add(time.Duration(n/hosts) * 30 * time.Minute)
				return hs[n%hosts], unical.EventDateTime{DateTime: start.Format(time.RFC3339)}, unical.EventDateTime{DateTime: start.Add(30 * time.Minute).Format(time.RFC3339)}
			}
			run := func(b *testing.B, write func(n int64) error) {
				var next atomic.Int64
				b.SetParallelism(4) // 8 in flight on 2 cores
				cpu := processCPU()
				start := time.Now()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := write(next.Add(1) - 1); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
				// The test process's CPU (client and server; PostgreSQL
				// runs in its own): other jobs barely move it.
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e3, "cpu-µs/op")
			}
			eventHosts, bookingHosts := newHosts("event"), newHosts("booking")
			var events, bookings int64
			b.Run("event", func(b *testing.B) {
				run(b, func(n int64) error {
					h, s, e := slot(eventHosts, events+n)
					_, err := c.CreateEvent(b.Context(), h.account, "primary", &unical.EventParams{Title: unical.Some("Bench"), Start: unical.Some(s), End: unical.Some(e)})
					return err
				})
				events += int64(b.N)
			})
			b.Run("booking", func(b *testing.B) {
				run(b, func(n int64) error {
					h, s, _ := slot(bookingHosts, bookings+n)
					_, err := c.CreateBooking(b.Context(), &booking.BookingParams{BookingTypeID: h.bookingType, StartDateTime: s.DateTime, Guest: booking.Guest{Email: "guest@example.org"}})
					return err
				})
				bookings += int64(b.N)
			})
		})
	}
}
