//go:build ignore

// gen.go writes zones_gen.go from CLDR's windowsZones.xml and the link
// lines of the IANA time zone database. Run it with go generate.
//
// Inputs:
//   - testdata/windowsZones.xml: common/supplemental/windowsZones.xml from
//     https://github.com/unicode-org/cldr. Each mapZone row pairs a Windows
//     zone ("other") and a territory with a space-separated list of IANA
//     names ("type"); territory "001" is the default for the Windows zone.
//   - testdata/tzdata-links.txt: "L TARGET LINK-NAME" lines of the tz
//     database, used only for IANA names that CLDR does not list (for
//     example Asia/Kolkata, which CLDR spells Asia/Calcutta).
package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"slices"
	"strings"
)

type supplementalData struct {
	MapTimezones struct {
		OtherVersion string `xml:"otherVersion,attr"`
		TypeVersion  string `xml:"typeVersion,attr"`
		MapZones     []struct {
			Other     string `xml:"other,attr"`
			Territory string `xml:"territory,attr"`
			Type      string `xml:"type,attr"`
		} `xml:"mapZone"`
	} `xml:"windowsZones>mapTimezones"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("winzone gen: ")
	zonesPath := flag.String("zones", "testdata/windowsZones.xml", "CLDR windowsZones.xml")
	linksPath := flag.String("links", "testdata/tzdata-links.txt", "tz database link lines")
	outPath := flag.String("o", "zones_gen.go", "output file")
	flag.Parse()

	data, err := readZones(*zonesPath)
	if err != nil {
		log.Fatal(err)
	}
	links, err := readLinks(*linksPath)
	if err != nil {
		log.Fatal(err)
	}
	toIANA, toWindows, err := buildTables(data)
	if err != nil {
		log.Fatal(err)
	}
	addLinks(toWindows, links)

	src, err := render(data, toIANA, toWindows)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*outPath, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

func readZones(path string) (*supplementalData, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = false // The file names a DTD that is not shipped with it.
	var data supplementalData
	if err := dec.Decode(&data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data.MapTimezones.MapZones) == 0 {
		return nil, fmt.Errorf("%s: no mapZone rows", path)
	}
	return &data, nil
}

// readLinks returns link name -> target from "L TARGET LINK-NAME" lines.
func readLinks(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	links := make(map[string]string)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] != "L" {
			continue
		}
		links[fields[2]] = fields[1]
	}
	return links, sc.Err()
}

// buildTables returns Windows -> IANA (territory 001) and IANA -> Windows for
// every IANA name CLDR lists. A name listed under two Windows zones keeps the
// zone whose 001 row names it; any other clash is an error.
func buildTables(data *supplementalData) (map[string]string, map[string]string, error) {
	toIANA := make(map[string]string)
	toWindows := make(map[string]string)
	isDefault := make(map[string]bool)
	for _, z := range data.MapTimezones.MapZones {
		names := strings.Fields(z.Type)
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("mapZone %q/%s has no type", z.Other, z.Territory)
		}
		if z.Territory == "001" {
			if prev, ok := toIANA[z.Other]; ok && prev != names[0] {
				return nil, nil, fmt.Errorf("%q has two 001 rows: %s and %s", z.Other, prev, names[0])
			}
			toIANA[z.Other] = names[0]
		}
		for _, name := range names {
			prev, ok := toWindows[name]
			switch {
			case !ok:
				toWindows[name] = z.Other
			case prev == z.Other:
			case z.Territory == "001" && !isDefault[name]:
				toWindows[name] = z.Other
			case isDefault[name]:
				// Keep the 001 mapping.
			default:
				return nil, nil, fmt.Errorf("%s is listed under %q and %q", name, prev, z.Other)
			}
			if z.Territory == "001" {
				isDefault[name] = true
			}
		}
	}
	for windows := range toIANA {
		if toWindows[toIANA[windows]] != windows {
			return nil, nil, fmt.Errorf("%q: its 001 zone %s maps back to %q", windows, toIANA[windows], toWindows[toIANA[windows]])
		}
	}
	return toIANA, toWindows, nil
}

// addLinks maps IANA names that CLDR does not list: a link whose target CLDR
// lists, and a target whose CLDR-listed links all agree on one Windows zone.
func addLinks(toWindows map[string]string, links map[string]string) {
	byTarget := make(map[string][]string)
	for link, target := range links {
		byTarget[target] = append(byTarget[target], link)
	}
	added := make(map[string]string)
	for target, names := range byTarget {
		if _, ok := toWindows[target]; ok {
			continue
		}
		windows := ""
		agree := true
		for _, name := range names {
			w, ok := toWindows[name]
			if !ok {
				continue
			}
			if windows != "" && w != windows {
				agree = false
			}
			windows = w
		}
		if windows != "" && agree {
			added[target] = windows
		}
	}
	for link, target := range links {
		if _, ok := toWindows[link]; ok {
			continue
		}
		if w, ok := toWindows[target]; ok {
			added[link] = w
		} else if w, ok := added[target]; ok {
			added[link] = w
		}
	}
	for name, w := range added {
		toWindows[name] = w
	}
}

func render(data *supplementalData, toIANA, toWindows map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by gen.go from testdata/windowsZones.xml and testdata/tzdata-links.txt; DO NOT EDIT.\n\n")
	b.WriteString("package winzone\n\n")
	fmt.Fprintf(&b, "// cldrOtherVersion and cldrTypeVersion are the Windows and tz data\n")
	fmt.Fprintf(&b, "// versions that windowsZones.xml declares.\n")
	fmt.Fprintf(&b, "const (\n\tcldrOtherVersion = %q\n\tcldrTypeVersion = %q\n)\n\n", data.MapTimezones.OtherVersion, data.MapTimezones.TypeVersion)
	b.WriteString("// windowsToIANA maps each Windows zone to the IANA zone of its territory 001 row.\n")
	writeMap(&b, "windowsToIANA", toIANA)
	b.WriteString("\n// ianaToWindows maps every IANA name CLDR lists, and tz database links to\n// them, to a Windows zone.\n")
	writeMap(&b, "ianaToWindows", toWindows)
	return format.Source(b.Bytes())
}

func writeMap(b *bytes.Buffer, name string, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(b, "var %s = map[string]string{\n", name)
	for _, k := range keys {
		fmt.Fprintf(b, "\t%q: %q,\n", k, m[k])
	}
	b.WriteString("}\n")
}
