package apitest

import (
	"crypto/tls"
	"crypto/x509"
)

// TLSConfig returns TLS settings that trust the receiver's certificate,
// for a webhook client built elsewhere (unicald's, in its tests).
func (r *Receiver) TLSConfig() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(r.srv.Certificate())
	return &tls.Config{RootCAs: pool}
}
