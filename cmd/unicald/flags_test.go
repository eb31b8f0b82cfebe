package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/apitest"
)

// TestServe_EndpointDisableAfter checks that serve takes the flag that
// sets engine.Config.EndpointDisableAfter, including "never" (negative).
func TestServe_EndpointDisableAfter(t *testing.T) {
	t.Parallel()
	for _, value := range []string{"1h", "-1s"} {
		ready := make(chan string, 1)
		errOut := &apitest.LogBuffer{}
		m := &Main{Stdout: &apitest.LogBuffer{}, Stderr: errOut, Getenv: func(string) string { return "" }, Ready: ready}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--endpoint-disable-after", value})
		}()
		select {
		case <-ready:
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve --endpoint-disable-after %s: %v", value, err)
			}
		case err := <-done:
			cancel()
			t.Fatalf("serve --endpoint-disable-after %s: %v\n%s", value, err, errOut.String())
		case <-time.After(20 * time.Second):
			cancel()
			t.Fatalf("serve --endpoint-disable-after %s did not start in 20 s", value)
		}
	}
}

// startServe runs serve with args and env, returning its URL, or the error
// it stopped with before listening.
func startServeFront(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	ready := make(chan string, 1)
	errOut := &apitest.LogBuffer{}
	m := &Main{Stdout: &apitest.LogBuffer{}, Stderr: errOut, Getenv: func(k string) string { return env[k] }, Ready: ready}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, args...))
	}()
	select {
	case addr := <-ready:
		t.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
		return "http://" + addr, nil
	case err := <-done:
		cancel()
		return "", err
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatalf("serve %v did not start in 20 s\n%s", args, errOut.String())
		return "", nil
	}
}

// TestServe_FrontDoorFlags checks that the rate-limit flags and their
// environment variables reach the server (the flag wins; 0 turns the
// limit off), and that bad values are usage errors.
func TestServe_FrontDoorFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []int // statuses of two requests with a bad key
	}{
		{"Flag", nil, []string{"--rate-limit-ip", "0.001"}, []int{401, 429}},
		{"Env", map[string]string{"UNICAL_RATE_LIMIT_IP": "0.001"}, nil, []int{401, 429}},
		{"FlagOff", map[string]string{"UNICAL_RATE_LIMIT_IP": "0.001"}, []string{"--rate-limit-ip", "0"}, []int{401, 401}},
		{"Defaults", nil, []string{"--request-timeout", "1m", "--trust-forwarded-for"}, []int{401, 401}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, err := startServeFront(t, tc.env, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for range tc.want {
				status, _ := request(t, "GET", url+"/v1/endUserAccounts", "uk_bad_key", nil)
				got = append(got, status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses mismatch (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []struct {
		env  map[string]string
		args []string
	}{
		{map[string]string{"UNICAL_RATE_LIMIT_KEY": "fast"}, nil},
		{map[string]string{"UNICAL_REQUEST_TIMEOUT": "soon"}, nil},
		{nil, []string{"--rate-limit-key", "-1"}},
		{nil, []string{"--request-timeout", "-1s"}},
		{nil, []string{"--rate-limit-ip", "NaN"}},
	} {
		if _, err := startServeFront(t, bad.env, bad.args...); !errors.As(err, new(usageError)) {
			t.Errorf("serve %v with %v: %v, want a usage error", bad.args, bad.env, err)
		}
	}
}
