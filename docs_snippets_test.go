package unical_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A Go block of README.md or docs/ follows a marker line saying what the
// test does with it: "run" (a whole program, built and run; a text block
// marked "output" right after it is what it must print) or "compile" (a
// whole program that needs a server or secrets to run, only built). A Go
// block without a marker fails the test, so no snippet goes untested.
var (
	goFence      = regexp.MustCompile("(?m)^```go\n((?s:.*?))^```$")
	snippetBlock = regexp.MustCompile("(?m)^<!-- snippet: (run|compile|output) -->\n```(?:go|text)\n((?s:.*?))^```$")
)

type goSnippet struct {
	where, mode, code, output string
}

// goSnippets reads every marked Go block of README.md and docs/*.md,
// failing on a Go block without a marker.
func goSnippets(t *testing.T) []goSnippet {
	t.Helper()
	files, _ := filepath.Glob("docs/*.md")
	files = append([]string{"README.md"}, files...)
	var out []goSnippet
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var found []goSnippet
		for _, m := range snippetBlock.FindAllStringSubmatch(string(text), -1) {
			if m[1] == "output" {
				if len(found) == 0 || found[len(found)-1].mode != "run" || found[len(found)-1].output != "" {
					t.Errorf("%s: an output block that follows no program to run", f)
					continue
				}
				found[len(found)-1].output = m[2]
				continue
			}
			found = append(found, goSnippet{where: fmt.Sprintf("%s#%d", f, len(found)+1), mode: m[1], code: m[2]})
		}
		if all := goFence.FindAllString(string(text), -1); len(all) != len(found) {
			t.Errorf("%s has %d Go blocks and %d marked ones: put <!-- snippet: run --> or <!-- snippet: compile --> before each", f, len(all), len(found))
		}
		out = append(out, found...)
	}
	return out
}

// TestDocs_GoSnippets builds every Go block of the docs as a program of a
// module of its own, which requires this checkout as
// github.com/unical/unical (as a reader's new module requires the
// release), and runs those marked to run, comparing what they print.
func TestDocs_GoSnippets(t *testing.T) {
	snippets := goSnippets(t)
	if len(snippets) < 3 {
		t.Fatalf("found %d Go snippets in the docs, want at least docs/go.md's and docs/webhooks.md's", len(snippets))
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	goMod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	// The checkout's own requirements, so that the build needs no
	// module resolution: its go.sum already holds their sums.
	requires := goMod[strings.Index(string(goMod), "\nrequire"):]
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/snippets\n\ngo 1.25.0\n\nrequire github.com/unical/unical v0.0.0-00010101000000-000000000000\n\nreplace github.com/unical/unical => "+repo+"\n"+string(requires))
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mod, "go.sum"), string(sum))
	for i, s := range snippets {
		writeFile(t, filepath.Join(mod, "s"+string(rune('a'+i)), "main.go"), s.code)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, goBin, "build", "-o", filepath.Join(mod, "bin")+string(filepath.Separator), "./...")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the docs' Go snippets: %v\n%s", err, out)
	}
	for i, s := range snippets {
		if s.mode != "run" {
			continue
		}
		t.Run(s.where, func(t *testing.T) {
			run := exec.CommandContext(ctx, filepath.Join(mod, "bin", "s"+string(rune('a'+i))))
			run.Dir = t.TempDir()
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", s.where, err, out)
			}
			if s.output == "" {
				t.Fatalf("%s runs but the docs do not say what it prints: add a <!-- snippet: output --> text block after it", s.where)
			}
			if diff := cmp.Diff(s.output, string(out)); diff != "" {
				t.Errorf("%s prints (-documented +got):\n%s", s.where, diff)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// curlMarker is the line before a curl block with a body that the tests
// do not run: it says the block is an excerpt and what stands for the
// reader's own values. The README's Quickstart blocks are run by
// cmd/unicald's TestQuickstart and carry its markers.
var curlMarker = regexp.MustCompile(`^\s*<!-- (snippet: excerpt: .+|quickstart: [a-z ]+) -->$`)

// TestDocs_CurlBlocks: every code block of README.md and docs/ that sends
// a body with curl is either run by a test or marked as an excerpt.
func TestDocs_CurlBlocks(t *testing.T) {
	files, _ := filepath.Glob("docs/*.md")
	files = append([]string{"README.md"}, files...)
	checked := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range codeBlocks(string(text)) {
			if !strings.Contains(b.text, "curl ") || !strings.Contains(b.text, " -d ") {
				continue
			}
			checked++
			if !curlMarker.MatchString(b.before) {
				t.Errorf("%s:%d: a curl block with a body that no test runs and no <!-- snippet: excerpt: ... --> line marks", f, b.line)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d curl blocks with a body found", checked)
	}
}

type codeBlock struct {
	line         int    // where it starts, from 1
	text, before string // its text; the last non-blank line before it
}

// codeBlocks returns a Markdown file's fenced blocks and its indented
// ones (four spaces or more past the surrounding text, after a blank
// line), each with the last non-blank line before it.
func codeBlocks(md string) []codeBlock {
	lines := strings.Split(md, "\n")
	var blocks []codeBlock
	prev := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			b := codeBlock{line: i + 1, before: prev}
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				b.text += lines[i] + "\n"
			}
			blocks = append(blocks, b)
			prev = ""
			continue
		case i > 0 && strings.TrimSpace(lines[i-1]) == "" && indentOf(line) >= 4 && trimmed != "" && !strings.HasPrefix(trimmed, "- ") && indentOf(line) >= indentOf(prev)+4:
			b := codeBlock{line: i + 1, before: prev}
			indent := indentOf(line)
			for ; i < len(lines) && (strings.TrimSpace(lines[i]) == "" || indentOf(lines[i]) >= indent); i++ {
				b.text += lines[i] + "\n"
			}
			i--
			blocks = append(blocks, b)
			prev = ""
			continue
		}
		if trimmed != "" {
			prev = line
		}
	}
	return blocks
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }
