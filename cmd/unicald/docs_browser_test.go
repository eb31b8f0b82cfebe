package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/unical/unical/apidocs"
	"github.com/unical/unical/httpapi"
)

// TestDocs_Browser reads the API reference as a developer would: the
// search box finds a route, its result leads to the route's section, and
// the section shows an example request and answer; on a 390 px screen
// neither the page nor a search needs sideways scrolling.
func TestDocs_Browser(t *testing.T) {
	t.Parallel()
	h, err := apidocs.Handler(httpapi.OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(apidocs.Prefix, h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := newBrowser(t)
	b.open(srv.URL + apidocs.Prefix)
	b.do("type", chromedp.SendKeys(chromedp.ID("q-side"), "post freebusy"))
	if status := b.submit("search", chromedp.Click(chromedp.CSS(".side form.search button"))); status != http.StatusOK {
		t.Fatalf("search: status %d", status)
	}
	b.mustSee("search", "1 route match", "POST /v1/freeBusy/{endUserAccountId}")
	b.do("follow the result", chromedp.Click(chromedp.CSS(`#results a`)))
	section, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(`section.op:target`)))
	if err != nil {
		t.Fatalf("the result did not lead to a route's section: %v", err)
	}
	for _, want := range []string{"Query free/busy", "Example request", "POST /v1/freeBusy/acc_", "Example answer: 200", `"calendarId": "primary"`} {
		if !strings.Contains(section, want) {
			t.Errorf("the route's section does not show %q:\n%s", want, section)
		}
	}

	b.do("narrow", chromedp.EmulateViewport(390, 800))
	for _, page := range []string{apidocs.Prefix, apidocs.Prefix + "?q=events"} {
		b.open(srv.URL + page)
		if b.overflows() {
			t.Errorf("%s is wider than a 390 px screen", page)
		}
	}
	// No screenshots: the whole reference is taller than Chromium will
	// capture in one image.
}
