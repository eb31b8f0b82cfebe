package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/unical/unical"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/memory"
)

// TestServe_WrongMasterKey: a master key that does not open the data
// folder's store stops serve before it listens, with an error naming the
// key's source, whether the key comes from UNICAL_MASTER_KEY or from the
// key file; the right key still starts.
func TestServe_WrongMasterKey(t *testing.T) {
	t.Parallel()
	run := func(dataDir, envKey string, args ...string) error {
		ready := make(chan string, 1)
		m := &Main{Stdout: io.Discard, Stderr: io.Discard, Ready: ready,
			Providers: []unical.Provider{memory.New(memory.Config{Type: unical.ProviderGoogle})},
			Getenv: func(name string) string {
				if name == "UNICAL_MASTER_KEY" {
					return envKey
				}
				return ""
			}}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx, append(args, "--data", dataDir)) }()
		select {
		case <-ready: // listening: the key was accepted
			cancel()
			return <-done
		case err := <-done:
			return err
		}
	}
	t.Run("environment", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		right, wrong := seal.NewKey().String(), seal.NewKey().String()
		if err := run(dir, right, "apps", "create", "--name", "a"); err != nil {
			t.Fatalf("apps create: %v", err)
		}
		err := run(dir, wrong, "serve", "--addr", "127.0.0.1:0")
		if err == nil || !strings.Contains(err.Error(), "UNICAL_MASTER_KEY") || !strings.Contains(err.Error(), "does not open") {
			t.Errorf("serve with another key = %v, want an error naming UNICAL_MASTER_KEY", err)
		}
		if err := run(dir, right, "serve", "--addr", "127.0.0.1:0"); err != nil {
			t.Errorf("serve with the right key = %v", err)
		}
	})
	t.Run("key file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := run(dir, "", "apps", "create", "--name", "a"); err != nil {
			t.Fatalf("apps create: %v", err)
		}
		keyFile := filepath.Join(dir, "master.key")
		info, err := os.Stat(keyFile)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Fatalf("key file: %v, %v; want mode 0600", info, err)
		}
		if err := os.WriteFile(keyFile, []byte(seal.NewKey().String()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		err = run(dir, "", "serve", "--addr", "127.0.0.1:0")
		if err == nil || !strings.Contains(err.Error(), keyFile) || !strings.Contains(err.Error(), "does not open") {
			t.Errorf("serve with a replaced key file = %v, want an error naming %s", err, keyFile)
		}
	})
}
