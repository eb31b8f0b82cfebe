package ids

import (
	"slices"
	"strings"
	"testing"
)

// TestNew_SortsInCreationOrder: ids made back to back, most of them in the
// same millisecond, sort in the order they were made and never repeat.
func TestNew_SortsInCreationOrder(t *testing.T) {
	made := make([]string, 20000)
	for i := range made {
		made[i] = New("acc")
	}
	sorted := slices.Clone(made)
	slices.Sort(sorted)
	if !slices.Equal(made, sorted) {
		for i := range made {
			if made[i] != sorted[i] {
				t.Fatalf("id %d (%s) sorts at another place (%s there)", i, made[i], sorted[i])
			}
		}
	}
	if len(slices.Compact(sorted)) != len(made) {
		t.Error("an id repeated")
	}
	if !strings.HasPrefix(made[0], "acc_") || len(made[0]) != len("acc_")+26 {
		t.Errorf("id %q: want acc_ and 26 characters", made[0])
	}
}

func TestIncrement(t *testing.T) {
	tests := []struct {
		in, want []byte
		wrapped  bool
	}{
		{[]byte{0, 0}, []byte{0, 1}, false},
		{[]byte{0, 255}, []byte{1, 0}, false},
		{[]byte{255, 255}, []byte{0, 0}, true},
	}
	for _, tc := range tests {
		b := slices.Clone(tc.in)
		if wrapped := increment(b); !slices.Equal(b, tc.want) || wrapped != tc.wrapped {
			t.Errorf("increment(%v) = %v, %v; want %v, %v", tc.in, b, wrapped, tc.want, tc.wrapped)
		}
	}
}
