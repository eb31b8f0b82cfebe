package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strings"
	"time"

	"github.com/unical/unical"
)

// Cookie names. The session cookie is the login; the login cookie only
// ties the login form's CSRF token to the browser that loaded the form.
const (
	sessionCookie = "unical_dashboard"
	loginCookie   = "unical_dashboard_login"
)

// loginFormTTL is how long a loaded login form can be submitted.
const loginFormTTL = 30 * time.Minute

// session is a logged-in operator, as read from a verified cookie.
type session struct {
	nonce   []byte
	expires time.Time
	// CSRF is the token every form of this session carries.
	CSRF string
}

// sessionKeys MACs cookies and CSRF tokens. A cookie is
// base64url(expiry ‖ nonce) "." base64url(HMAC(purpose ‖ expiry ‖ nonce)):
// nothing secret is inside, and nothing is kept on the server, so any
// replica with the same key accepts it until it expires.
type sessionKeys struct{ key []byte }

func (k sessionKeys) mac(purpose string, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

var b64 = base64.RawURLEncoding

// issue returns a new token for purpose that expires at expires, and its nonce.
func (k sessionKeys) issue(purpose string, expires time.Time) (token string, nonce []byte) {
	payload := make([]byte, 8+16)
	binary.BigEndian.PutUint64(payload, uint64(expires.Unix()))
	if _, err := rand.Read(payload[8:]); err != nil {
		panic("dashboard: no randomness: " + err.Error())
	}
	return b64.EncodeToString(payload) + "." + b64.EncodeToString(k.mac(purpose, payload)), payload[8:]
}

// open verifies a token of purpose and returns its nonce and expiry; ok is
// false for a forged, malformed or expired token.
func (k sessionKeys) open(purpose, token string, now time.Time) (nonce []byte, expires time.Time, ok bool) {
	p, m, found := strings.Cut(token, ".")
	if !found {
		return nil, time.Time{}, false
	}
	payload, err1 := b64.DecodeString(p)
	mac, err2 := b64.DecodeString(m)
	if err1 != nil || err2 != nil || len(payload) != 24 {
		return nil, time.Time{}, false
	}
	if !hmac.Equal(mac, k.mac(purpose, payload)) {
		return nil, time.Time{}, false
	}
	expires = time.Unix(int64(binary.BigEndian.Uint64(payload)), 0)
	if !now.Before(expires) {
		return nil, time.Time{}, false
	}
	return payload[8:], expires, true
}

// csrf is the CSRF token of a session (or login form) nonce.
func (k sessionKeys) csrf(purpose string, nonce []byte) string {
	return b64.EncodeToString(k.mac("csrf/"+purpose, nonce))
}

func (k sessionKeys) checkCSRF(s *session, token string) bool {
	return token != "" && hmac.Equal([]byte(token), []byte(s.CSRF))
}

// sessionOf returns the request's session, if its cookie is valid.
func (h *handler) sessionOf(r *http.Request) (*session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, false
	}
	nonce, expires, ok := h.sessions.open("session", c.Value, h.now())
	if !ok {
		return nil, false
	}
	return &session{nonce: nonce, expires: expires, CSRF: h.sessions.csrf("session", nonce)}, true
}

// setCookie sets (or, with maxAge < 0, deletes) one of the dashboard's
// cookies: HttpOnly, SameSite=Strict, scoped to the dashboard, and Secure
// when the server is reached over https.
func (h *handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, expires time.Time, maxAge int) {
	http.SetCookie(w, &http.Cookie{
		Name: name, Value: value, Path: Prefix, Expires: expires, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: h.secure || r.TLS != nil,
	})
}

// loginPage shows the login form, with a fresh login cookie and the CSRF
// token that goes with it.
func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.sessionOf(r); ok {
		http.Redirect(w, r, "/dashboard/apps", http.StatusSeeOther)
		return
	}
	h.renderLogin(w, r, http.StatusOK, "")
}

func (h *handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	expires := h.now().Add(loginFormTTL)
	token, nonce := h.sessions.issue("login", expires)
	h.setCookie(w, r, loginCookie, token, expires, int(loginFormTTL/time.Second))
	h.render(w, r, status, "login", &view{Title: "Log in", Error: msg, LoginCSRF: h.sessions.csrf("login", nonce)})
}

// login checks the login form's CSRF token and the admin token, and on
// success sets the session cookie. A wrong token answers 401 with what is
// wrong (no token set, an API key instead) and logs nothing of what was
// typed.
func (h *handler) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.renderLogin(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	c, err := r.Cookie(loginCookie)
	var nonce []byte
	ok := err == nil
	if ok {
		nonce, _, ok = h.sessions.open("login", c.Value, h.now())
	}
	if !ok || !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(h.sessions.csrf("login", nonce))) {
		h.renderLogin(w, r, http.StatusForbidden, "The login form expired or its security token is missing. Try again.")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if err := h.admin.VerifyAdminToken(r.Context(), token); err != nil {
		if unical.ErrorCode(err) != unical.CodeUnauthorized {
			h.renderLogin(w, r, statusOf(err), h.message(r, err))
			return
		}
		h.log.WarnContext(r.Context(), "dashboard: failed login", "remote", r.RemoteAddr)
		h.renderLogin(w, r, http.StatusUnauthorized, unical.ErrorMessage(err))
		return
	}
	expires := h.now().Add(h.sessionTTL)
	value, _ := h.sessions.issue("session", expires)
	h.setCookie(w, r, sessionCookie, value, expires, int(h.sessionTTL/time.Second))
	h.setCookie(w, r, loginCookie, "", time.Unix(0, 0), -1)
	h.log.InfoContext(r.Context(), "dashboard: login", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/dashboard/apps", http.StatusSeeOther)
}

// logout deletes the session cookie. The session is stateless, so a copy
// of the cookie kept elsewhere would stay valid until it expires.
func (h *handler) logout(w http.ResponseWriter, r *http.Request, _ *session) {
	h.setCookie(w, r, sessionCookie, "", time.Unix(0, 0), -1)
	http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
}
