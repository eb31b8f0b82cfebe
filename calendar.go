package unical

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/unical/unical/internal/pagetoken"
)

// Calendar is one calendar of an end user account.
type Calendar struct {
	ID                            string   `json:"id"`
	Name                          string   `json:"name"`
	HexColor                      string   `json:"hexColor,omitempty"`
	ReadOnly                      bool     `json:"readOnly"`
	IsPrimary                     bool     `json:"isPrimary"`
	IsShared                      bool     `json:"isShared"`
	TimeZone                      string   `json:"timeZone"`
	InviteEmail                   string   `json:"inviteEmail"`
	AllowedOnlineMeetingProviders []string `json:"allowedOnlineMeetingProviders"`
	DefaultOnlineMeetingProvider  string   `json:"defaultOnlineMeetingProvider"`
	// IsDeleted marks a calendar deleted since the sync token of a
	// calendar listing; only ID is set then. Our extension.
	IsDeleted bool `json:"isDeleted,omitempty"`
}

// MarshalJSON writes allowedOnlineMeetingProviders as [] rather than null,
// and a deleted calendar as its id alone: {"id": "...", "isDeleted": true}.
func (c Calendar) MarshalJSON() ([]byte, error) {
	type plain Calendar
	if c.IsDeleted {
		return json.Marshal(struct {
			ID        string `json:"id"`
			IsDeleted bool   `json:"isDeleted"`
		}{c.ID, true})
	}
	if c.AllowedOnlineMeetingProviders == nil {
		c.AllowedOnlineMeetingProviders = []string{}
	}
	return json.Marshal(plain(c))
}

// CalendarParams holds the writable calendar properties of
// POST /v1/calendars/{endUserAccountId} (name required) and
// PUT /v1/calendars/{endUserAccountId}/{calendarId} (any subset; null clears
// hexColor and timeZone).
type CalendarParams struct {
	Name     Optional[string] `json:"name,omitzero"`
	HexColor Optional[string] `json:"hexColor,omitzero"`
	TimeZone Optional[string] `json:"timeZone,omitzero"`
}

// UnmarshalJSON decodes p strictly, as EventParams.UnmarshalJSON does; the
// read-only fields of a calendar (CalendarReadOnlyFields) are taken and
// ignored, so that a fetched calendar decodes.
func (p *CalendarParams) UnmarshalJSON(b []byte) error {
	type plain CalendarParams // without this method
	return unmarshalStrict(b, (*plain)(p), CalendarReadOnlyFields)
}

// Apply writes onto c the fields p sets, as a provider that keeps whole
// calendars (the in-memory and VIRTUAL providers) stores them: an absent
// field is left alone, a null hexColor or timeZone is cleared.
func (p *CalendarParams) Apply(c *Calendar) {
	if v, ok := p.Name.Get(); ok {
		c.Name = v
	}
	p.HexColor.Apply(&c.HexColor)
	p.TimeZone.Apply(&c.TimeZone)
}

// CalendarListParams filters GET /v1/calendars/{endUserAccountId}.
type CalendarListParams struct {
	// SyncToken returns only the calendars added or changed since the
	// listing that issued it.
	SyncToken string
	// PageToken continues a listing; the other parameters come from it.
	// SyncToken may be repeated with it unchanged; another one is
	// CodeInvalid naming pageToken.
	PageToken string
	// Limit is the page size: default DefaultPageSize, at most MaxPageSize.
	Limit int
}

// validate checks the parameters of a calendar write.
func (p *CalendarParams) validate(create bool) error {
	if create && !p.Name.IsSet() {
		return invalidf("name", "name is required.")
	}
	if p.Name.IsNull() {
		return invalidf("name", "name cannot be null.")
	}
	if name, ok := p.Name.Get(); ok && len(name) == 0 {
		return invalidf("name", "name cannot be empty.")
	}
	if c, ok := p.HexColor.Get(); ok && !validHexColor(c) {
		return invalidf("hexColor", "hexColor must look like #RRGGBB.")
	}
	if tz, ok := p.TimeZone.Get(); ok {
		if _, err := LoadLocation(tz); err != nil {
			return invalidf("timeZone", "timeZone %q is not an IANA time zone name.", tz)
		}
	}
	return nil
}

func validHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, r := range s[1:] {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}

// ListCalendars lists an account's calendars. With a sync token it returns
// the calendars added or changed since the listing that issued the token,
// then those deleted since, marked IsDeleted (ordered by id). The
// providers have no calendar feed: the Client compares the listing with
// the one the token remembers, on every provider alike.
//
// HTTP: GET /v1/calendars/{endUserAccountId}
//
// Returns CodeNotFound if the account is not the application's,
// CodeAccountExpired if it is EXPIRED, CodeInvalid for a foreign syncToken.
func (a *App) ListCalendars(ctx context.Context, accountID string, params *CalendarListParams) (*SyncPage[*Calendar], error) {
	if params == nil {
		params = &CalendarListParams{}
	}
	limit, err := pageLimit(params.Limit)
	if err != nil {
		return nil, err
	}
	syncToken, offset := params.SyncToken, 0
	if params.PageToken != "" {
		p, err := a.openToken("pageToken", "calendars-page", accountID, params.PageToken)
		if err != nil {
			return nil, err
		}
		// The page token carries the sync token its listing started from;
		// a client may send that one again with it, as most clients do.
		if params.SyncToken != "" && params.SyncToken != p.After {
			return nil, invalidf("pageToken", "pageToken belongs to a listing with another syncToken; send the syncToken that listing had, or only pageToken.")
		}
		syncToken, offset = p.After, p.Offset
	}
	var previous map[string]string
	if syncToken != "" {
		p, err := a.openToken("syncToken", "calendars", accountID, syncToken)
		if err != nil {
			return nil, err
		}
		raw, err := a.loadCursor(ctx, p)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(raw), &previous); err != nil {
			return nil, invalidf("syncToken", "syncToken is not a token this listing issued.")
		}
	}
	_, prov, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	cals, err := prov.ListCalendars(ctx, s)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	snapshot := make(map[string]string, len(cals))
	var changed []*Calendar
	for _, cal := range cals {
		h := pagetoken.QueryHash(cal)
		snapshot[cal.ID] = h
		if previous == nil || previous[cal.ID] != h {
			changed = append(changed, cal)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(previous)) {
		if _, ok := snapshot[id]; !ok {
			changed = append(changed, &Calendar{ID: id, IsDeleted: true})
		}
	}
	offset = min(offset, len(changed))
	end := min(offset+limit, len(changed))
	page := &SyncPage[*Calendar]{Data: append([]*Calendar{}, changed[offset:end]...)}
	if end < len(changed) {
		// Later pages list again and continue at the offset; the sync
		// token the listing started from travels in the page token.
		page.NextPageToken = a.c.pages.Seal(a.id, pagetoken.Payload{Kind: "calendars-page", Scope: accountID, After: syncToken, Offset: end})
		return page, nil
	}
	raw, _ := json.Marshal(snapshot)
	tok := pagetoken.Payload{Kind: "calendars", Scope: accountID}
	if err := a.c.pages.StoreCursor(ctx, a.id, &tok, string(raw)); err != nil {
		return nil, err
	}
	page.NextSyncToken = a.c.pages.Seal(a.id, tok)
	return page, nil
}

// GetCalendar returns one calendar of an account.
//
// HTTP: GET /v1/calendars/{endUserAccountId}/{calendarId}
//
// Returns CodeNotFound for an unknown account or calendar.
func (a *App) GetCalendar(ctx context.Context, accountID, calendarID string) (*Calendar, error) {
	_, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	cal, err := p.GetCalendar(ctx, s, calendarID)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return cal, nil
}

// CreateCalendar creates a calendar in an account.
//
// HTTP: POST /v1/calendars/{endUserAccountId}
//
// Returns CodeInvalid naming the field for a missing name, a bad hexColor or
// timeZone.
func (a *App) CreateCalendar(ctx context.Context, accountID string, params *CalendarParams, opts ...WriteOptions) (*Calendar, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "CreateCalendar", func(ctx context.Context) (*Calendar, error) { return a.createCalendar(ctx, accountID, params) }, accountID, params)
}

func (a *App) createCalendar(ctx context.Context, accountID string, params *CalendarParams) (*Calendar, error) {
	if err := params.validate(true); err != nil {
		return nil, err
	}
	rec, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if err := a.c.checkCalendar(rec.ProviderType, params); err != nil {
		return nil, err
	}
	cal, err := p.CreateCalendar(ctx, s, params)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return cal, nil
}

// UpdateCalendar changes the calendar properties params sets.
//
// HTTP: PUT /v1/calendars/{endUserAccountId}/{calendarId}
//
// Returns CodeInvalid naming the field for bad values, CodeNotFound for an
// unknown calendar.
func (a *App) UpdateCalendar(ctx context.Context, accountID, calendarID string, params *CalendarParams, opts ...WriteOptions) (*Calendar, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "UpdateCalendar", func(ctx context.Context) (*Calendar, error) {
		return a.updateCalendar(ctx, accountID, calendarID, params)
	}, accountID, calendarID, params)
}

func (a *App) updateCalendar(ctx context.Context, accountID, calendarID string, params *CalendarParams) (*Calendar, error) {
	if err := params.validate(false); err != nil {
		return nil, err
	}
	rec, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if err := a.c.checkCalendar(rec.ProviderType, params); err != nil {
		return nil, err
	}
	cal, err := p.UpdateCalendar(ctx, s, calendarID, params)
	if err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return cal, nil
}

// DeleteCalendar deletes a calendar and its events at the provider.
//
// HTTP: DELETE /v1/calendars/{endUserAccountId}/{calendarId}
//
// Returns CodeNotFound for an unknown calendar.
func (a *App) DeleteCalendar(ctx context.Context, accountID, calendarID string, opts ...WriteOptions) (*Success, error) {
	o, err := OptionsOf(opts)
	if err != nil {
		return nil, err
	}
	return idempotent(ctx, a, o, "DeleteCalendar", func(ctx context.Context) (*Success, error) { return a.deleteCalendar(ctx, accountID, calendarID) }, accountID, calendarID)
}

func (a *App) deleteCalendar(ctx context.Context, accountID, calendarID string) (*Success, error) {
	_, p, s, err := a.Session(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if err := p.DeleteCalendar(ctx, s, calendarID); err != nil {
		return nil, a.ProviderFailed(ctx, accountID, err)
	}
	return &Success{Success: true}, nil
}
