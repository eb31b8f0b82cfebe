package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/adapter/httpwire"
)

// view is what a template sees: the fields every page has, and Data, the
// page's own.
type view struct {
	Session *session
	Title   string
	// Error and Notice are shown at the top of the page.
	Error  string
	Notice string
	// LoginCSRF is the login form's CSRF token.
	LoginCSRF string
	// App is the application whose pages these are, nil outside one;
	// Section names its current page for the navigation.
	App     *admin.ApplicationView
	Section string
	Data    any
}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"whenp": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"ms":            func(d time.Duration) int64 { return d.Milliseconds() },
	"span":          span,
	"latency":       latency,
	"providerName":  providerName,
	"path":          func(t unical.ProviderType) string { return t.PathName() },
	"join":          strings.Join,
	"paused":        admin.Paused,
	"settingFields": settingFields,
}

// latency writes a request's latency in milliseconds, with a tenth below
// 10 ms, where most API requests are.
func latency(d time.Duration) string {
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d ms", d.Milliseconds())
}

// span writes a retention period in whole hours, or minutes below one.
func span(d time.Duration) string {
	if d >= time.Hour && d%time.Hour == 0 {
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// settingField is one input of a provider's settings form.
type settingField struct {
	admin.ProviderSetting
	Value string
}

// settingFields are the inputs of v's form: the settings its provider
// takes, as admin.ProviderSettings describes them.
func settingFields(v *admin.ProviderSettingsView) []settingField {
	set := unical.ProviderSettings{ClientID: v.ClientID, Scopes: v.Scopes, AuthURL: v.AuthURL, TokenURL: v.TokenURL, UserInfoURL: v.UserInfoURL,
		APIBaseURL: v.APIBaseURL, RevokeURL: v.RevokeURL, ServerURL: v.ServerURL, Tenant: v.Tenant}
	var out []settingField
	for _, name := range v.Settings {
		if setting, ok := admin.SettingNamed(name); ok {
			out = append(out, settingField{setting, setting.Get(&set)})
		}
	}
	return out
}

// providerName is the provider's name as operators know it.
func providerName(t unical.ProviderType) string {
	switch t {
	case unical.ProviderGoogle:
		return "Google (PROVIDER_A)"
	case unical.ProviderMicrosoft:
		return "Microsoft (PROVIDER_B)"
	case unical.ProviderCalDAV:
		return "CalDAV (PROVIDER_C)"
	}
	return string(t)
}

// pageNames are the templates in templates/, each with layout.html.
var pageNames = []string{"login", "error", "apps", "created", "setup", "keys", "redirects", "providers", "accounts", "webhooks", "audit", "account", "calendar", "overview", "bookings", "availability", "requests", "message"}

// checkPages parses every page, so that a broken template stops start-up
// rather than a request.
func checkPages() error {
	for _, name := range pageNames {
		if _, err := parsePage(name); err != nil {
			return err
		}
	}
	return nil
}

// parsePage parses page with the layout and the week grid. A page is parsed for each render
// and not kept: kept, the parse trees of all pages (about 500 KB, a third
// of an idle server's live heap) are marked in every garbage collection,
// a cost every API request shares, while a server renders a page rarely;
// a parse costs about 250 µs of an operator's page view.
func parsePage(page string) (*template.Template, error) {
	return template.New("layout.html").Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/grid.html", "templates/"+page+".html")
}

// render writes page with v. The page is rendered into memory first, so
// that a template failure is a clean 500 instead of half a page.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, page string, v *view) {
	var buf bytes.Buffer
	t, err := parsePage(page)
	if err == nil {
		err = t.Execute(&buf, v)
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "dashboard: template", "page", page, "err", err)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// statusOf is the HTTP status of a failed operation, as /v1 answers it.
func statusOf(err error) int { return httpwire.StatusOf(err) }

// message is what the page says about a failed operation: the error's
// caller-safe message, naming the field where there is one. Internal
// errors are logged with their cause and shown only as "Internal error".
func (h *handler) message(r *http.Request, err error) string {
	if statusOf(err) == http.StatusInternalServerError {
		h.log.ErrorContext(r.Context(), "dashboard: operation failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	msg := unical.ErrorMessage(err)
	var e *unical.Error
	if errors.As(err, &e) && e.Field != "" && !strings.Contains(msg, e.Field) {
		msg = e.Field + ": " + msg
	}
	return msg
}
