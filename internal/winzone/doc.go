// Package winzone translates between Windows time zone names, which
// Microsoft Graph uses in dateTimeTimeZone values ("W. Europe Standard
// Time"), and IANA time zone names, which Go's time package loads
// ("Europe/Berlin").
//
// The tables are generated from the Unicode CLDR file
// common/supplemental/windowsZones.xml
// (https://github.com/unicode-org/cldr, described in UTS #35,
// https://www.unicode.org/reports/tr35/tr35-dates.html#Time_Zone_Names) and
// from the link lines of the IANA time zone database
// (https://www.iana.org/time-zones). Both copies live in testdata; run
// go generate to rebuild zones_gen.go after updating them.
package winzone
