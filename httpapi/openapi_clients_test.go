package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The client generators TestOpenAPIGeneratedClients runs, pinned. The npm
// packages are installed once into a folder of the user's cache (outside
// the repository), the Go one is run by version through the Go module
// proxy and cached by the go command.
const (
	openapiTypescript = "openapi-typescript@7.13.0"
	typescript        = "typescript@5.9.3"
	oapiCodegen       = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	oapiRuntime       = "github.com/oapi-codegen/runtime v1.9.0"
)

// TestOpenAPIGeneratedClients generates a TypeScript client
// (openapi-typescript 7, which reads a schema default as "always present"
// and so made includeEvents required) and a Go client (oapi-codegen) from
// the document GET /v1/openapi.json serves, and compiles both (tsc
// --strict; go build) together with a file that uses the request types
// and the webhook message types of the webhooks section, so that a
// document generators misread, or one that loses a message type, fails.
// Where the tools cannot be installed it is skipped, or fails with CI=true.
func TestOpenAPIGeneratedClients(t *testing.T) {
	t.Parallel()
	ts := MustNewServer(t)
	r := ts.doKey(t, "", "GET", "/v1/openapi.json", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json = %d", r.Status)
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(doc, r.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("TypeScript", func(t *testing.T) {
		t.Parallel()
		bin := npmTools(t)
		out := filepath.Join(t.TempDir(), "ts")
		mustMkdir(t, out)
		run(t, out, filepath.Join(bin, "openapi-typescript"), doc, "-o", filepath.Join(out, "api.d.ts"))
		mustWrite(t, filepath.Join(out, "use.ts"), typescriptUse)
		run(t, out, filepath.Join(bin, "tsc"), "--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "bundler", "use.ts")
	})
	t.Run("Go", func(t *testing.T) {
		t.Parallel()
		goBin, err := exec.LookPath("go")
		if err != nil {
			unavailable(t, "the go command: %v", err)
		}
		mod := filepath.Join(t.TempDir(), "client")
		mustMkdir(t, filepath.Join(mod, "gen"))
		mustWrite(t, filepath.Join(mod, "go.mod"), "module example.com/client\n\ngo 1.26\n\nrequire "+oapiRuntime+"\n")
		mustWrite(t, filepath.Join(mod, "cfg.yaml"), "package: gen\ngenerate:\n  models: true\n  client: true\noutput-options:\n  skip-prune: true\noutput: gen/gen.go\n")
		mustWrite(t, filepath.Join(mod, "main.go"), goUse)
		gen := goTool(t, goBin)
		run(t, mod, gen, "-config", "cfg.yaml", doc)
		// Fetching the generated code's dependencies is an install step;
		// building it is the test.
		if out, err := goCommand(t, mod, goBin, "mod", "tidy").CombinedOutput(); err != nil {
			unavailable(t, "go mod tidy (the generated client's dependencies): %v\n%s", err, out)
		}
		if out, err := goCommand(t, mod, goBin, "build", "./...").CombinedOutput(); err != nil {
			t.Fatalf("go build of the generated Go client: %v\n%s", err, out)
		}
	})
}

// typescriptUse uses the generated types: a subscription request without
// includeEvents, and the webhook message bodies.
const typescriptUse = `import type { components, webhooks } from "./api";

type Body<W extends keyof webhooks> = NonNullable<webhooks[W]["post"]["requestBody"]>["content"]["application/json"];

export const create: components["schemas"]["SubscriptionCreate"] = { calendarId: "primary", webhookUrl: "https://receiver.example/hook" };
export const changed: Body<"calendar.event.changed"> = {
  eventType: "calendar.event.changed", timestamp: "2026-01-05T09:00:00.000Z",
  webhookSubscriptionId: "sub_1", endUserAccountId: "acc_1", calendarId: "primary",
  data: { events: [{ changeType: "deleted", eventId: "e1", event: { id: "e1", isCancelled: true } }, { changeType: "updated", eventId: "e2", truncated: true }] },
};
export const unknown: Body<"calendar.event.unknown">["eventType"] = "calendar.event.unknown";
export function expired(m: Body<"enduseraccount.updated">): boolean { return m.endUserAccount.status === "EXPIRED"; }
export type Others = [Body<"enduseraccount.created">, Body<"enduseraccount.deleted">, Body<"enduseraccount.credential.updated">];
`

// goUse uses the generated Go types of the webhook messages.
const goUse = `package main

import (
	"encoding/json"
	"fmt"

	"example.com/client/gen"
)

func main() {
	var changed gen.WebhookCalendarEventChangedJSONRequestBody
	var unknown gen.CalendarEventUnknownMessage
	var updated gen.WebhookEnduseraccountUpdatedJSONRequestBody
	var change gen.EventChange
	_ = json.Unmarshal([]byte("{}"), &changed)
	fmt.Println(changed.CalendarId, unknown.EventType, updated.EndUserAccount.Status, change.ChangeType)
	_ = gen.SubscriptionCreate{CalendarId: "primary", WebhookUrl: "https://receiver.example/hook"}
}
`

// npmTools returns the bin folder of the pinned npm packages, installing
// them into the user's cache first when they are not there. Concurrent
// installs each go to a folder of their own, renamed into place.
func npmTools(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		unavailable(t, "no cache folder: %v", err)
	}
	name := strings.NewReplacer("@", "-", "/", "-").Replace(openapiTypescript + "_" + typescript)
	dir := filepath.Join(cache, "unical-test", name)
	bin := filepath.Join(dir, "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "tsc")); err == nil {
		return bin
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		unavailable(t, "npm: %v", err)
	}
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	tmp := dir + ".tmp-" + hex.EncodeToString(suffix)
	mustMkdir(t, tmp)
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", "--no-save", openapiTypescript, typescript)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		unavailable(t, "npm install %s %s: %v\n%s", openapiTypescript, typescript, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(bin, "tsc")); statErr != nil {
			t.Fatalf("put the npm tools in place: %v", err)
		}
		// Another test process installed them first.
	}
	return bin
}

// goTool returns oapi-codegen, installing it first (go install, with
// GOBIN a folder of the user's cache) when it is not there.
func goTool(t *testing.T, goBin string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		unavailable(t, "no cache folder: %v", err)
	}
	_, version, _ := strings.Cut(oapiCodegen, "@")
	dir := filepath.Join(cache, "unical-test", "oapi-codegen-"+version)
	tool := filepath.Join(dir, "oapi-codegen")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	cmd := goCommand(t, t.TempDir(), goBin, "install", oapiCodegen)
	cmd.Env = append(cmd.Env, "GOBIN="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		unavailable(t, "go install %s: %v\n%s", oapiCodegen, err, out)
	}
	return tool
}

// goCommand is the go command in a throwaway module outside this one.
func goCommand(t *testing.T, dir, goBin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	return cmd
}

// run runs a generator or compiler and fails the test with its output
// when it fails.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// unavailable skips the test when a tool cannot be installed, or fails it
// when CI=true, where every tool must be there.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
