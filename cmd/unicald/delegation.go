package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"strings"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
)

// appsDelegation runs "apps delegation set|get|remove": an application's
// delegation credential for Google Workspace (--key-file, the service
// account's JSON key) or Microsoft 365 (--tenant-id, --client-id,
// --client-secret-file), offline or with --server.
func (m *Main) appsDelegation(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"apps delegation needs set, get or remove"}
	}
	op := args[0]
	fs := m.flags("apps delegation " + op)
	var sf storeFlags
	sf.define(m, fs)
	server := fs.String("server", "", "call the admin API of the unicald at this URL (token from UNICAL_ADMIN_TOKEN) instead of opening the store")
	id := fs.String("id", "", "application id")
	provider := fs.String("provider", "", "provider_a (Google Workspace) or provider_b (Microsoft 365)")
	keyFile := fs.String("key-file", "", "provider_a: the service account's JSON key file")
	var p admin.DelegationParams
	fs.StringVar(&p.TenantID, "tenant-id", "", "provider_b: directory (tenant) id")
	fs.StringVar(&p.ClientID, "client-id", "", "provider_b: application (client) id")
	secretFile := fs.String("client-secret-file", "", "provider_b: file holding the client secret")
	var domains stringList
	fs.Var(&domains, "domain", "email domain the credential connects (repeatable)")
	fs.StringVar(&p.TokenURL, "token-url", "", "token endpoint override")
	fs.StringVar(&p.APIBaseURL, "api-base-url", "", "calendar API base URL override")
	fs.StringVar(&p.DirectoryURL, "directory-url", "", "room directory base URL override")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if op != "set" && op != "get" && op != "remove" {
		return usageError{"unknown apps delegation command " + op}
	}
	t, ok := unical.ParseProviderPath(*provider)
	if *id == "" || !ok {
		return usageError{"apps delegation " + op + " needs --id and --provider provider_a or provider_b"}
	}
	if op == "set" {
		p.Domains = domains
		if *keyFile != "" {
			b, err := os.ReadFile(*keyFile)
			if err != nil {
				return err
			}
			p.ServiceAccountKey = json.RawMessage(b)
		}
		if *secretFile != "" {
			b, err := os.ReadFile(*secretFile)
			if err != nil {
				return err
			}
			p.ClientSecret = strings.TrimSpace(string(b))
		}
	}
	var out any
	if *server != "" {
		remote, err := m.remoteAdmin(*server)
		if err != nil {
			return err
		}
		path := "/applications/" + url.PathEscape(*id) + "/delegations/" + t.PathName()
		var answer json.RawMessage
		switch op {
		case "set":
			err = remote.do(ctx, "PUT", path, &p, &answer)
		case "get":
			err = remote.do(ctx, "GET", path, nil, &answer)
		default:
			err = remote.do(ctx, "DELETE", path, nil, &answer)
		}
		if err != nil {
			return err
		}
		out = answer
	} else {
		svc, store, err := m.openOffline(ctx, sf)
		if err != nil {
			return err
		}
		defer store.Close()
		switch op {
		case "set":
			out, err = svc.SetDelegation(ctx, *id, t, &p)
		case "get":
			out, err = svc.GetDelegation(ctx, *id, t)
		default:
			err = svc.RemoveDelegation(ctx, *id, t)
			out = unical.Success{Success: true}
		}
		if err != nil {
			return err
		}
	}
	return json.NewEncoder(m.Stdout).Encode(out)
}
