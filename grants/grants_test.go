package grants_test

import (
	"testing"
	"time"

	"github.com/unical/unical/grants"
)

func TestPeriod(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		interval, keepAlive time.Duration
		want                time.Duration
	}{
		{name: "Defaults", want: grants.DefaultCheckInterval},
		{name: "ChecksOff", interval: -1, want: grants.DefaultKeepAlive},
		{name: "KeepAliveShorter", interval: 48 * time.Hour, keepAlive: 24 * time.Hour, want: 24 * time.Hour},
		{name: "KeepAliveOff", interval: time.Hour, keepAlive: -1, want: time.Hour},
		{name: "BothOff", interval: -1, keepAlive: -1, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := grants.Config{CheckInterval: tc.interval, KeepAlive: tc.keepAlive}.Period()
			if got != tc.want {
				t.Errorf("Period() = %s, want %s", got, tc.want)
			}
		})
	}
}
