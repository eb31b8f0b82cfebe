package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// delegationCommands is the "apps delegation" group: an application's
// delegation credential for Google Workspace (--key-file, the service
// account's JSON key) or Microsoft 365 (--tenant-id, --client-id,
// --client-secret-file), offline or with --server.
func delegationCommands() *command {
	leaf := func(op, synopsis, summary string) *command {
		return &command{path: "apps delegation " + op, synopsis: synopsis, summary: summary, notes: adminNotes,
			setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
				return m.delegationSetup(fs, op)
			}}
	}
	return &command{
		path: "apps delegation", synopsis: "COMMAND [flags]",
		summary: "Set, show and remove an application's organisation-wide delegation credential.",
		notes:   adminNotes,
		subs: []*command{
			leaf("set", "--id APP_ID --provider provider_a --key-file KEY.json --domain D... [--admin-email ADMIN] | --provider provider_b --tenant-id T --client-id ID --client-secret-file FILE --domain D...",
				"Store a delegation credential (sealed like client secrets); it starts pending until verified."),
			leaf("get", "--id APP_ID --provider provider_a|provider_b",
				"Show a delegation credential's domains and status, never its secret."),
			leaf("remove", "--id APP_ID --provider provider_a|provider_b",
				"Remove a delegation credential; the accounts connected through it expire (delegation_revoked)."),
		},
	}
}

// domainList is a repeatable --domain flag.
type domainList []string

func (d *domainList) String() string     { return strings.Join(*d, ",") }
func (d *domainList) Set(v string) error { *d = append(*d, v); return nil }
func (d *domainList) argName() string    { return "DOMAIN" }

// delegationSetup defines the flags of "apps delegation op".
func (m *Main) delegationSetup(fs *flag.FlagSet, op string) (func(context.Context) error, error) {
	var af adminFlags
	af.define(m, fs)
	var id, provider, keyFile, secretFile string
	var p admin.DelegationParams
	var domains domainList
	fs.StringVar(&id, "id", "", "application id")
	fs.StringVar(&provider, "provider", "", "provider_a (Google Workspace) or provider_b (Microsoft 365)")
	if op == "set" {
		fs.StringVar(&keyFile, "key-file", "", "provider_a: the service account's JSON key file")
		fs.StringVar(&p.TenantID, "tenant-id", "", "provider_b: directory (tenant) id")
		fs.StringVar(&p.ClientID, "client-id", "", "provider_b: application (client) id")
		fs.StringVar(&secretFile, "client-secret-file", "", "provider_b: file holding the client secret")
		fs.Var(&domains, "domain", "email domain the credential connects (repeatable)")
		fs.StringVar(&p.TokenURL, "token-url", "", "token endpoint override")
		fs.StringVar(&p.APIBaseURL, "api-base-url", "", "calendar API base URL override")
		fs.StringVar(&p.DirectoryURL, "directory-url", "", "room directory base URL override")
		fs.StringVar(&p.AdminEmail, "admin-email", "", "provider_a: a Workspace administrator; rooms are listed only with it")
	}
	return func(ctx context.Context) error {
		t, ok := unical.ParseProviderPath(provider)
		if id == "" || !ok || (t != unical.ProviderGoogle && t != unical.ProviderMicrosoft) {
			return usageError{msg: "apps delegation " + op + " needs --id and --provider provider_a or provider_b"}
		}
		if op == "set" {
			p.Domains = domains
			if keyFile != "" {
				b, err := os.ReadFile(keyFile)
				if err != nil {
					return err
				}
				p.ServiceAccountKey = json.RawMessage(b)
			}
			if secretFile != "" {
				b, err := os.ReadFile(secretFile)
				if err != nil {
					return err
				}
				p.ClientSecret = strings.TrimSpace(string(b))
			}
		}
		out, err := m.runDelegation(ctx, af, op, id, t, &p)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}, nil
}

// runDelegation runs op through the admin API (--server) or on the store.
func (m *Main) runDelegation(ctx context.Context, af adminFlags, op, id string, t unical.ProviderType, p *admin.DelegationParams) (any, error) {
	if af.server != "" {
		remote, err := m.remoteAdmin(af.server)
		if err != nil {
			return nil, err
		}
		path := "/applications/" + url.PathEscape(id) + "/delegations/" + t.PathName()
		var answer json.RawMessage
		switch op {
		case "set":
			err = remote.do(ctx, "PUT", path, p, &answer)
		case "get":
			err = remote.do(ctx, "GET", path, nil, &answer)
		default:
			err = remote.do(ctx, "DELETE", path, nil, &answer)
		}
		return answer, err
	}
	svc, store, err := m.openOffline(ctx, af.store)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	switch op {
	case "set":
		return svc.SetDelegation(ctx, id, t, p)
	case "get":
		return svc.GetDelegation(ctx, id, t)
	default:
		if err := svc.RemoveDelegation(ctx, id, t); err != nil {
			return nil, err
		}
		return unical.Success{Success: true}, nil
	}
}
