package dashboard_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/availability"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/provider/memory"
)

// bookingsFixture is a dashboard whose server has publicURL, with an
// application, its Google account ada and its booking layer.
func bookingsFixture(t *testing.T, publicURL string) (f *fixture, appID string, ada *unical.Account, svc *booking.Service) {
	t.Helper()
	google := memory.New(memory.Config{Type: unical.ProviderGoogle})
	google.AddUser("ada@example.com", "refresh-ada", "")
	f = newFixture(t, publicURL, google)
	created, err := admin.Of(f.client).CreateApplication(t.Context(), &admin.ApplicationParams{Name: unical.Some("bookings")})
	if err != nil {
		t.Fatal(err)
	}
	app, err := f.client.App(t.Context(), created.ApplicationID)
	if err != nil {
		t.Fatal(err)
	}
	ada, err = app.CreateAccount(t.Context(), &unical.AccountCreateParams{Email: "ada@example.com", ProviderType: unical.ProviderGoogle, RefreshToken: unical.Some("refresh-ada")})
	if err != nil {
		t.Fatal(err)
	}
	return f, created.ApplicationID, ada, booking.New(f.client, app)
}

// TestBookings lists an application's booking types and bookings on its
// Bookings page.
func TestBookings(t *testing.T) {
	f, appID, ada, svc := bookingsFixture(t, "")
	bt, err := svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Intro <call>"), DurationMinutes: unical.Some(30),
		Participants: unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: ada.ID}}}), Limits: unical.Some(booking.Limits{PerDay: 3})})
	if err != nil {
		t.Fatal(err)
	}
	start := f.clock().UTC().AddDate(0, 0, 2).Truncate(time.Hour)
	b, err := svc.CreateBooking(t.Context(), &booking.BookingParams{BookingTypeID: bt.ID, StartDateTime: start.Format(time.RFC3339), Guest: booking.Guest{Email: "grace@example.org", Name: "Grace"}})
	if err != nil {
		t.Fatal(err)
	}

	br := f.browser(t)
	br.mustLogin()
	p := br.get("/dashboard/apps/" + appID + "/bookings")
	if p.status != http.StatusOK {
		t.Fatalf("bookings page = %d:\n%s", p.status, p.body)
	}
	match := func(re string) []string {
		var out []string
		for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(p.body, -1) {
			out = append(out, strings.Join(m[1:], " "))
		}
		return out
	}
	if d := cmp.Diff([]string{"Intro &lt;call&gt; 30 1"}, match(`<tr><td>([^<]+)</td><td>(\d+)</td><td>(\d+)</td>`)); d != "" {
		t.Errorf("booking type rows mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{b.Start.DateTime + " " + b.End.DateTime + " confirmed"}, match(`<tr><td>([^<]+)</td><td>([^<]+)</td><td><span class="status (\w+)">`)); d != "" {
		t.Errorf("booking rows mismatch (-want +got):\n%s", d)
	}
	for _, s := range []string{bt.ID, b.ID, "Grace &lt;grace@example.org&gt;", "3 / none"} {
		if !strings.Contains(p.body, s) {
			t.Errorf("bookings page does not show %q", s)
		}
	}
}

// TestBookings_BookingPage shows a public booking type's link and the
// iframe snippet that embeds it, with the sites that may.
func TestBookings_BookingPage(t *testing.T) {
	f, appID, ada, svc := bookingsFixture(t, "https://cal.example.com")
	participants := unical.Some([]booking.Participant{{Participant: availability.Participant{EndUserAccountID: ada.ID}}})
	if _, err := svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Intro & call"), DurationMinutes: unical.Some(30),
		Participants: participants, Public: unical.Some(true), Slug: unical.Some("intro"), FrameAncestors: unical.Some([]string{"https://www.example.com"})}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateBookingType(t.Context(), &booking.BookingTypeParams{Name: unical.Some("Private"), DurationMinutes: unical.Some(30),
		Participants: participants, Slug: unical.Some("private")}); err != nil {
		t.Fatal(err)
	}
	br := f.browser(t)
	br.mustLogin()
	p := br.get("/dashboard/apps/" + appID + "/bookings")
	if p.status != http.StatusOK {
		t.Fatalf("bookings page = %d:\n%s", p.status, p.body)
	}
	for _, want := range []string{
		`Public link: <a href="https://cal.example.com/book/intro">https://cal.example.com/book/intro</a>`,
		`&lt;iframe src=&#34;https://cal.example.com/book/intro&#34; title=&#34;Intro &amp;amp; call&#34; width=&#34;100%&#34; height=&#34;760&#34; style=&#34;border:0&#34;&gt;&lt;/iframe&gt;`,
		`(frameAncestors): https://www.example.com`,
		`<code>/book/intro</code>`,
		`not public`,
	} {
		if !strings.Contains(p.body, want) {
			t.Errorf("bookings page does not show %s:\n%s", want, p.body)
		}
	}
	if strings.Contains(p.body, "/book/private\"") || strings.Contains(p.body, "Booking page: Private") {
		t.Error("bookings page shows a link for a type that is not public")
	}
}
