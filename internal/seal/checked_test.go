package seal_test

import (
	"testing"

	"github.com/unical/unical/internal/seal"
)

// TestCheckedSecrets checks that remembering a matched secret changes no
// answer: in each sequence, every check answers as SecretMatches does.
func TestCheckedSecrets(t *testing.T) {
	t.Parallel()
	right, other := "rv5tc5darcb3je6ht8ca3e0eg112h78entb6cwqm8nk1xfremeqg", "rv5tc5darcb3je6ht8ca3e0eg112h78entb6cwqm8nk1xfremeqh"
	hash, otherHash := seal.HashSecret(right), seal.HashSecret(other)
	type check struct {
		id     string
		hash   []byte
		secret string
		want   bool
	}
	tests := []struct {
		name   string
		checks []check
	}{
		{"RightAgain", []check{{"key_1", hash, right, true}, {"key_1", hash, right, true}, {"key_1", hash, right, true}}},
		{"WrongAfterRight", []check{{"key_1", hash, right, true}, {"key_1", hash, other, false}, {"key_1", hash, "", false}}},
		{"RightAfterWrong", []check{{"key_1", hash, other, false}, {"key_1", hash, right, true}}},
		{"HashChanged", []check{{"key_1", hash, right, true}, {"key_1", otherHash, right, false}, {"key_1", otherHash, other, true}, {"key_1", hash, other, false}}},
		{"OtherKey", []check{{"key_1", hash, right, true}, {"key_2", otherHash, right, false}, {"key_2", hash, right, true}}},
		{"ShortHash", []check{{"key_1", hash[:16], right, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var c seal.CheckedSecrets
			for i, ch := range tc.checks {
				if got := c.Matches(ch.id, ch.hash, ch.secret); got != ch.want {
					t.Errorf("check %d: Matches(%s, …) = %t, want %t", i, ch.id, got, ch.want)
				}
			}
		})
	}
}
