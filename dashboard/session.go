package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/seal"
)

// Cookie names. The session cookie is the login; the login cookie only
// ties the login form's CSRF token to the browser that loaded the form.
const (
	sessionCookie = "unical_dashboard"
	loginCookie   = "unical_dashboard_login"
)

// loginFormTTL is how long a loaded login form can be submitted.
const loginFormTTL = 30 * time.Minute

// session is a logged-in operator, as read from a valid cookie.
type session struct {
	nonce   []byte
	expires time.Time
	// CSRF is the token every form of this session carries.
	CSRF string
}

// sessionKeys MACs the login form's cookie and CSRF tokens, and seals
// session cookies. Any replica with the same key accepts them; the only
// thing kept on the server is the list of sessions logged out before
// their expiry (see revokedKey).
//
// A login form cookie is base64url(expiry ‖ nonce) "." base64url(HMAC).
// A session cookie is base64url(AES-GCM(expiry ‖ nonce ‖ admin token)):
// the token inside is checked again on every request, so a changed admin
// token ends every open session at once, on every replica.
type sessionKeys struct {
	key    []byte
	sealer *seal.Sealer
}

func newSessionKeys(key []byte) sessionKeys {
	sealKey := seal.Key(sha256.Sum256(append([]byte("unical/dashboard-session-seal/"), key...)))
	return sessionKeys{key: key, sealer: seal.New(sealKey)}
}

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

// newPayload is expiry ‖ 16 random bytes, the nonce.
func newPayload(expires time.Time) []byte {
	payload := make([]byte, 8+16)
	binary.BigEndian.PutUint64(payload, uint64(expires.Unix()))
	if _, err := rand.Read(payload[8:]); err != nil {
		panic("dashboard: no randomness: " + err.Error())
	}
	return payload
}

// payloadExpired reads the expiry at the start of payload.
func payloadExpired(payload []byte, now time.Time) bool {
	return !now.Before(time.Unix(int64(binary.BigEndian.Uint64(payload)), 0))
}

// issueLogin returns a login form token that expires at expires, and its nonce.
func (k sessionKeys) issueLogin(expires time.Time) (token string, nonce []byte) {
	payload := newPayload(expires)
	return b64.EncodeToString(payload) + "." + b64.EncodeToString(k.mac("login", payload)), payload[8:]
}

// openLogin verifies a login form token and returns its nonce; ok is
// false for a forged, malformed or expired token.
func (k sessionKeys) openLogin(token string, now time.Time) (nonce []byte, ok bool) {
	p, m, found := strings.Cut(token, ".")
	if !found {
		return nil, false
	}
	payload, err1 := b64.DecodeString(p)
	mac, err2 := b64.DecodeString(m)
	if err1 != nil || err2 != nil || len(payload) != 24 || !hmac.Equal(mac, k.mac("login", payload)) || payloadExpired(payload, now) {
		return nil, false
	}
	return payload[8:], true
}

var sessionAD = []byte("unical/dashboard-session")

// issueSession returns a session cookie value for adminToken that expires
// at expires.
func (k sessionKeys) issueSession(adminToken string, expires time.Time) string {
	return k.sealer.SealString(append(newPayload(expires), adminToken...), sessionAD)
}

// openSession opens a session cookie value and returns the session and
// the admin token it was made with; ok is false for a forged, malformed
// or expired cookie.
func (k sessionKeys) openSession(value string, now time.Time) (s *session, adminToken string, ok bool) {
	plain, err := k.sealer.OpenString(value, sessionAD)
	if err != nil || len(plain) <= 24 || payloadExpired(plain, now) {
		return nil, "", false
	}
	nonce := plain[8:24]
	expires := time.Unix(int64(binary.BigEndian.Uint64(plain)), 0)
	return &session{nonce: nonce, expires: expires, CSRF: k.csrf("session", nonce)}, string(plain[24:]), true
}

// revokedApp is the application id the Store keeps logged-out sessions
// under: application ids are "app_…", so it is no application's.
const revokedApp = "dashboard"

// revokedKey names a logged-out session in the Store: a hash of its
// nonce, so that the Store holds nothing a cookie could be made from.
func revokedKey(nonce []byte) string {
	sum := sha256.Sum256(append([]byte("unical/dashboard-revoked/"), nonce...))
	return "revoked-session/" + hex.EncodeToString(sum[:16])
}

// csrf is the CSRF token of a session (or login form) nonce.
func (k sessionKeys) csrf(purpose string, nonce []byte) string {
	return b64.EncodeToString(k.mac("csrf/"+purpose, nonce))
}

func (k sessionKeys) checkCSRF(s *session, token string) bool {
	return token != "" && hmac.Equal([]byte(token), []byte(s.CSRF))
}

// sessionOf returns the request's session, if its cookie is valid, the
// admin token it holds is still the admin token, and it was not logged
// out. A Store that cannot say is taken as a no: the operator logs in
// again rather than a revoked cookie being let in.
func (h *handler) sessionOf(r *http.Request) (*session, bool) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, false
	}
	s, token, ok := h.sessions.openSession(c.Value, h.now())
	if !ok {
		return nil, false
	}
	if err := h.admin.VerifyAdminToken(r.Context(), token); err != nil {
		if unical.ErrorCode(err) != unical.CodeUnauthorized {
			h.message(r, err) // logged; the operator logs in again
		}
		return nil, false
	}
	_, err = h.revoked.GetBlob(r.Context(), revokedApp, revokedKey(s.nonce), h.now())
	if unical.ErrorCode(err) != unical.CodeNotFound {
		if err != nil {
			h.message(r, err)
		}
		return nil, false
	}
	return s, true
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
		http.Redirect(w, r, "/dashboard/overview", http.StatusSeeOther)
		return
	}
	h.renderLogin(w, r, http.StatusOK, "")
}

func (h *handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	expires := h.now().Add(loginFormTTL)
	token, nonce := h.sessions.issueLogin(expires)
	h.setCookie(w, r, loginCookie, token, expires, int(loginFormTTL/time.Second))
	h.render(w, r, status, "login", &view{Title: "Log in", Error: msg, LoginCSRF: h.sessions.csrf("login", nonce)})
}

// login checks the login form's CSRF token and the admin token, and on
// success sets the session cookie. A wrong token answers 401 with what is
// wrong (no token set, an API key instead) and logs nothing of what was
// typed; an address with too many of them is answered 429 with
// Retry-After for every further wrong token. The right one always logs
// in: only failures are throttled, so nobody sharing the operator's
// address can lock the operator out.
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
		nonce, ok = h.sessions.openLogin(c.Value, h.now())
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
		if wait := h.failures.Wait(r); wait > 0 {
			seconds := int((wait + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(seconds))
			h.renderLogin(w, r, http.StatusTooManyRequests, fmt.Sprintf("Too many failed logins from this address; try again in %d seconds.", seconds))
			return
		}
		h.failures.Fail(r)
		h.log.WarnContext(r.Context(), "dashboard: failed login", "remote", r.RemoteAddr)
		h.renderLogin(w, r, http.StatusUnauthorized, unical.ErrorMessage(err))
		return
	}
	expires := h.now().Add(h.sessionTTL)
	value := h.sessions.issueSession(token, expires)
	h.setCookie(w, r, sessionCookie, value, expires, int(h.sessionTTL/time.Second))
	h.setCookie(w, r, loginCookie, "", time.Unix(0, 0), -1)
	h.log.InfoContext(r.Context(), "dashboard: login", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/dashboard/overview", http.StatusSeeOther)
}

// logout ends the session on the server, by recording it in the Store
// until it would have expired (every replica then refuses its cookie,
// copies included), and deletes the cookie.
func (h *handler) logout(w http.ResponseWriter, r *http.Request, s *session) {
	if err := h.revoked.PutBlob(r.Context(), revokedApp, revokedKey(s.nonce), []byte{1}, s.expires); err != nil {
		h.render(w, r, statusOf(err), "error", &view{Session: s, Title: "Not logged out", Error: h.message(r, err)})
		return
	}
	h.setCookie(w, r, sessionCookie, "", time.Unix(0, 0), -1)
	http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
}
