package seal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/unical/unical/internal/seal"
)

func TestSealer_RoundTrip(t *testing.T) {
	t.Parallel()
	s := seal.New(seal.NewKey())
	sealed := s.Seal([]byte("refresh-token-1"), []byte("acct_1"))
	if bytes.Contains(sealed, []byte("refresh-token-1")) {
		t.Fatal("sealed data contains the plaintext")
	}
	got, err := s.Open(sealed, []byte("acct_1"))
	if err != nil || string(got) != "refresh-token-1" {
		t.Fatalf("Open() = %q, %v; want the plaintext", got, err)
	}
}

func TestSealer_Open_Errors(t *testing.T) {
	t.Parallel()
	key := seal.NewKey()
	s := seal.New(key)
	sealed := s.Seal([]byte("secret"), []byte("a"))
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	tests := []struct {
		name   string
		sealer *seal.Sealer
		data   []byte
		ad     string
	}{
		{"ErrTampered", s, tampered, "a"},
		{"ErrOtherAD", s, sealed, "b"},
		{"ErrOtherKey", seal.New(seal.NewKey()), sealed, "a"},
		{"ErrDerivedKey", seal.New(key.Derive("tokens")), sealed, "a"},
		{"ErrTruncated", s, sealed[:10], "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tc.sealer.Open(tc.data, []byte(tc.ad)); !errors.Is(err, seal.ErrOpen) {
				t.Fatalf("Open() error = %v, want ErrOpen", err)
			}
		})
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	k := seal.NewKey()
	for _, s := range []string{k.String(), "  " + k.String() + "\n"} {
		got, err := seal.ParseKey(s)
		if err != nil || got != k {
			t.Fatalf("ParseKey(%q) = %v, %v; want the key", s, got, err)
		}
	}
	if _, err := seal.ParseKey("c2hvcnQ="); err == nil {
		t.Fatal("ParseKey(short key) succeeded, want an error")
	}
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "master.key")
	k1, created, err := seal.LoadOrCreateKeyFile(path)
	if err != nil || !created {
		t.Fatalf("first LoadOrCreateKeyFile() = created %v, %v; want a new file", created, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := seal.ParseKey(string(b)); err != nil || k != k1 {
		t.Fatalf("key file holds %q, want the returned key", b)
	}
	k2, created, err := seal.LoadOrCreateKeyFile(path)
	if err != nil || created || k2 != k1 {
		t.Fatalf("second LoadOrCreateKeyFile() = created %v, same key %v, %v; want the same key", created, k2 == k1, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := seal.LoadOrCreateKeyFile(path); err == nil {
		t.Fatal("LoadOrCreateKeyFile() accepted a world-readable key file")
	}
}

func TestSecretMatches(t *testing.T) {
	hash := seal.HashSecret("s3cret")
	for _, tc := range []struct {
		secret string
		hash   []byte
		want   bool
	}{
		{"s3cret", hash, true},
		{"s3cret ", hash, false},
		{"S3cret", hash, false},
		{"", hash, false},
		{"s3cret", hash[:31], false},
		{"s3cret", nil, false},
	} {
		if got := seal.SecretMatches(tc.hash, tc.secret); got != tc.want {
			t.Errorf("SecretMatches(%d-byte hash, %q) = %v, want %v", len(tc.hash), tc.secret, got, tc.want)
		}
	}
}
