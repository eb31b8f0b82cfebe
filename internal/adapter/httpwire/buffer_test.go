package httpwire_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/adapter/httpwire"
)

func TestBuffer(t *testing.T) {
	t.Parallel()
	type answer struct {
		Status int
		Header http.Header
		Body   string
	}
	for _, tc := range []struct {
		name  string
		write func(w http.ResponseWriter)
		want  answer
	}{
		{"nothing written is an empty 200", func(http.ResponseWriter) {}, answer{Status: 200, Header: http.Header{}}},
		{"a body without a status is a 200's", func(w http.ResponseWriter) { _, _ = w.Write([]byte("hi")) }, answer{Status: 200, Header: http.Header{}, Body: "hi"}},
		{"the first final status is kept", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"a":`))
			_, _ = w.Write([]byte(`1}`))
		}, answer{Status: 429, Header: http.Header{"Retry-After": {"3"}}, Body: `{"a":1}`}},
		{"an informational status is passed over", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
		}, answer{Status: 201, Header: http.Header{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := httpwire.NewBuffer(nil)
			tc.write(b)
			got := answer{Status: b.Status(), Header: b.Header(), Body: string(b.Bytes())}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("buffered answer (-want +got):\n%s", diff)
			}
			rec := httptest.NewRecorder()
			b.CopyTo(rec)
			copied := answer{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}
			if diff := cmp.Diff(tc.want, copied); diff != "" {
				t.Errorf("CopyTo (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewBufferKeepsHeader(t *testing.T) {
	t.Parallel()
	b := httpwire.NewBuffer(http.Header{"X-Request-Id": {"r1"}})
	b.Header().Set("Content-Type", "application/json")
	want := http.Header{"X-Request-Id": {"r1"}, "Content-Type": {"application/json"}}
	if diff := cmp.Diff(want, b.Header()); diff != "" {
		t.Errorf("Header() (-want +got):\n%s", diff)
	}
}
