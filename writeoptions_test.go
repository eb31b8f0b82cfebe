package unical_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical"
)

// TestNoContextCarriedOptions keeps the per-call choices of a write in
// the open: the root package and package ifmatch put nothing on a
// context and read nothing off one, so a write's options are its
// WriteOptions argument and nothing a closure can lose.
func TestNoContextCarriedOptions(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "ifmatch"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				switch {
				case ok && x.Name == "context" && sel.Sel.Name == "WithValue":
					t.Errorf("%s: context.WithValue: pass a write's options as WriteOptions", fset.Position(sel.Pos()))
				case ok && x.Name == "ctx" && sel.Sel.Name == "Value":
					t.Errorf("%s: ctx.Value: pass a write's options as WriteOptions", fset.Position(sel.Pos()))
				}
				return true
			})
		}
	}
}

// TestOptionsOf checks how a write reads its variadic WriteOptions: none
// is the zero value, a second one and a field the write does not take
// are refused naming it.
func TestOptionsOf(t *testing.T) {
	t.Parallel()
	yes := true
	tests := []struct {
		name  string
		opts  []unical.WriteOptions
		takes []string
		want  unical.WriteOptions
		err   *unical.Error
	}{
		{name: "none", want: unical.WriteOptions{}},
		{name: "a key", opts: []unical.WriteOptions{{IdempotencyKey: "k"}}, want: unical.WriteOptions{IdempotencyKey: "k"}},
		{name: "taken fields", opts: []unical.WriteOptions{{IdempotencyKey: "k", NotifyAttendees: &yes, IfMatch: `"1"`}},
			takes: []string{unical.OptionNotifyAttendees, unical.OptionIfMatch},
			want:  unical.WriteOptions{IdempotencyKey: "k", NotifyAttendees: &yes, IfMatch: `"1"`}},
		{name: "two", opts: []unical.WriteOptions{{}, {}}, err: &unical.Error{Code: unical.CodeInvalid}},
		{name: "notify not taken", opts: []unical.WriteOptions{{NotifyAttendees: &yes}}, err: &unical.Error{Code: unical.CodeInvalid, Field: "notifyAttendees"}},
		{name: "If-Match not taken", opts: []unical.WriteOptions{{IfMatch: `"1"`}}, takes: []string{unical.OptionNotifyAttendees},
			err: &unical.Error{Code: unical.CodeInvalid, Field: "If-Match"}},
		{name: "keep grant not taken", opts: []unical.WriteOptions{{KeepGrant: true}}, err: &unical.Error{Code: unical.CodeInvalid, Field: "revokeGrant"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unical.OptionsOf(tc.opts, tc.takes...)
			if tc.err != nil {
				var e *unical.Error
				if !errors.As(err, &e) || e.Code != tc.err.Code || e.Field != tc.err.Field {
					t.Fatalf("OptionsOf = %v, want %s naming %q", err, tc.err.Code, tc.err.Field)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("OptionsOf (-want +got):\n%s", d)
			}
		})
	}
}
