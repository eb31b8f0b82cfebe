// Command benchhttp is the helper of scripts/bench-http.sh; it is not
// shipped. It has two subcommands:
//
//	benchhttp seed -data DIR [-store URL] -accounts N
//	    creates an application and N PROVIDER_A accounts in the bbolt store
//	    of a unicald data folder, or with -store in that PostgreSQL
//	    database (sealed with UNICAL_MASTER_KEY, as unicald --store does),
//	    through the library (sealed credentials, as a real connection
//	    stores them), then prints "<api key> <first account id>" and exits,
//	    releasing bbolt's lock.
//	benchhttp fetch -key KEY -out FILE URL
//	    GETs URL with the API key, fails unless the answer is 200, and
//	    writes the body to FILE and the answer's headers to FILE.headers as
//	    NAME=VALUE lines (without Date, which net/http writes itself).
//	benchhttp bare -addr ADDR -route PATH=FILE...
//	    serves the bytes of FILE at PATH with the headers of FILE.headers
//	    from a bare net/http server: the baseline the full stack is
//	    compared against. It prints its address once it listens, and stops
//	    on SIGINT/SIGTERM.
//	benchhttp load -key KEY -n N URL
//	    GETs URL N times, one after another on one kept-alive connection,
//	    and fails unless every answer is 200 (scripts/bench-instr.sh).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/internal/seal"
	"github.com/unical/unical/provider/memory"
	"github.com/unical/unical/store/bolt"
	"github.com/unical/unical/store/postgres"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchhttp seed|fetch|bare|load [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "seed":
		err = seed(os.Args[2:])
	case "fetch":
		err = fetch(os.Args[2:])
	case "bare":
		err = bare(os.Args[2:])
	case "load":
		err = load(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		os.Exit(1)
	}
}

// seed fills a data folder with one application and its accounts. It uses
// the master key file unicald uses, so the server can open what it seals.
func seed(args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	dataDir := fs.String("data", "", "unicald data folder")
	storeURL := fs.String("store", "", "postgres:// URL of a PostgreSQL store instead of bbolt in -data")
	n := fs.Int("accounts", 50, "accounts to create")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var store unical.Store
	var key seal.Key
	var err error
	switch {
	case *storeURL != "":
		if key, err = seal.ParseKey(os.Getenv("UNICAL_MASTER_KEY")); err != nil {
			return fmt.Errorf("-store needs UNICAL_MASTER_KEY: %w", err)
		}
		if store, err = postgres.Open(context.Background(), postgres.Config{URL: *storeURL}); err != nil {
			return err
		}
	case *dataDir == "":
		return errors.New("seed needs -data or -store")
	default:
		if err := os.MkdirAll(*dataDir, 0o700); err != nil {
			return err
		}
		if key, _, err = seal.LoadOrCreateKeyFile(filepath.Join(*dataDir, "master.key")); err != nil {
			return err
		}
		if store, err = bolt.Open(bolt.Config{Path: filepath.Join(*dataDir, "unicald.db")}); err != nil {
			return err
		}
	}
	defer store.Close()
	// The in-memory provider vouches for the refresh tokens, so accounts
	// are created the way POST /v1/endUserAccounts creates them.
	prov := memory.New(memory.Config{Type: unical.ProviderGoogle})
	client, err := unical.New(unical.Config{Store: store, Providers: []unical.Provider{prov}, MasterKey: key})
	if err != nil {
		return err
	}
	defer client.Close()
	ctx := context.Background()
	created, err := admin.Of(client).CreateApplication(ctx, &admin.ApplicationParams{Name: unical.Some("bench")})
	if err != nil {
		return err
	}
	app, err := client.App(ctx, created.ApplicationID)
	if err != nil {
		return err
	}
	var first string
	for i := range *n {
		email := fmt.Sprintf("user%03d@example.com", i)
		token := fmt.Sprintf("refresh-%03d", i)
		prov.AddUser(email, token, "")
		acct, err := app.CreateAccount(ctx, &unical.AccountCreateParams{
			Email: email, ProviderType: unical.ProviderGoogle,
			RefreshToken: unical.Some(token), ExternalID: unical.Some(fmt.Sprintf("ext-%03d", i)),
		})
		if err != nil {
			return fmt.Errorf("account %d: %w", i, err)
		}
		if first == "" {
			first = acct.ID
		}
	}
	fmt.Println(created.APIKey, first)
	return nil
}

// fetch captures one answer of the full server for the bare one to repeat.
func fetch(args []string) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	key := fs.String("key", "", "x-api-key")
	out := fs.String("out", "", "file for the body")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *out == "" {
		return errors.New("fetch needs -out FILE and one URL")
	}
	req, err := http.NewRequest("GET", fs.Arg(0), nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", *key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", fs.Arg(0), resp.Status, body)
	}
	if err := os.WriteFile(*out, body, 0o600); err != nil {
		return err
	}
	names := make([]string, 0, len(resp.Header))
	for name := range resp.Header {
		if name != "Date" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var headers strings.Builder
	for _, name := range names {
		for _, v := range resp.Header[name] {
			fmt.Fprintf(&headers, "%s=%s\n", name, v)
		}
	}
	return os.WriteFile(*out+".headers", []byte(headers.String()), 0o600)
}

// pairs is a repeatable NAME=VALUE flag.
type pairs [][2]string

func (p *pairs) String() string { return fmt.Sprint(*p) }
func (p *pairs) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("%q is not NAME=VALUE", v)
	}
	*p = append(*p, [2]string{name, value})
	return nil
}

// bare serves fixed bytes per path: no authentication, no store, no
// encoding, only what net/http itself costs.
func bare(args []string) error {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	var routes pairs
	fs.Var(&routes, "route", "PATH=FILE (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	type answer struct {
		header http.Header
		body   []byte
	}
	answers := map[string]answer{}
	for _, r := range routes {
		body, err := os.ReadFile(r[1])
		if err != nil {
			return err
		}
		lines, err := os.ReadFile(r[1] + ".headers")
		if err != nil {
			return err
		}
		header := http.Header{}
		for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
			if name, value, ok := strings.Cut(line, "="); ok {
				header.Add(name, value)
			}
		}
		answers[r[0]] = answer{header, body}
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for name, values := range a.header {
			w.Header()[name] = values
		}
		w.WriteHeader(http.StatusOK)
		w.Write(a.body)
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: handler}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// load sends a fixed number of requests, so that a count of the server's
// instructions divides by a known number.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	key := fs.String("key", "", "x-api-key")
	n := fs.Int("n", 1000, "requests")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("load needs one URL")
	}
	req, err := http.NewRequest("GET", fs.Arg(0), nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", *key)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	for range *n {
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", fs.Arg(0), resp.Status)
		}
	}
	return nil
}
