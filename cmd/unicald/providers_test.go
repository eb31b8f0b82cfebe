package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/unical/unical"
)

// TestDefaultProviders_AddressPolicy: the shipped CalDAV provider refuses
// a loopback server unless private targets are allowed.
func TestDefaultProviders_AddressPolicy(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	connect := func(allowPrivate bool) error {
		providers, err := defaultProviders(nil, allowPrivate)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range providers {
			if p.Type() == unical.ProviderCalDAV {
				_, err := p.Connect(t.Context(), unical.ProviderSettings{ServerURL: srv.URL},
					unical.ConnectParams{Email: "me@example.com", Password: "pw"})
				return err
			}
		}
		t.Fatal("no CalDAV provider")
		return nil
	}
	var e *unical.Error
	if err := connect(false); !errors.As(err, &e) || e.Field != "serverUrl" || hits.Load() != 0 {
		t.Errorf("Connect(loopback) without the flag = %v (server hit %d times), want a refusal naming serverUrl", err, hits.Load())
	}
	// With the flag the server is asked; answering 404 it is no CalDAV
	// server, which is also an error naming serverUrl, saying what it
	// answered.
	if err := connect(true); hits.Load() == 0 || !strings.Contains(unical.ErrorMessage(err), "answered 404") {
		t.Errorf("Connect(loopback) with the flag = %v (server hit %d times), want the server asked", err, hits.Load())
	}
}
