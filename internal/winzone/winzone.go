package winzone

import (
	"slices"
)

//go:generate go run gen.go

// ToIANA returns the IANA zone for a Windows zone name, as CLDR's default
// territory ("001") row gives it: ToIANA("W. Europe Standard Time") is
// "Europe/Berlin". Names are matched exactly. It reports false for a name
// CLDR does not list.
func ToIANA(windows string) (string, bool) {
	iana, ok := windowsToIANA[windows]
	return iana, ok
}

// ToWindows returns the Windows zone for an IANA zone name. It knows every
// name in CLDR's space-separated type lists, so that both "Europe/Berlin" and
// "Europe/Busingen" give "W. Europe Standard Time", and the tz database links
// to them, so that both "Asia/Calcutta" (CLDR's spelling) and "Asia/Kolkata"
// give "India Standard Time". It reports false for any other name.
func ToWindows(iana string) (string, bool) {
	windows, ok := ianaToWindows[iana]
	return windows, ok
}

// WindowsNames returns every Windows zone name CLDR lists, sorted.
func WindowsNames() []string {
	names := make([]string, 0, len(windowsToIANA))
	for name := range windowsToIANA {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// IANANames returns every IANA zone name ToWindows knows, sorted.
func IANANames() []string {
	names := make([]string, 0, len(ianaToWindows))
	for name := range ianaToWindows {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
