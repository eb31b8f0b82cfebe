package unical_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

var (
	mdHeading    = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
	mdLink       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdInlineCode = regexp.MustCompile("`[^`]*`")
)

// mdAnchor is the anchor GitHub gives a heading: its text without markup,
// lower case, with punctuation other than - and _ dropped and spaces as -.
func mdAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.ReplaceAll(heading, "`", "")) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdDoc is a Markdown file's anchors and the links it makes, with their
// line numbers; fenced code blocks and inline code are not read.
type mdDoc struct {
	anchors map[string]bool
	links   []mdLinkAt
}

type mdLinkAt struct {
	line   int
	target string
}

func readMarkdown(t *testing.T, path string) mdDoc {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := mdDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	inFence := false
	for i, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			a := mdAnchor(m[1])
			if n := seen[a]; n > 0 {
				doc.anchors[fmt.Sprintf("%s-%d", a, n)] = true
			} else {
				doc.anchors[a] = true
			}
			seen[a]++
		}
		for _, m := range mdLink.FindAllStringSubmatch(mdInlineCode.ReplaceAllString(line, ""), -1) {
			doc.links = append(doc.links, mdLinkAt{line: i + 1, target: m[1]})
		}
	}
	return doc
}

func TestMarkdownAnchor(t *testing.T) {
	tests := map[string]string{
		"Plugging in":                "plugging-in",
		"Free/busy":                  "freebusy",
		"CalDAV (`PROVIDER_C`)":      "caldav-provider_c",
		"Remote Go: the HTTP client": "remote-go-the-http-client",
		"Virtual calendars (`VIRTUAL`, our extension)":   "virtual-calendars-virtual-our-extension",
		"Replicas: what each one does, and what happens": "replicas-what-each-one-does-and-what-happens",
	}
	got := map[string]string{}
	for h := range tests {
		got[h] = mdAnchor(h)
	}
	if diff := cmp.Diff(tests, got); diff != "" {
		t.Errorf("anchors (-want +got):\n%s", diff)
	}
}

// TestDocsLinks checks that every relative link of README.md and docs/*.md
// names a file or folder of the repository, and every #anchor a heading
// of the page it points to, so that moving a section cannot leave a
// reader at a dead link.
func TestDocsLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"README.md"}, pages...)
	docs := map[string]mdDoc{}
	for _, p := range pages {
		docs[p] = readMarkdown(t, p)
	}
	checked := 0
	for _, p := range pages {
		for _, l := range docs[p].links {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(l.target, "#")
			target := p
			if file != "" {
				target = filepath.Join(filepath.Dir(p), file)
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %q: no %s", p, l.line, l.target, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			doc, ok := docs[target]
			if !ok {
				if !strings.HasSuffix(target, ".md") {
					t.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", p, l.line, l.target)
					continue
				}
				doc = readMarkdown(t, target)
			}
			if !doc.anchors[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", p, l.line, l.target, target, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no relative links: the link pattern is broken")
	}
}
