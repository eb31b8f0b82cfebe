package webhook

import (
	"encoding/json"
	"slices"
	"time"
)

// Limits of a change list (see [Changes]).
const (
	MaxChangeBodies  = 100
	MaxChangeBytes   = 256 << 10
	MaxChangesListed = 1000
)

// Changed is one item a sync step listed as changed since its cursor.
type Changed struct {
	ID string
	// CreatedAt and UpdatedAt are the provider's RFC 3339 times; either
	// may be empty or unreadable.
	CreatedAt, UpdatedAt string
	// Deleted is set for an item the provider lists as removed.
	Deleted bool
	// Body is the item as a message shows it, encoded with encoding/json;
	// a deleted item is shown as {"id", "isCancelled": true} instead.
	Body any
}

// Change is one entry of a change list. Its fields are those of
// outbox.EventChange, which converts from it.
type Change struct {
	// ChangeType is created, updated or deleted.
	ChangeType string
	EventID    string
	// Event is the item's body; nil when left out (Truncated).
	Event     json.RawMessage
	Truncated bool
}

// Changes lists items, as one sync step listed them since a cursor taken
// at since, oldest change first: a deleted item is deleted, one created at
// or after since is created, any other updated. Bodies are kept while the
// list holds fewer than MaxChangeBodies of them and MaxChangeBytes; from
// the first that does not fit on, changes are announced without their
// body (Truncated), so that the receiver can sync from there. Past
// MaxChangesListed changes the rest are left out and truncated is true.
func Changes(items []Changed, since time.Time) (list []Change, truncated bool) {
	list = []Change{}
	// In the order the changes were made (UpdatedAt), whatever order the
	// provider lists them in; an item without a readable UpdatedAt keeps
	// its place after the one before it.
	keys := make([]time.Time, len(items))
	order := make([]int, len(items))
	var last time.Time
	for i, it := range items {
		if t, err := time.Parse(time.RFC3339Nano, it.UpdatedAt); err == nil {
			last = t
		}
		keys[i], order[i] = last, i
	}
	slices.SortStableFunc(order, func(a, b int) int { return keys[a].Compare(keys[b]) })
	bodies, size, full := 0, 0, false
	for n, i := range order {
		if n == MaxChangesListed {
			return list, true
		}
		it := items[i]
		ch := Change{ChangeType: "updated", EventID: it.ID}
		var body []byte
		var err error
		switch {
		case it.Deleted:
			ch.ChangeType = "deleted"
			body, err = json.Marshal(struct {
				ID          string `json:"id"`
				IsCancelled bool   `json:"isCancelled"`
			}{it.ID, true})
		default:
			if created, perr := time.Parse(time.RFC3339Nano, it.CreatedAt); perr == nil && !since.IsZero() && !created.Before(since.Truncate(precision(created))) {
				ch.ChangeType = "created"
			}
			body, err = json.Marshal(it.Body)
		}
		full = full || err != nil || bodies == MaxChangeBodies || size+len(body) > MaxChangeBytes
		if full {
			ch.Truncated = true
		} else {
			ch.Event, bodies, size = body, bodies+1, size+len(body)
		}
		list = append(list, ch)
	}
	return list, false
}

// precision is the precision a provider's timestamp t was written with:
// a whole second (CalDAV's CREATED) is compared with a cursor's time cut
// to the second, so that an item created in the cursor's second counts as
// created.
func precision(t time.Time) time.Duration {
	if t.Nanosecond() == 0 {
		return time.Second
	}
	return 1
}
