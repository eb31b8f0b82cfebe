package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/unical/unical/admin"
)

// keysCommands is the keys group.
func keysCommands() *command {
	leaf := func(op, synopsis, summary string) *command {
		return &command{path: "keys " + op, synopsis: synopsis, summary: summary, notes: adminNotes,
			setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
				return m.keysSetup(fs, op)
			}}
	}
	return &command{
		path: "keys", synopsis: "COMMAND --app APP_ID [flags]",
		summary: "Create, list and revoke an application's API keys.",
		notes:   adminNotes,
		subs: []*command{
			leaf("create", "--app APP_ID [--label LABEL]", "Create an API key and print it (shown only now) with its id."),
			leaf("list", "--app APP_ID [--json]", "List an application's API keys, never their secrets: a table, or JSON with --json."),
			leaf("revoke", "--app APP_ID --key KEY_ID", "Revoke an API key: requests with it are refused from now on."),
		},
	}
}

// keysSetup defines the flags of the keys command op.
func (m *Main) keysSetup(fs *flag.FlagSet, op string) (func(context.Context) error, error) {
	var af adminFlags
	af.define(m, fs)
	appID := fs.String("app", "", "application id")
	var keyID, label string
	var asJSON bool
	switch op {
	case "create":
		fs.StringVar(&label, "label", "", "a label naming the key, shown in lists")
	case "list":
		fs.BoolVar(&asJSON, "json", false, "print indented JSON instead of a table")
	case "revoke":
		fs.StringVar(&keyID, "key", "", "key id")
	}
	return func(ctx context.Context) error {
		if *appID == "" {
			return usageError{msg: "keys " + op + " needs --app"}
		}
		if op == "revoke" && keyID == "" {
			return usageError{msg: "keys revoke needs --key"}
		}
		if af.server != "" {
			remote, err := m.remoteAdmin(af.server)
			if err != nil {
				return err
			}
			return m.keysRemote(ctx, remote, op, *appID, keyID, label, asJSON)
		}
		client, store, err := m.openOffline(ctx, af.store)
		if err != nil {
			return err
		}
		defer store.Close()
		switch op {
		case "create":
			created, err := client.CreateAPIKey(ctx, *appID, label)
			if err != nil {
				return err
			}
			return json.NewEncoder(m.Stdout).Encode(map[string]string{"keyId": created.Key.ID, "apiKey": created.APIKey})
		case "list":
			keys, err := client.ListAPIKeyViews(ctx, *appID)
			if err != nil {
				return err
			}
			return writeKeys(m, keys, asJSON)
		default: // revoke
			return client.RevokeAPIKey(ctx, *appID, keyID)
		}
	}, nil
}

// writeKeys prints keys list, offline or from the admin API.
func writeKeys(m *Main, keys []*admin.APIKeyView, asJSON bool) error {
	return writeList(m.Stdout, asJSON, keys, []column[*admin.APIKeyView]{
		{"ID", func(k *admin.APIKeyView) string { return k.ID }},
		{"LABEL", func(k *admin.APIKeyView) string { return k.Label }},
		{"PREFIX", func(k *admin.APIKeyView) string { return k.Prefix }},
		{"CREATED", func(k *admin.APIKeyView) string { return tableTime(k.CreatedAt) }},
		{"LAST USED", func(k *admin.APIKeyView) string {
			if k.LastUsedAt == nil {
				return "never"
			}
			return tableTime(*k.LastUsedAt)
		}},
	})
}
