package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/store/bolt"
)

// The admin commands (apps, keys) work two ways: offline on the data
// folder while the server is stopped, or with --server through the admin
// API of a running server, since bbolt lets only one process open the
// file.

// offlineOpenTimeout is how long an offline admin command waits for the
// data folder's lock: a running server holds it for as long as it runs,
// so waiting longer only delays the message that says so.
const offlineOpenTimeout = 300 * time.Millisecond

// openOffline opens the data folder for an admin command. When a running
// server holds it, the error says so in one line and names --server.
// UNICAL_ALLOW_PRIVATE_TARGETS=1 lets the command save URLs on private
// addresses, as --allow-private-targets lets the server use them.
func (m *Main) openOffline(ctx context.Context, sf storeFlags) (*admin.Service, unical.Store, error) {
	// The URLs an offline command saves are held to the server's address
	// policy, which it reads as the server does from the environment.
	eng := engineSettings{allowPrivate: m.env("UNICAL_ALLOW_PRIVATE_TARGETS", "") == "1"}
	client, store, err := m.open(ctx, sf, "", eng, slog.New(slog.NewTextHandler(io.Discard, nil)), bolt.Config{Timeout: offlineOpenTimeout})
	if sf.storeURL == "" && unical.ErrorCode(err) == unical.CodeUnavailable {
		return nil, nil, fmt.Errorf("the data folder %s is in use by a running unicald; run the command against it with --server URL (and UNICAL_ADMIN_TOKEN)", sf.dataDir)
	}
	if err != nil {
		return nil, nil, err
	}
	svc, err := admin.New(admin.Config{Store: store, Client: client})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return svc.As(admin.ActorCLI), store, nil
}

// adminClient calls the admin API of a running server.
type adminClient struct {
	base  string // the server's URL without a trailing slash
	token string
	http  *http.Client
}

// remoteAdmin returns the admin API client of --server, with the token
// from UNICAL_ADMIN_TOKEN.
func (m *Main) remoteAdmin(server string) (*adminClient, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageError{msg: "--server must be the server's base URL, such as http://127.0.0.1:8080"}
	}
	token := m.Getenv("UNICAL_ADMIN_TOKEN")
	if token == "" {
		return nil, usageError{msg: "--server needs the admin token in UNICAL_ADMIN_TOKEN"}
	}
	return &adminClient{base: strings.TrimRight(server, "/"), token: token, http: &http.Client{Timeout: time.Minute}}, nil
}

// remoteError is an error answer of the admin API.
type remoteError struct {
	status  int
	code    string
	message string
	field   string
}

func (e *remoteError) Error() string {
	s := fmt.Sprintf("the server answered %d %s: %s", e.status, e.code, e.message)
	if e.field != "" {
		s += " (field " + e.field + ")"
	}
	return s
}

// do sends one admin request; out, when not nil, receives the answer.
func (a *adminClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+"/admin/v1"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("the server at %s: %w", a.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
				Field   string `json:"field"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error.Code == "" {
			return &remoteError{status: resp.StatusCode, code: "unknown", message: "not an answer of the unicald admin API (is --server the right URL?)"}
		}
		return &remoteError{status: resp.StatusCode, code: e.Error.Code, message: e.Error.Message, field: e.Error.Field}
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// appsCommand is one parsed apps command.
type appsCommand struct {
	op, id, name string
	asJSON       bool
	cascade      bool
	redirects    []string
	webhookURL   string
	provider     unical.ProviderType
	settings     unical.ProviderSettings
	// mail is the invitation mail settings to set; nil leaves them.
	mail *admin.MailParams
	// verifyTo is the address apps verify-mail sends its test to.
	verifyTo string
}

// appsRemote runs an apps command through the admin API. update makes one
// call per setting it changes, in the order name, redirect URLs, webhook,
// provider; a refused call stops it there, with the earlier ones made.
func (m *Main) appsRemote(ctx context.Context, remote *adminClient, cmd *appsCommand) error {
	switch cmd.op {
	case "list":
		var list struct {
			Data []*admin.ApplicationView `json:"data"`
		}
		if err := remote.do(ctx, "GET", "/applications", nil, &list); err != nil {
			return err
		}
		return writeApps(m, list.Data, cmd.asJSON)
	case "verify-mail":
		var verified admin.MailVerified
		if err := remote.do(ctx, "POST", "/applications/"+url.PathEscape(cmd.id)+"/mail/verify", &admin.MailVerifyParams{To: cmd.verifyTo}, &verified); err != nil {
			return err
		}
		return writeVerified(m, &verified)
	case "delete":
		q := ""
		if cmd.cascade {
			q = "?cascade=true"
		}
		var deleted json.RawMessage
		if err := remote.do(ctx, "DELETE", "/applications/"+url.PathEscape(cmd.id)+q, nil, &deleted); err != nil {
			return err
		}
		_, err := fmt.Fprintf(m.Stdout, "%s\n", deleted)
		return err
	case "create":
		if strings.TrimSpace(cmd.name) == "" {
			return usageError{msg: "apps create needs --name"}
		}
		var created struct {
			Application struct {
				ID string `json:"applicationId"`
			} `json:"application"`
			APIKey string `json:"apiKey"`
		}
		if err := remote.do(ctx, "POST", "/applications", map[string]string{"name": cmd.name}, &created); err != nil {
			return err
		}
		cmd.id, cmd.name = created.Application.ID, ""
		secret, err := m.updateRemote(ctx, remote, cmd)
		out := &admin.CreatedApplication{ApplicationID: created.Application.ID, APIKey: created.APIKey, WebhookSecret: secret}
		if perr := m.printCreated(out, cmd.asJSON); perr != nil {
			return perr
		}
		return err
	default: // update
		secret, err := m.updateRemote(ctx, remote, cmd)
		if err != nil {
			return err
		}
		if secret != "" {
			fmt.Fprintf(m.Stderr, "webhookSecret (shown once): %s\n", secret)
		}
		var app json.RawMessage
		if err := remote.do(ctx, "GET", "/applications/"+url.PathEscape(cmd.id), nil, &app); err != nil {
			return err
		}
		_, err = fmt.Fprintf(m.Stdout, "%s\n", app)
		return err
	}
}

// updateRemote applies the settings of an apps command to application
// cmd.id and returns a new webhook secret, if one was made.
func (m *Main) updateRemote(ctx context.Context, remote *adminClient, cmd *appsCommand) (webhookSecret string, err error) {
	app := "/applications/" + url.PathEscape(cmd.id)
	if cmd.name != "" {
		if err := remote.do(ctx, "PUT", app, map[string]string{"name": cmd.name}, nil); err != nil {
			return "", err
		}
	}
	if len(cmd.redirects) > 0 {
		// --redirect-url replaces the list, as offline.
		var current struct {
			Data []string `json:"data"`
		}
		if err := remote.do(ctx, "GET", app+"/redirectUrls", nil, &current); err != nil {
			return "", err
		}
		for _, u := range cmd.redirects {
			if !slices.Contains(current.Data, u) {
				if err := remote.do(ctx, "POST", app+"/redirectUrls", map[string]string{"url": u}, nil); err != nil {
					return "", err
				}
			}
		}
		for _, u := range current.Data {
			if !slices.Contains(cmd.redirects, u) {
				if err := remote.do(ctx, "DELETE", app+"/redirectUrls?url="+url.QueryEscape(u), nil, nil); err != nil {
					return "", err
				}
			}
		}
	}
	if cmd.webhookURL != "" {
		var set admin.WebhookSet
		if err := remote.do(ctx, "PUT", app+"/webhook", map[string]string{"url": cmd.webhookURL}, &set); err != nil {
			return "", err
		}
		webhookSecret = set.Secret
	}
	if cmd.provider != "" {
		params := admin.ParamsOf(cmd.settings)
		if err := remote.do(ctx, "PUT", app+"/providers/"+cmd.provider.PathName(), params, nil); err != nil {
			return webhookSecret, err
		}
	}
	if cmd.mail != nil {
		if err := remote.do(ctx, "PUT", app+"/mail", cmd.mail, nil); err != nil {
			return webhookSecret, err
		}
	}
	return webhookSecret, nil
}

// keysRemote runs a keys command through the admin API, printing what the
// offline command prints.
func (m *Main) keysRemote(ctx context.Context, remote *adminClient, op, appID, keyID, label string, asJSON bool) error {
	keys := "/applications/" + url.PathEscape(appID) + "/keys"
	switch op {
	case "create":
		var made struct {
			Key    admin.APIKeyView `json:"key"`
			APIKey string           `json:"apiKey"`
		}
		if err := remote.do(ctx, "POST", keys, map[string]string{"label": label}, &made); err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(map[string]string{"keyId": made.Key.ID, "apiKey": made.APIKey})
	case "list":
		var list struct {
			Data []*admin.APIKeyView `json:"data"`
		}
		if err := remote.do(ctx, "GET", keys, nil, &list); err != nil {
			return err
		}
		return writeKeys(m, list.Data, asJSON)
	default: // revoke
		return remote.do(ctx, "DELETE", keys+"/"+url.PathEscape(keyID), nil, nil)
	}
}
