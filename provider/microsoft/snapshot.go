package microsoft

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/unical/unical"
)

// Snapshot sync. Graph v1.0 documents calendarView/delta for the default
// calendar only, and some calendars (shared, delegated, group) may refuse
// it. For a calendar whose first delta request is refused, the provider
// keeps a snapshot of the calendar view instead: the cursor itself carries
// the window and every instance id with its change key, and the next sync
// reads the view again and reports what is new, what has another change
// key, and (as isCancelled) what is gone. Such cursors grow with the
// calendar; the Client stores large cursors itself.

// cursorSnapshot prefixes a snapshot cursor.
const cursorSnapshot = "s:"

// maxSnapshotPages bounds the calendar view pages one snapshot reads
// (1,000 instances each).
const maxSnapshotPages = 100

// snapshot is the content of a snapshot cursor.
type snapshot struct {
	// From and To are the window, in Unix seconds.
	From int64 `json:"f"`
	To   int64 `json:"t"`
	// Items maps instance ids to change keys.
	Items map[string]string `json:"i"`
}

// noDelta reports whether an answer to a first delta request means that
// Graph offers no delta for the calendar: the request was refused (400,
// 403), its route is unknown (400, 404) or not implemented (501). A
// calendar that does not exist at all fails again in the calendar view.
func noDelta(err error) bool {
	switch unical.ErrorCode(err) {
	case unical.CodeInvalid, unical.CodeNotFound, unical.CodeNotImplemented:
		return true
	}
	return false
}

// encodeSnapshot seals nothing: a snapshot holds ids and change keys the
// account can read anyway, and unical seals every cursor it hands out.
func encodeSnapshot(sn *snapshot) (string, error) {
	raw, err := json.Marshal(sn)
	if err != nil {
		return "", unical.WrapError(unical.CodeInternal, err, "Cannot encode the sync cursor.")
	}
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write(raw)
	_ = w.Close()
	return cursorSnapshot + base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}

// decodeSnapshot reads a snapshot cursor; one that cannot be read is
// CodeGone, so the caller syncs from scratch.
func decodeSnapshot(cursor string) (*snapshot, error) {
	gone := unical.Errorf(unical.CodeGone, "The sync token cannot be read; sync from scratch.")
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(cursor, cursorSnapshot))
	if err != nil {
		return nil, gone
	}
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), 64<<20))
	if err != nil {
		return nil, gone
	}
	var sn snapshot
	if err := json.Unmarshal(raw, &sn); err != nil || sn.To <= sn.From {
		return nil, gone
	}
	if sn.Items == nil {
		sn.Items = map[string]string{}
	}
	return &sn, nil
}

// readView reads every instance of the calendar view in [from, to), with
// unical's extended property.
func (c *client) readView(ctx context.Context, calendarID string, from, to time.Time) ([]event, error) {
	q := expandQuery()
	q.Set("startDateTime", graphTime(from))
	q.Set("endDateTime", graphTime(to))
	req := request{
		method: "GET", target: calendarPath(calendarID) + "/calendarView", query: q,
		header: map[string]string{"Prefer": "odata.maxpagesize=1000"},
	}
	var all []event
	for range maxSnapshotPages {
		var page collection[event]
		if err := c.do(ctx, req, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Value...)
		if page.NextLink == "" {
			return all, nil
		}
		req = request{method: "GET", target: page.NextLink, header: req.header}
	}
	return nil, unical.Errorf(unical.CodeUnavailable, "The calendar has too many events to sync without Microsoft Graph's delta query.")
}

// startSnapshot takes a first snapshot of the calendar view over the sync
// window and returns it as a cursor.
func (p *Provider) startSnapshot(ctx context.Context, c *client, calendarID string, q *unical.EventQuery) (string, error) {
	from, to := p.syncWindow(q)
	view, err := c.readView(ctx, calendarID, from, to)
	if err != nil {
		return "", err
	}
	sn := &snapshot{From: from.Unix(), To: to.Unix(), Items: make(map[string]string, len(view))}
	for i := range view {
		sn.Items[view[i].ID] = view[i].ChangeKey
	}
	return encodeSnapshot(sn)
}

// snapshotPage answers a sync from a snapshot cursor in one batch: the
// instances that are new or have another change key, and removals for the
// ids that left the view, with a new snapshot as the next cursor. With
// SeriesID only that series' instances are reported.
func (p *Provider) snapshotPage(ctx context.Context, c *client, calendarID string, q *unical.EventQuery, opts readOptions) (*unical.EventBatch, error) {
	old, err := decodeSnapshot(q.SyncCursor)
	if err != nil {
		return nil, err
	}
	view, err := c.readView(ctx, calendarID, time.Unix(old.From, 0), time.Unix(old.To, 0))
	if err != nil {
		return nil, err
	}
	next := &snapshot{From: old.From, To: old.To, Items: make(map[string]string, len(view))}
	batch := &unical.EventBatch{Expanded: true}
	inSeries := func(g *event) bool {
		return q.SeriesID == "" || g.SeriesMasterID == q.SeriesID || g.ID == q.SeriesID
	}
	for i := range view {
		g := &view[i]
		next.Items[g.ID] = g.ChangeKey
		if ck, ok := old.Items[g.ID]; (ok && ck == g.ChangeKey) || !inSeries(g) {
			continue
		}
		e, err := eventFromGraph(g, opts)
		if err != nil {
			return nil, err
		}
		batch.Events = append(batch.Events, e)
	}
	// A removed instance cannot be told apart by series any more, so with
	// SeriesID every removal is reported, as delta does.
	for _, id := range slices.Sorted(maps.Keys(old.Items)) {
		if _, ok := next.Items[id]; ok {
			continue
		}
		batch.Events = append(batch.Events, &unical.Event{ID: id, IsCancelled: true})
	}
	if batch.NextSyncCursor, err = encodeSnapshot(next); err != nil {
		return nil, err
	}
	return batch, nil
}
