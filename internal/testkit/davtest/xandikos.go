package davtest

import (
	"context"
	"crypto/subtle"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// startXandikos starts Xandikos in the foreground behind an authenticating
// proxy.
//
// Xandikos 0.2.8 has no authentication of its own (its manual page says
// the command starts a server without authentication), yet the provider's wrong-password path must be
// tested against it too. So Xandikos listens on a Unix socket in a private
// directory, where nothing but davtest can reach it, and an HTTP proxy on
// 127.0.0.1 in front of it demands the test user's Basic credentials on
// every request, /.well-known/caldav included, answering 401 otherwise.
// The proxy passes the client's Host header through, so the absolute URLs
// Xandikos builds from it point at the proxy.
//
// --autocreate creates the principal /USER/ with the calendar home
// /USER/calendars/ (and /USER/contacts/), but no calendar.
func (s *Server) startXandikos(bin string) error {
	s.HomePath = s.PrincipalPath + "calendars/"
	// A Unix socket path must fit in 108 bytes, which tb.TempDir() paths
	// (up to 64 bytes of test name) do not promise, so the socket gets a
	// short directory of its own. MkdirTemp makes it 0700.
	sockDir, err := os.MkdirTemp("", "davsock")
	if err != nil {
		return err
	}
	s.cleanup = append(s.cleanup, func() { _ = os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "x.sock")

	p, err := spawn(s.logFile, s.Dir, bin,
		"--directory", filepath.Join(s.Dir, "data"),
		"--autocreate",
		"--current-user-principal", s.PrincipalPath,
		"--listen-address", sock,
	)
	if err != nil {
		return err
	}
	s.proc = p
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
	}
	if err := waitReady(p, probeClient(transport), "http://xandikos"); err != nil {
		transport.CloseIdleConnections()
		return err
	}
	s.proxy, err = startAuthProxy(s.Username, s.Password, transport, log.New(s.logFile, "davtest proxy: ", log.LstdFlags))
	if err != nil {
		transport.CloseIdleConnections()
		return err
	}
	s.URL = s.proxy.url
	return nil
}

// authProxy is an HTTP Basic auth gate in front of a server without
// authentication.
type authProxy struct {
	url       string
	srv       *http.Server
	transport *http.Transport
}

// startAuthProxy serves on a free 127.0.0.1 port, forwarding requests that
// carry username and password through transport and refusing the rest
// with 401.
func startAuthProxy(username, password string, transport *http.Transport, errLog *log.Logger) (*authProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: "http", Host: "xandikos"})
			r.Out.Host = r.In.Host
		},
		Transport: transport,
		ErrorLog:  errLog,
	}
	wantUser, wantPass := []byte(username), []byte(password)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, pw, ok := r.BasicAuth()
		// Both comparisons always run, so the answer takes as long for a
		// wrong user as for a wrong password.
		userOK := subtle.ConstantTimeCompare([]byte(u), wantUser)
		passOK := subtle.ConstantTimeCompare([]byte(pw), wantPass)
		if !ok || userOK&passOK != 1 {
			w.Header().Set("WWW-Authenticate", `Basic realm="xandikos (davtest)", charset="UTF-8"`)
			http.Error(w, "401 Unauthorized", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: handler, ErrorLog: errLog, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }() // returns http.ErrServerClosed on close
	return &authProxy{url: "http://" + ln.Addr().String(), srv: srv, transport: transport}, nil
}

// close stops the proxy and drops its connections to the backend.
func (p *authProxy) close() {
	_ = p.srv.Close()
	p.transport.CloseIdleConnections()
}
