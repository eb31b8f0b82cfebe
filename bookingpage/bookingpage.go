package bookingpage

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/booking"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// Prefix is the path under which the booking pages are served.
const Prefix = "/book/"

// Default per-address limits, which unicald builds the Config's
// limiters from: page views 30 at once, then one a second (each view
// asks the participants' providers for busy time); holds, bookings,
// cancellations and reschedules 10 at once, then one every 20 s.
const (
	DefaultPageRate   = 1.0
	DefaultPageBurst  = 30
	DefaultWriteRate  = 1.0 / 20
	DefaultWriteBurst = 10
)

const (
	// DefaultMaxHolds is how many live holds one client address may have.
	DefaultMaxHolds = 3
	// DefaultHoldTTL is how long a hold keeps a slot while the guest
	// types, in seconds.
	DefaultHoldTTL = 600
)

// Limiter limits requests per client address: Allow takes one request
// of r's address, or reports how long it must wait. unicald passes the
// front door's token buckets (httpapi.AddressLimiter).
type Limiter interface {
	Allow(r *http.Request) (bool, time.Duration)
}

// Config configures the booking page.
type Config struct {
	// Client is the Client whose applications' published booking types
	// are served. Required.
	Client *unical.Client
	// LinkKey signs the cancel, reschedule and confirmation links: at
	// least 32 bytes, the same on every replica (unicald derives it from
	// the master key). Required.
	LinkKey []byte
	// PageLimit limits every request per client address, WriteLimit the
	// holds, bookings, cancellations and reschedules too; nil is no
	// limit.
	PageLimit, WriteLimit Limiter
	// ClientAddr is the address a request's live holds count under;
	// default the connection's peer. unicald passes the address its
	// limits use (the last X-Forwarded-For entry behind a proxy).
	ClientAddr func(*http.Request) netip.Addr
	// MaxHolds is how many live holds one address may have; default
	// DefaultMaxHolds.
	MaxHolds int
	// HoldTTL is how long a hold lasts, in seconds; default
	// DefaultHoldTTL, at most booking.MaxHoldTTL.
	HoldTTL int
	// Logger receives failures (never link tokens); default discards.
	Logger *slog.Logger
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// handler serves the booking pages.
type handler struct {
	c          *unical.Client
	links      signer
	pages      Limiter
	writes     Limiter
	clientAddr func(*http.Request) netip.Addr
	holds      *holdCounter
	holdTTL    int
	log        *slog.Logger
	tmpl       map[string]*template.Template
	mux        *http.ServeMux
}

// New returns the booking page as an http.Handler for the paths under
// Prefix.
func New(opts Config) (http.Handler, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("bookingpage: Config.Client is required")
	}
	if len(opts.LinkKey) < 32 {
		return nil, fmt.Errorf("bookingpage: Config.LinkKey must be at least 32 bytes")
	}
	h := &handler{
		c:          opts.Client,
		links:      signer{key: append([]byte(nil), opts.LinkKey...)},
		pages:      opts.PageLimit,
		writes:     opts.WriteLimit,
		clientAddr: opts.ClientAddr,
		holds:      newHoldCounter(cmpOr(opts.MaxHolds, DefaultMaxHolds)),
		holdTTL:    min(cmpOr(opts.HoldTTL, DefaultHoldTTL), booking.MaxHoldTTL),
		log:        opts.Logger,
	}
	if h.clientAddr == nil {
		h.clientAddr = peerAddr
	}
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var err error
	if h.tmpl, err = parseTemplates(); err != nil {
		return nil, err
	}
	h.routes()
	return h, nil
}

// peerAddr is the address of the connection's peer; the zero address
// for a peer that is not an IP address.
func peerAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func parseTemplates() (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(templateFiles, n)
		if err != nil {
			return nil, err
		}
		out[name] = t
	}
	return out, nil
}

var funcs = template.FuncMap{
	"inc": func(i int) int { return i + 1 },
}

func (h *handler) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	files := http.StripPrefix("/book/-/static/", http.FileServerFS(static))
	m.Handle("GET /book/-/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
	m.HandleFunc("GET /book/{slug}", h.limited(h.pickPage))
	m.HandleFunc("POST /book/{slug}/hold", h.limited(h.hold))
	m.HandleFunc("POST /book/{slug}/book", h.limited(h.book))
	m.HandleFunc("GET /book/-/booking/{token}", h.limited(h.confirmedPage))
	m.HandleFunc("GET /book/-/booking/{token}/ics", h.limited(h.icsFile))
	m.HandleFunc("GET /book/-/cancel/{token}", h.limited(h.cancelPage))
	m.HandleFunc("POST /book/-/cancel/{token}", h.limited(h.cancel))
	m.HandleFunc("GET /book/-/reschedule/{token}", h.limited(h.reschedulePage))
	m.HandleFunc("POST /book/-/reschedule/{token}", h.limited(h.reschedule))
	m.HandleFunc("/book/", func(w http.ResponseWriter, r *http.Request) { h.notFound(w) })
	h.mux = m
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	// Links carry signed tokens: no page may pass its address on.
	hdr.Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

// limited applies the per-address limits: every request takes a page
// token, and a POST a write token too.
func (h *handler) limited(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ok, wait := allow(h.pages, r)
		if ok && r.Method == http.MethodPost {
			ok, wait = allow(h.writes, r)
		}
		if !ok {
			secs := max(1, int((wait+time.Second-1)/time.Second))
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			h.message(w, http.StatusTooManyRequests, nil, "Too many requests",
				fmt.Sprintf("Too many requests from your address. Please try again in %d seconds.", secs))
			return
		}
		next(w, r)
	}
}

func allow(l Limiter, r *http.Request) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	return l.Allow(r)
}

// view is what a page template sees.
type view struct {
	Title string
	// Type is the booking type the page is about; nil on pages of none.
	Type  *booking.BookingType
	Error string
	Data  any
}

// render writes a page with the headers of a personal page: no caching,
// and a CSP whose frame-ancestors are those of t (none without t).
func (h *handler) render(w http.ResponseWriter, status int, t *booking.BookingType, name string, v *view) {
	var buf bytes.Buffer
	if err := h.tmpl[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		h.log.Error("booking page render", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("Internal error.")
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Security-Policy", csp(t))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// csp is the Content-Security-Policy of a page of t: our own style and
// script only, forms posted only to us, and frame-ancestors from t's
// list ('none' when it lists none, or without t).
func csp(t *booking.BookingType) string {
	ancestors := "'none'"
	if t != nil && len(t.FrameAncestors) > 0 {
		ancestors = strings.Join(t.FrameAncestors, " ")
	}
	return "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors " + ancestors
}

// message renders a page that only says something.
func (h *handler) message(w http.ResponseWriter, status int, t *booking.BookingType, title, text string) {
	h.render(w, status, t, "message", &view{Title: title, Type: t, Data: text})
}

// notFound is the one answer for every slug that does not name a
// published type, whatever the reason, so that none can be told apart.
func (h *handler) notFound(w http.ResponseWriter) {
	h.message(w, http.StatusNotFound, nil, "Not found", "There is no booking page here.")
}

// failed answers an error of the booking layer that the page cannot
// turn into advice: its status, and a message safe to show.
func (h *handler) failed(w http.ResponseWriter, t *booking.BookingType, err error) {
	status := httpwire.StatusOf(err)
	if status >= 500 {
		h.log.Error("booking page", "err", err)
	}
	h.message(w, status, t, "Something went wrong", "We could not do that just now: "+unical.ErrorMessage(err)+" Please try again.")
}
