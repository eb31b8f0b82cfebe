package ics_test

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/ics"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
)

// importTarget is a Client over the in-memory CalDAV provider with one
// connected account.
type importTarget struct {
	app       *unical.App
	accountID string
}

func newImportTarget(tb testing.TB) *importTarget {
	tb.Helper()
	ctx := tb.Context()
	store, err := bolt.Open(bolt.Config{Path: filepath.Join(tb.TempDir(), "unical.db"), NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	calendars := memory.New(memory.Config{Type: unical.ProviderCalDAV})
	calendars.AddUser("alan@example.com", "", "password")
	var key [32]byte
	rand.Read(key[:])
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{calendars}, MasterKey: key})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { client.Close() })
	operator, err := admin.New(admin.Config{Store: store, Client: client})
	if err != nil {
		tb.Fatal(err)
	}
	created, err := operator.CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("fuzz")})
	if err != nil {
		tb.Fatal(err)
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		tb.Fatal(err)
	}
	acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{Email: "alan@example.com", ProviderType: unical.ProviderCalDAV, Password: unical.Some("password")})
	if err != nil {
		tb.Fatal(err)
	}
	return &importTarget{app: app, accountID: acct.ID}
}

// FuzzImport imports iCalendar bodies into a fresh calendar of the
// in-memory provider through the Client. An import never panics, and
// fails only with a 400 or 413; what it stores is valid UTF-8; and a UID
// it lists as refused left nothing of itself in the calendar.
func FuzzImport(f *testing.F) {
	for _, seed := range []string{
		secondly("20260101T000001Z"),
		secondly("20260101T010000Z"),
		crlf("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\nBEGIN:VEVENT\nUID:a\nDTSTAMP:20260101T000000Z\nSUMMARY:caf\xe9\nDTSTART:20260310T090000Z\nEND:VEVENT\nEND:VCALENDAR\n"),
		crlf("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//x//EN\nBEGIN:VEVENT\nUID:w\nDTSTAMP:20260101T000000Z\nSUMMARY:w\nDTSTART;VALUE=DATE:20260310\nRRULE:FREQ=WEEKLY;COUNT=3\nEND:VEVENT\n" +
			"BEGIN:VEVENT\nUID:w\nDTSTAMP:20260101T000000Z\nRECURRENCE-ID;VALUE=DATE:20260317\nSTATUS:CANCELLED\nDTSTART;VALUE=DATE:20260317\nEND:VEVENT\n" +
			"BEGIN:VTODO\nUID:t\nSUMMARY:todo\nEND:VTODO\nEND:VCALENDAR\n"),
	} {
		f.Add([]byte(seed))
	}
	target := newImportTarget(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 16<<10 {
			return
		}
		ctx := context.Background()
		cal, err := target.app.CreateCalendar(ctx, target.accountID, &unical.CalendarParams{Name: unical.Some("fuzz")})
		if err != nil {
			t.Fatal(err)
		}
		defer target.app.DeleteCalendar(ctx, target.accountID, cal.ID)
		res, err := ics.Import(ctx, target.app, target.accountID, cal.ID, strings.NewReader(string(body)))
		if err != nil {
			if code := unical.ErrorCode(err); code != unical.CodeInvalid && code != unical.CodeTooLarge {
				t.Fatalf("Import failed with %s: %v", code, err)
			}
			return
		}
		refused := map[string]bool{}
		for _, e := range res.Errors {
			// Components other than VEVENT are listed too; they are no
			// refusal of their UID's events.
			if !strings.Contains(e.Message, "components are not imported") {
				refused[e.UID] = true
			}
		}
		for e, err := range unical.AllEvents(ctx, target.app, target.accountID, cal.ID, &unical.EventListParams{Limit: unical.MaxPageSize}, nil) {
			if err != nil {
				t.Fatalf("listing after the import: %v", err)
			}
			for _, s := range []string{e.Title, e.Description, e.Location} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) && !strings.ContainsRune(string(body), utf8.RuneError) {
					t.Errorf("event %s holds text that was not valid UTF-8: %q", e.ID, s)
				}
			}
			if uid := e.PrivateExtendedProperties[ics.ImportUIDKey]; refused[uid] {
				t.Errorf("UID %q was refused (%+v) but left event %s", uid, res.Errors, e.ID)
			}
		}
	})
}
