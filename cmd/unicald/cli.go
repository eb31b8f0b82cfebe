package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
)

// The command line is a tree of commands: groups (unicald, apps, keys)
// hold subcommands, and each leaf defines its flags in setup. Help, usage
// errors and the hint that follows them come from the tree, so a new
// command gets them by being added to it (see commandTree).

// command is one command of the command line: a group when it has subs,
// otherwise a leaf with setup.
type command struct {
	// path is what follows "unicald" on the command line, such as
	// "apps create"; "" for unicald itself.
	path string
	// synopsis is the arguments of its usage line, such as "--name NAME".
	synopsis string
	// summary says in one line what it does.
	summary string
	// notes, when set, end its help.
	notes string
	// setup defines the leaf's flags on fs and returns the function that
	// runs it once they are parsed. An error (such as a bad value in the
	// environment) is reported only after the command line is parsed, so
	// that --help still works.
	setup func(m *Main, fs *flag.FlagSet) (run func(context.Context) error, err error)
	subs  []*command
}

// name is how help calls the command.
func (c *command) name() string { return strings.TrimSpace("unicald " + c.path) }

// label is how errors, which follow "unicald: ", call the command.
func (c *command) label() string {
	if c.path == "" {
		return "unicald"
	}
	return c.path
}

// sub returns the subcommand called word, or nil.
func (c *command) sub(word string) *command {
	for _, s := range c.subs {
		if s.path == strings.TrimSpace(c.path+" "+word) {
			return s
		}
	}
	return nil
}

// subNames lists the words of c's subcommands, for errors.
func (c *command) subNames() string {
	words := make([]string, len(c.subs))
	for i, s := range c.subs {
		words[i] = s.path[strings.LastIndex(s.path, " ")+1:]
	}
	return strings.Join(words, ", ")
}

// isHelp reports whether a word asks for help.
func isHelp(word string) bool {
	return word == "help" || word == "-h" || word == "-help" || word == "--help"
}

// usageError marks a command-line mistake (exit status 2). command names
// the command whose --help the hint points to.
type usageError struct {
	msg     string
	command string
}

func (e usageError) Error() string { return e.msg }

// exitCode is 2 for a usage mistake, 1 for any other failure.
func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// report writes err to w as the program's last words: one line, and for
// a usage mistake a hint naming the help to read. It returns the exit
// status.
func report(w io.Writer, err error) int {
	fmt.Fprintln(w, "unicald:", err)
	var ue usageError
	if errors.As(err, &ue) {
		name := ue.command
		if name == "" {
			name = "unicald"
		}
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", name)
	}
	return exitCode(err)
}

// blame names c in a usage error that does not name a command yet.
func blame(err error, c *command) error {
	var ue usageError
	if errors.As(err, &ue) && ue.command == "" {
		ue.command = c.name()
		return ue
	}
	return err
}

// run runs the command that args name below c.
func (m *Main) run(ctx context.Context, c *command, args []string) error {
	if c.subs != nil {
		if len(args) == 0 {
			return usageError{fmt.Sprintf("%s needs a command: %s", c.label(), c.subNames()), c.name()}
		}
		if isHelp(args[0]) {
			return m.help(c, args[1:])
		}
		sub := c.sub(args[0])
		if sub == nil {
			return usageError{fmt.Sprintf("%s has no command %q (it has %s)", c.label(), args[0], c.subNames()), c.name()}
		}
		return m.run(ctx, sub, args[1:])
	}
	if len(args) > 0 && args[0] == "help" {
		return m.help(c, nil)
	}
	fs := newFlagSet(c)
	run, setupErr := c.setup(m, fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeHelp(m.Stdout, c, fs)
		}
		return usageError{flagErrorMessage(err, fs), c.name()}
	}
	if setupErr != nil {
		return blame(setupErr, c)
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s takes only flags, not %q", c.label(), fs.Arg(0)), c.name()}
	}
	return blame(run(ctx), c)
}

// help prints the help of c, or of the subcommand that path names
// ("unicald help apps create").
func (m *Main) help(c *command, path []string) error {
	for _, word := range path {
		sub := c.sub(word)
		if sub == nil {
			return usageError{fmt.Sprintf("%s has no command %q (it has %s)", c.label(), word, c.subNames()), c.name()}
		}
		c = sub
	}
	var fs *flag.FlagSet
	if c.setup != nil {
		fs = newFlagSet(c)
		c.setup(m, fs) // only the flags matter here, not a bad environment
	}
	return writeHelp(m.Stdout, c, fs)
}

// newFlagSet returns the flag set of a leaf. It prints nothing itself:
// run reports its errors and help in one place.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// writeHelp writes the help of c: its usage line, what it does, and its
// subcommands or flags (fs, nil for a group).
func writeHelp(w io.Writer, c *command, fs *flag.FlagSet) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s %s\n\n%s\n", c.name(), c.synopsis, c.summary)
	if c.subs != nil {
		b.WriteString("\ncommands:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, s := range c.subs {
			fmt.Fprintf(tw, "  %s\t%s\n", s.name(), s.summary)
		}
		tw.Flush()
		fmt.Fprintf(&b, "\nRun '%s COMMAND --help' for a command's flags.\n", c.name())
	}
	if fs != nil {
		b.WriteString("\nflags:\n")
		fs.VisitAll(func(f *flag.Flag) {
			if _, ok := f.Value.(ignoredFlag); ok {
				return
			}
			arg, text := flag.UnquoteUsage(f)
			if n, ok := f.Value.(argNamer); ok {
				arg = n.argName()
			}
			fmt.Fprintf(&b, "  --%s", f.Name)
			if arg != "" {
				fmt.Fprintf(&b, " %s", arg)
			}
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				text += " (default " + f.DefValue + ")"
			}
			fmt.Fprintf(&b, "\n      %s\n", text)
		})
	}
	if c.notes != "" {
		fmt.Fprintf(&b, "\n%s\n", c.notes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ignoredFlag is the value of a flag kept only so that old command lines
// still start: it takes any value, does nothing, and help leaves it out.
type ignoredFlag struct{}

func (ignoredFlag) String() string   { return "" }
func (ignoredFlag) Set(string) error { return nil }

// flagErrorMessage rewrites an error of the flag package the way help
// spells flags, with two dashes (the package says "-addr"), and for an
// unknown flag suggests the defined one it is closest to.
func flagErrorMessage(err error, fs *flag.FlagSet) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag --" + name
		if near := nearestFlag(fs, name); near != "" {
			msg += "; did you mean --" + near + "?"
		}
		return msg
	}
	return singleDashFlag.ReplaceAllString(msg, "${1}--$2")
}

// singleDashFlag finds the flag names in the flag package's messages
// ("flag needs an argument: -addr", `invalid value "x" for flag -addr`).
var singleDashFlag = regexp.MustCompile(`(: |flag |for )-([a-z][a-z0-9-]*)`)

// nearestFlag returns the defined flag whose name is within two edits of
// name (a typo such as --adr), or "" when none is that close; ignored
// flags are never suggested.
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(ignoredFlag); ok {
			return
		}
		if d := editDistance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// argNamer is a flag.Value that names its argument in help, where the
// flag package would say "value".
type argNamer interface{ argName() string }

// withEnv is the help text of a flag whose default comes from the
// environment variable env.
func withEnv(text, env string) string { return text + " (env " + env + ")" }

// column is one column of a list's table.
type column[T any] struct {
	header string
	value  func(T) string
}

// writeList prints the rows of a list command: indented JSON with
// asJSON, else a table with a header row and aligned columns. Offline and
// --server commands print through it, so that both look the same.
func writeList[T any](w io.Writer, asJSON bool, rows []T, cols []column[T]) error {
	if asJSON {
		if rows == nil {
			rows = []T{} // an empty list is [], not null
		}
		b, err := json.MarshalIndent(rows, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = c.header
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
	for _, row := range rows {
		for i, c := range cols {
			cells[i] = tableCell(c.value(row))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// tableCell keeps a value on its line and in its column: control
// characters (tabs, newlines) become spaces, and an empty value a dash.
func tableCell(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
