package admin

import (
	"context"

	"github.com/unical/unical"
	"github.com/unical/unical/audit"
	"github.com/unical/unical/internal/ids"
)

// record appends a change to the audit log. It runs after the change was
// made, so a failed write is logged rather than returned: the change
// stands, and an error would tell the operator it did not.
func (s *Service) record(ctx context.Context, operation, appID, targetID string) {
	now := s.now().UTC()
	e := &audit.Entry{ID: ids.New("aud"), At: now, Actor: string(s.actor), Operation: operation, ApplicationID: appID, TargetID: targetID}
	if err := s.store.AppendAudit(context.WithoutCancel(ctx), e, now.Add(-s.retention)); err != nil {
		s.log.ErrorContext(ctx, "write audit log", "operation", operation, "app", appID, "err", err)
	}
}

// AuditListParams page through the audit log.
type AuditListParams struct {
	// ApplicationID keeps one application's entries; "" keeps all.
	ApplicationID string
	// PageToken continues a listing: the nextPageToken of the page before.
	PageToken string
	// Limit is the most entries per page; default 50, at most 250.
	Limit int
}

// AuditPage is one page of the audit log, newest first.
type AuditPage struct {
	Data []*audit.Entry `json:"data"`
	// NextPageToken continues the listing; "" on the last page.
	NextPageToken string `json:"nextPageToken,omitempty"`
}

// ListAudit returns the audit log of operator changes, newest first.
// Entries are kept for Config.AuditRetention. Returns CodeInvalid naming
// limit, CodeNotFound for an unknown application.
func (s *Service) ListAudit(ctx context.Context, params *AuditListParams) (*AuditPage, error) {
	if params == nil {
		params = &AuditListParams{}
	}
	limit := params.Limit
	switch {
	case limit == 0:
		limit = 50
	case limit < 0 || limit > 250:
		return nil, unical.FieldError("limit", "limit must be between 1 and 250.")
	}
	if params.ApplicationID != "" {
		if _, err := s.store.GetApplication(ctx, params.ApplicationID); err != nil {
			return nil, err
		}
	}
	// The page token is the last id shown: ids carry no secret, and a
	// made-up one only moves where the listing starts.
	entries, err := s.store.ListAudit(ctx, params.ApplicationID, params.PageToken, limit+1)
	if err != nil {
		return nil, err
	}
	page := &AuditPage{Data: entries}
	if len(entries) > limit {
		page.Data = entries[:limit]
		page.NextPageToken = entries[limit-1].ID
	}
	if page.Data == nil {
		page.Data = []*audit.Entry{}
	}
	return page, nil
}
