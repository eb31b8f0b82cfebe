package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/admin"
	"github.com/unical/unical/provider/kit"
)

// adminFlags are the flags of every apps and keys command: the store to
// open, or the running server to ask instead.
type adminFlags struct {
	store  storeFlags
	server string
}

func (f *adminFlags) define(m *Main, fs *flag.FlagSet) {
	f.store.define(m, fs)
	fs.StringVar(&f.server, "server", "", "call the admin API of the unicald at this base URL instead of opening the store, with the admin token from env UNICAL_ADMIN_TOKEN")
}

// adminNotes end the help of the apps and keys commands.
const adminNotes = `Without --server the command opens the store itself, so the server must be stopped
(bbolt allows one process at a time); with --server it calls /admin/v1 of a running server.`

// appsCommands is the apps group.
func appsCommands() *command {
	return &command{
		path: "apps", synopsis: "COMMAND [flags]",
		summary: "Create, change, list and delete applications (tenants of /v1) and their delegation credentials.",
		notes:   adminNotes,
		subs: []*command{
			{path: "apps create", synopsis: "--name NAME [--json] [--redirect-url URL]... [--webhook-url URL] [provider flags] [mail flags]",
				summary: "Create an application and print its id and first API key (shown only now).", notes: adminNotes,
				setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
					return m.appsSetup(fs, "create")
				}},
			{path: "apps update", synopsis: "--id APP_ID [--name NAME] [--redirect-url URL]... [--webhook-url URL] [provider flags] [mail flags]",
				summary: "Change an application's name, redirect URLs, webhook, provider or invitation mail settings.", notes: adminNotes,
				setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
					return m.appsSetup(fs, "update")
				}},
			{path: "apps list", synopsis: "[--json]",
				summary: "List the applications: a table, or JSON with --json.", notes: adminNotes,
				setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
					return m.appsSetup(fs, "list")
				}},
			{path: "apps delete", synopsis: "--id APP_ID [--cascade]",
				summary: "Delete an application (with --cascade, its accounts too).", notes: adminNotes,
				setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
					return m.appsSetup(fs, "delete")
				}},
			{path: "apps verify-mail", synopsis: "--id APP_ID --to ADDRESS",
				summary: "Send a test message through the application's SMTP server and print what the server answered.", notes: adminNotes,
				setup: func(m *Main, fs *flag.FlagSet) (func(context.Context) error, error) {
					return m.appsSetup(fs, "verify-mail")
				}},
			delegationCommands(),
		},
	}
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
func (s *stringList) argName() string    { return "URL" }

// settingFlag is the flag of one provider setting: it writes the value
// into the settings the command sends.
type settingFlag struct {
	setting admin.ProviderSetting
	into    *unical.ProviderSettings
}

func (f *settingFlag) String() string {
	if f.into == nil {
		return ""
	}
	return f.setting.Get(f.into)
}
func (f *settingFlag) Set(v string) error { f.setting.Set(f.into, v); return nil }
func (f *settingFlag) argName() string {
	return map[admin.SettingKind]string{admin.SettingURL: "URL", admin.SettingList: "'WORD ...'", admin.SettingText: "string"}[f.setting.Kind]
}

// providerHelp names the providers of the server (Main.Providers, else
// those it ships) for the help of --provider: those that take settings,
// then the others.
func (m *Main) providerHelp() string {
	providers := m.Providers
	if providers == nil {
		providers, _ = defaultProviders(slog.New(slog.DiscardHandler), false)
	}
	var with, without []string
	for _, p := range providers {
		info := kit.Describe(p)
		name := info.Type.PathName() + " (" + info.DisplayName + ")"
		if len(info.Settings) > 0 {
			with = append(with, name)
		} else {
			without = append(without, name)
		}
	}
	help := "the provider the next flags set: " + strings.Join(with, ", ")
	if len(without) > 0 {
		help += "; " + strings.Join(without, ", ") + " take no settings"
	}
	return help
}

// appsSetup defines the flags of the apps command op, each command only
// the ones it uses.
func (m *Main) appsSetup(fs *flag.FlagSet, op string) (func(context.Context) error, error) {
	var af adminFlags
	af.define(m, fs)
	cmd := &appsCommand{op: op}
	if op != "create" && op != "list" {
		fs.StringVar(&cmd.id, "id", "", "application id")
	}
	switch op {
	case "list":
		fs.BoolVar(&cmd.asJSON, "json", false, "print indented JSON instead of a table")
	case "delete":
		fs.BoolVar(&cmd.cascade, "cascade", false, "also delete the application's accounts")
	case "verify-mail":
		fs.StringVar(&cmd.verifyTo, "to", "", "address the test message is sent to")
	}
	var mail admin.MailParams
	var smtpPasswordFile, inboundSecretFile string
	var provider, secretFile string
	if op == "create" || op == "update" {
		if op == "create" {
			fs.BoolVar(&cmd.asJSON, "json", false, "print JSON")
		}
		fs.StringVar(&cmd.name, "name", "", "application name")
		fs.Var((*stringList)(&cmd.redirects), "redirect-url", "registered OAuth redirect URL (repeatable; replaces the list)")
		fs.StringVar(&cmd.webhookURL, "webhook-url", "", "URL for the application's enduseraccount.* messages")
		fs.StringVar(&provider, "provider", "", m.providerHelp())
		// One flag per setting of the table the admin API and the
		// dashboard's form are held to as well.
		for _, setting := range admin.ProviderSettings {
			if setting.Kind == admin.SettingSecret {
				fs.StringVar(&secretFile, setting.Flag, "", setting.Label)
				continue
			}
			fs.Var(&settingFlag{setting: setting, into: &cmd.settings}, setting.Flag, setting.Label)
		}
		fs.StringVar(&mail.SMTPURL, "smtp-url", "", "invitation mail: smtp://host[:port] (STARTTLS) or smtps://host[:port]")
		fs.StringVar(&mail.Username, "smtp-user", "", "invitation mail: SMTP user")
		fs.StringVar(&smtpPasswordFile, "smtp-password-file", "", "invitation mail: file holding the SMTP password")
		fs.StringVar(&mail.From, "mail-from", "", "invitation mail: the From address")
		fs.StringVar(&inboundSecretFile, "inbound-secret-file", "", "invitation mail: file holding the secret inbound mail is posted with")
	}
	return func(ctx context.Context) error {
		if (op == "update" || op == "delete" || op == "verify-mail") && cmd.id == "" {
			return usageError{msg: "apps " + op + " needs --id"}
		}
		if op == "verify-mail" && cmd.verifyTo == "" {
			return usageError{msg: "apps verify-mail needs --to"}
		}
		if mail != (admin.MailParams{}) || smtpPasswordFile != "" || inboundSecretFile != "" {
			if mail.SMTPURL == "" || mail.From == "" {
				return usageError{msg: "the mail flags need --smtp-url and --mail-from together"}
			}
			for _, f := range []struct {
				file string
				into *string
			}{{smtpPasswordFile, &mail.Password}, {inboundSecretFile, &mail.InboundSecret}} {
				if f.file == "" {
					continue
				}
				b, err := os.ReadFile(f.file)
				if err != nil {
					return err
				}
				*f.into = strings.TrimSpace(string(b))
			}
			cmd.mail = &mail
		}
		if provider != "" {
			t, ok := unical.ParseProviderPath(provider)
			if !ok {
				return usageError{msg: "--provider must be the path name of a provider type: " + m.providerHelp()}
			}
			cmd.provider = t
			if secretFile != "" {
				b, err := os.ReadFile(secretFile)
				if err != nil {
					return err
				}
				cmd.settings.ClientSecret = strings.TrimSpace(string(b))
			}
		}
		if af.server != "" {
			remote, err := m.remoteAdmin(af.server)
			if err != nil {
				return err
			}
			return m.appsRemote(ctx, remote, cmd)
		}
		return m.appsOffline(ctx, af.store, cmd)
	}, nil
}

// appsOffline runs an apps command on the store.
func (m *Main) appsOffline(ctx context.Context, sf storeFlags, cmd *appsCommand) error {
	client, store, err := m.openOffline(ctx, sf)
	if err != nil {
		return err
	}
	defer store.Close()
	params := &admin.ApplicationParams{}
	if cmd.name != "" {
		params.Name = unical.Some(cmd.name)
	}
	if len(cmd.redirects) > 0 {
		params.RedirectURLs = unical.Some(cmd.redirects)
	}
	if cmd.webhookURL != "" {
		params.WebhookURL = unical.Some(cmd.webhookURL)
	}
	if cmd.provider != "" {
		params.Providers = map[unical.ProviderType]unical.ProviderSettings{cmd.provider: cmd.settings}
	}
	switch cmd.op {
	case "create":
		created, err := client.CreateApplication(ctx, params)
		if err != nil {
			return err
		}
		if cmd.mail != nil {
			if _, err := client.SetApplicationMail(ctx, created.ApplicationID, cmd.mail); err != nil {
				return err
			}
		}
		return m.printCreated(created, cmd.asJSON)
	case "update":
		app, secret, err := client.UpdateApplication(ctx, cmd.id, params)
		if err != nil {
			return err
		}
		if cmd.mail != nil {
			if _, err := client.SetApplicationMail(ctx, cmd.id, cmd.mail); err != nil {
				return err
			}
			if app, err = client.GetApplication(ctx, cmd.id); err != nil {
				return err
			}
		}
		if secret != "" {
			fmt.Fprintf(m.Stderr, "webhookSecret (shown once): %s\n", secret)
		}
		return json.NewEncoder(m.Stdout).Encode(app)
	case "verify-mail":
		verified, err := client.VerifyApplicationMail(ctx, cmd.id, &admin.MailVerifyParams{To: cmd.verifyTo})
		if err != nil {
			return err
		}
		return writeVerified(m, verified)
	case "list":
		apps, err := client.ListApplicationViews(ctx)
		if err != nil {
			return err
		}
		return writeApps(m, apps, cmd.asJSON)
	default: // delete
		deleted, err := client.DeleteApplication(ctx, cmd.id, cmd.cascade)
		if err != nil {
			return err
		}
		return json.NewEncoder(m.Stdout).Encode(deleted)
	}
}

// writeVerified prints the SMTP server's answer to apps verify-mail; a
// refused message is an error, so the command fails.
func writeVerified(m *Main, v *admin.MailVerified) error {
	if !v.Accepted {
		return fmt.Errorf("the SMTP server refused the test message: %s", v.Reply)
	}
	_, err := fmt.Fprintf(m.Stdout, "accepted: %s\n", v.Reply)
	return err
}

// writeApps prints apps list, offline or from the admin API.
func writeApps(m *Main, apps []*admin.ApplicationView, asJSON bool) error {
	return writeList(m.Stdout, asJSON, apps, []column[*admin.ApplicationView]{
		{"ID", func(a *admin.ApplicationView) string { return a.ID }},
		{"NAME", func(a *admin.ApplicationView) string { return a.Name }},
		{"PROVIDERS", func(a *admin.ApplicationView) string {
			var set []string
			for _, p := range a.Providers {
				if p.Configured {
					set = append(set, string(p.Provider))
				}
			}
			return strings.Join(set, ",")
		}},
		{"WEBHOOK", func(a *admin.ApplicationView) string { return a.Webhook.URL }},
		{"CREATED", func(a *admin.ApplicationView) string { return tableTime(a.CreatedAt) }},
	})
}

// tableTime is how tables show a time: UTC to the second.
func tableTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// printCreated prints a new application with its key, shown only now.
func (m *Main) printCreated(created *admin.CreatedApplication, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(m.Stdout).Encode(created)
	}
	fmt.Fprintf(m.Stdout, "applicationId: %s\napiKey:        %s\n", created.ApplicationID, created.APIKey)
	if created.WebhookSecret != "" {
		fmt.Fprintf(m.Stdout, "webhookSecret: %s\n", created.WebhookSecret)
	}
	return nil
}
