package main

import (
	"context"
	"testing"
	"time"
)

// TestServe_EndpointDisableAfter checks that serve takes the flag that
// sets Config.EndpointDisableAfter, including "never" (negative).
func TestServe_EndpointDisableAfter(t *testing.T) {
	t.Parallel()
	for _, value := range []string{"1h", "-1s"} {
		ready := make(chan string, 1)
		errOut := &syncBuffer{}
		m := &Main{Stdout: &syncBuffer{}, Stderr: errOut, Getenv: func(string) string { return "" }, Ready: ready}
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
