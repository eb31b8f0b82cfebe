package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// quickstartSteps are the marked blocks of the README's Quickstart, in the
// order the README gives them. A step added to the README, or one taken
// out, fails TestQuickstart until the test says what it should show.
var quickstartSteps = []string{
	"install", "server", "env", "account", "subscribe", "receiver",
	"event", "recurring", "list", "list output", "deliveries",
}

// quickstartBlock finds each fenced block that follows a line
// `<!-- quickstart: NAME -->`.
var quickstartBlock = regexp.MustCompile("(?m)^<!-- quickstart: ([a-z ]+) -->\n```[a-z]*\n((?s:.*?))^```$")

// readQuickstart returns the README and its Quickstart blocks by name,
// failing when they are not exactly quickstartSteps in that order.
func readQuickstart(t *testing.T) (string, map[string]string) {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	var names []string
	for _, m := range quickstartBlock.FindAllStringSubmatch(string(readme), -1) {
		names = append(names, m[1])
		blocks[m[1]] = m[2]
	}
	if diff := cmp.Diff(quickstartSteps, names); diff != "" {
		t.Fatalf("README's quickstart blocks (-want +got):\n%s", diff)
	}
	return string(readme), blocks
}

// quickstartShell runs README blocks with bash the way a reader runs them
// in one terminal: variables set by one block are seen by the next (kept
// in a state file), and a failing command stops the block.
type quickstartShell struct {
	t     *testing.T
	ctx   context.Context
	dir   string // where each block's output is kept
	env   []string
	state string
	ports *strings.Replacer // the README's ports to the test's free ones
	addr  string            // UNICAL_ADDR=127.0.0.1:<the API's port>
}

// listenOn has the blocks use apiPort and hookPort in place of the
// README's 8080 and 8443; the server block names no address, so the API's
// port also goes in UNICAL_ADDR.
func (s *quickstartShell) listenOn(apiPort, hookPort string) {
	s.ports = strings.NewReplacer("127.0.0.1:8080", "127.0.0.1:"+apiPort, "127.0.0.1:8443", "127.0.0.1:"+hookPort)
	s.addr = "UNICAL_ADDR=127.0.0.1:" + apiPort
}

// start runs block in its own process group from workDir, its output in
// a file named after step, and kills the group when the test ends, so
// that what the block leaves running in the background is stopped too.
func (s *quickstartShell) start(step, workDir, block string) (*exec.Cmd, string) {
	s.t.Helper()
	script := "set -euo pipefail\nset -a\n[ -f \"$QUICKSTART_STATE\" ] && source \"$QUICKSTART_STATE\"\n" +
		s.ports.Replace(block) + "\nexport -p > \"$QUICKSTART_STATE\"\n"
	outPath := filepath.Join(s.dir, strings.ReplaceAll(step, " ", "-")+".out")
	out, err := os.Create(outPath)
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.CommandContext(s.ctx, "bash", "-c", script)
	cmd.Dir = workDir
	cmd.Env = append(s.env, "QUICKSTART_STATE="+s.state)
	if s.addr != "" {
		cmd.Env = append(cmd.Env, s.addr)
	}
	cmd.Stdout, cmd.Stderr = out, out // files, not pipes: Wait must not wait for background jobs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		out.Close()
	})
	return cmd, outPath
}

// run runs block to its end and returns its output; a non-zero exit (a
// curl answered with a status that is not 2xx, with --fail-with-body)
// fails the test.
func (s *quickstartShell) run(step, workDir, block string) string {
	s.t.Helper()
	cmd, outPath := s.start(step, workDir, block)
	err := cmd.Wait()
	out, _ := os.ReadFile(outPath)
	if err != nil {
		s.t.Fatalf("quickstart step %q: %v\n%s\n--- output:\n%s", step, err, block, out)
	}
	return string(out)
}

// variable returns the value a block left in the shell variable name.
func (s *quickstartShell) variable(name string) string {
	s.t.Helper()
	out, err := exec.Command("bash", "-c", "source \"$1\" && printf %s \"${!2}\"", "bash", s.state, name).Output()
	if err != nil {
		s.t.Fatalf("reading $%s: %v", name, err)
	}
	return string(out)
}

// TestQuickstart runs the README's Quickstart as written: it installs
// unicald with the README's command, starts the server the README's way in
// a scratch folder, sets KEY to the apiKey the server printed, and runs the
// reader's blocks in order with bash, each curl failing on a status that
// is not 2xx. It checks what the reader is told to expect: the account,
// the subscription's secret, the expanded listing as the README prints it,
// and a delivery that examples/receiver verified, with its 204 in the
// delivery log. Everything listens on 127.0.0.1, on free ports in place of
// the README's 8080 and 8443.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("installs unicald and runs the examples/receiver with go run")
	}
	readme, blocks := readQuickstart(t)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, scratch := filepath.Join(dir, "bin"), filepath.Join(dir, "tmp")
	for _, d := range []string{bin, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hookPort := freePort(t)
	sh := &quickstartShell{
		t: t, ctx: ctx, dir: dir, state: filepath.Join(dir, "state.sh"),
		ports: strings.NewReplacer(), // until listenOn, before the server starts
		env: append(os.Environ(),
			"GOBIN="+bin,
			"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"TMPDIR="+scratch, // mktemp -d
			"UNICAL_ALLOW_PRIVATE_TARGETS=", "UNICAL_DATA_DIR=", "UNICAL_STORE_URL=", "UNICAL_ADMIN_TOKEN=", "UNICAL_MASTER_KEY=",
		),
	}

	sh.run("install", repo, blocks["install"])
	if _, err := os.Stat(filepath.Join(bin, "unicald")); err != nil {
		t.Fatalf("the install step left no unicald in GOBIN: %v", err)
	}

	// The port freePort found may be taken by another process before the
	// server binds it (tests in other packages open connections all the
	// time); the server then says so and exits, and the block is run
	// again, in a new scratch folder, on another port.
	apiKey := regexp.MustCompile(`apiKey:\s+(uk_\S+)`)
	var key, apiPort string
	for try := 1; key == ""; try++ {
		apiPort = freePort(t)
		sh.listenOn(apiPort, hookPort)
		_, serverOut := sh.start("server", repo, blocks["server"])
		var out []byte
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			out, _ = os.ReadFile(serverOut)
			if m := apiKey.FindSubmatch(out); m != nil {
				key = string(m[1])
				break
			}
			if bytes.Contains(out, []byte("address already in use")) && try < 3 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("waited a minute for the server to print its apiKey; it printed:\n%s", out)
			}
		}
	}
	waitFor(t, "the server to be ready", time.Minute, func() bool {
		resp, err := http.Get("http://127.0.0.1:" + apiPort + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	if !strings.Contains(blocks["env"], "KEY=uk_...") {
		t.Fatalf("the env block does not set KEY=uk_...:\n%s", blocks["env"])
	}
	sh.run("env", repo, strings.Replace(blocks["env"], "uk_...", key, 1))

	account := strings.TrimSpace(sh.run("account", repo, blocks["account"]))
	if !regexp.MustCompile(`^acc_\w+$`).MatchString(account) || sh.variable("ACCOUNT") != account {
		t.Fatalf("account step printed %q, want an account id in $ACCOUNT", account)
	}

	sh.run("subscribe", repo, blocks["subscribe"])
	if secret := sh.variable("SECRET"); !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("$SECRET after the subscribe step is %q, want a whsec_ secret", secret)
	}

	_, receiverOut := sh.start("receiver", repo, blocks["receiver"])
	listening := []byte("receiving unical webhooks at 127.0.0.1:" + hookPort + "/unical")
	waitFor(t, "examples/receiver to listen, as the README has the reader wait", 3*time.Minute, func() bool {
		out, _ := os.ReadFile(receiverOut)
		return bytes.Contains(out, listening)
	})
	if !strings.Contains(readme, "receiving unical webhooks at 127.0.0.1:8443/unical") {
		t.Errorf("the README does not name the line the receiver logs when it listens")
	}

	for _, step := range []string{"event", "recurring"} {
		var created struct {
			ID, Title string
		}
		out := sh.run(step, repo, blocks[step])
		if err := json.Unmarshal([]byte(out), &created); err != nil || created.ID == "" {
			t.Fatalf("%s step answered %q, want the created event (%v)", step, out, err)
		}
	}

	listed := sh.run("list", repo, blocks["list"])
	if diff := cmp.Diff(blocks["list output"], listed); diff != "" {
		t.Errorf("the expanded listing differs from the README's (-README +got):\n%s", diff)
	}

	verified := "events changed in calendar primary of account " + account
	waitFor(t, "examples/receiver to log a verified delivery", 3*time.Minute, func() bool {
		out, _ := os.ReadFile(receiverOut)
		return bytes.Contains(out, []byte(verified))
	})
	if out, _ := os.ReadFile(receiverOut); bytes.Contains(out, []byte("refused a delivery")) {
		t.Errorf("examples/receiver refused a delivery:\n%s", out)
	}

	// The receiver logs before it answers; the engine records the answer
	// just after.
	type attempt struct {
		EventType  string `json:"eventType"`
		Attempt    int    `json:"attempt"`
		StatusCode int    `json:"statusCode"`
	}
	var log []attempt
	delivered := func() bool {
		log = nil
		for _, line := range strings.Split(strings.TrimSpace(sh.run("deliveries", repo, blocks["deliveries"])), "\n") {
			var a attempt
			if err := json.Unmarshal([]byte(line), &a); err != nil {
				t.Fatalf("deliveries step printed %q: %v", line, err)
			}
			log = append(log, a)
		}
		for _, a := range log {
			if a.EventType == "calendar.event.changed" && a.StatusCode == http.StatusNoContent {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(10 * time.Second)
	for !delivered() {
		if time.Now().After(deadline) {
			t.Fatalf("no calendar.event.changed delivery answered 204 in the delivery log: %+v", log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
