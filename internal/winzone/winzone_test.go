package winzone_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
	_ "time/tzdata" // LoadLocation falls back to Go's copy where the system has none.

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/winzone"
)

type result struct {
	Name string
	OK   bool
}

func TestToIANA(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		windows string
		want    result
	}{
		{"WEurope", "W. Europe Standard Time", result{"Europe/Berlin", true}},
		{"Pacific", "Pacific Standard Time", result{"America/Los_Angeles", true}},
		{"PacificMexico", "Pacific Standard Time (Mexico)", result{"America/Tijuana", true}},
		{"UTC", "UTC", result{"Etc/UTC", true}},
		{"FixedOffset", "UTC-11", result{"Etc/GMT+11", true}},
		{"Dateline", "Dateline Standard Time", result{"Etc/GMT+12", true}},
		{"India", "India Standard Time", result{"Asia/Calcutta", true}},
		{"ErrUnknown", "Mars Standard Time", result{"", false}},
		{"ErrCase", "w. europe standard time", result{"", false}},
		{"ErrEmpty", "", result{"", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, ok := winzone.ToIANA(tc.windows)
			if diff := cmp.Diff(tc.want, result{name, ok}); diff != "" {
				t.Errorf("ToIANA(%q) mismatch (-want +got):\n%s", tc.windows, diff)
			}
		})
	}
}

func TestToWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		iana string
		want result
	}{
		{"Default", "Europe/Berlin", result{"W. Europe Standard Time", true}},
		{"TerritoryRow", "Europe/Zurich", result{"W. Europe Standard Time", true}},
		{"SecondInTypeList", "Europe/Busingen", result{"W. Europe Standard Time", true}},
		{"LongTypeList", "America/North_Dakota/New_Salem", result{"Central Standard Time", true}},
		{"TrailingSpaceInTypeList", "America/Chihuahua", result{"Central Standard Time (Mexico)", true}},
		{"ZZRow", "Etc/GMT+5", result{"SA Pacific Standard Time", true}},
		{"EtcUTC", "Etc/UTC", result{"UTC", true}},
		{"CLDRSpelling", "Asia/Calcutta", result{"India Standard Time", true}},
		{"TzTargetOfCLDRName", "Asia/Kolkata", result{"India Standard Time", true}},
		{"TzTargetKyiv", "Europe/Kyiv", result{"FLE Standard Time", true}},
		{"TzTargetNuuk", "America/Nuuk", result{"Greenland Standard Time", true}},
		{"TzLinkToCLDRName", "US/Pacific", result{"Pacific Standard Time", true}},
		{"TzLinkUTC", "UTC", result{"UTC", true}},
		{"ErrUnknown", "Mars/Olympus_Mons", result{"", false}},
		{"ErrWindowsName", "W. Europe Standard Time", result{"", false}},
		{"ErrEmpty", "", result{"", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, ok := winzone.ToWindows(tc.iana)
			if diff := cmp.Diff(tc.want, result{name, ok}); diff != "" {
				t.Errorf("ToWindows(%q) mismatch (-want +got):\n%s", tc.iana, diff)
			}
		})
	}
}

// TestRoundTrip checks that every Windows zone maps to an IANA zone that
// maps back to it.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	names := winzone.WindowsNames()
	if len(names) < 130 {
		t.Fatalf("WindowsNames() has %d names, want the whole CLDR table (>= 130)", len(names))
	}
	for _, w := range names {
		iana, ok := winzone.ToIANA(w)
		if !ok {
			t.Errorf("ToIANA(%q) not found", w)
			continue
		}
		back, ok := winzone.ToWindows(iana)
		if !ok || back != w {
			t.Errorf("ToWindows(ToIANA(%q) = %q) = %q, %v; want %q", w, iana, back, ok, w)
		}
	}
}

// TestLoadLocation checks that every IANA name the tables hold is one Go's
// time package can load, from the system tz database or time/tzdata.
func TestLoadLocation(t *testing.T) {
	t.Parallel()
	for _, w := range winzone.WindowsNames() {
		iana, _ := winzone.ToIANA(w)
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("LoadLocation(ToIANA(%q) = %q): %v", w, iana, err)
		}
	}
	for _, iana := range winzone.IANANames() {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("LoadLocation(%q): %v", iana, err)
		}
	}
}

// TestGenerated checks that zones_gen.go is what gen.go writes from the data
// files, so that the table cannot be edited by hand.
func TestGenerated(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	out := filepath.Join(t.TempDir(), "zones_gen.go")
	cmd := exec.CommandContext(t.Context(), "go", "run", "gen.go", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zones_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("zones_gen.go is stale; run go generate ./internal/winzone")
	}
}
