package admin

import (
	"context"

	"github.com/unical/unical/requestlog"
)

// RequestList is an application's recent /v1 requests, newest first, as
// this process answered them (package requestlog: each replica keeps its
// own, in memory).
type RequestList struct {
	Data []requestlog.Entry `json:"data"`
	// Kept is false when this server keeps no request log.
	Kept bool `json:"kept"`
	// PerApplication and RetentionSeconds bound the log: at most that many
	// requests per application, none older.
	PerApplication   int   `json:"perApplication"`
	RetentionSeconds int64 `json:"retentionSeconds"`
}

// ListRequests returns an application's recent /v1 requests, newest
// first; with failedOnly only those answered with a 4xx or 5xx status.
// Returns CodeNotFound for an unknown application.
func (s *Service) ListRequests(ctx context.Context, appID string, failedOnly bool) (*RequestList, error) {
	if _, err := s.app(ctx, appID); err != nil {
		return nil, err
	}
	out := &RequestList{Data: []requestlog.Entry{}, Kept: s.requests != nil}
	if s.requests == nil {
		return out, nil
	}
	out.PerApplication, out.RetentionSeconds = s.requests.PerApplication(), int64(s.requests.Retention().Seconds())
	for _, e := range s.requests.List(appID) {
		if !failedOnly || e.Status >= 400 {
			out.Data = append(out.Data, e)
		}
	}
	return out, nil
}
