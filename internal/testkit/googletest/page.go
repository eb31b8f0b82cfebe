package googletest

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// syncCursor is what a sync token stands for: a point in one collection's
// change history. Tokens issued before the last [Server.ExpireSyncTokens]
// (gen below the server's) answer 410.
type syncCursor struct {
	collection string
	seq        uint64
	gen        uint64
}

// pageCursor is what a page token stands for. The sync guide says new
// entries appearing while paging are not missed because "the information
// needed for the server to generate a correct sync token is encoded in the
// page token": the cursor keeps the change number of the first page
// (snapshot), which becomes the nextSyncToken on the last page, and freezes
// the result ids so a change during paging cannot shift items out of it.
type pageCursor struct {
	fingerprint string
	ids         []string
	offset      int
	snapshot    uint64
	lastEmpty   bool // the page that handed out this cursor was empty
}

// lookupSync resolves a syncToken for collection. Unknown, foreign and
// expired tokens all answer 410 fullSyncRequired, the documented signal to
// wipe and resync ("Full sync required by server",
// https://developers.google.com/workspace/calendar/api/guides/sync).
func (s *Server) lookupSync(tok, collection string) (syncCursor, error) {
	cur, ok := s.st.syncTokens[tok]
	if !ok || cur.collection != collection || cur.gen < s.st.syncGen {
		return syncCursor{}, errFullSyncRequired()
	}
	return cur, nil
}

func (s *Server) issueSyncLocked(collection string, seq uint64) string {
	tok := "CP" + randomID(30, alnum) + "="
	s.st.syncTokens[tok] = syncCursor{collection: collection, seq: seq, gen: s.st.syncGen}
	return tok
}

// queryFingerprint identifies a list query for page-token checks: every
// parameter except the paging ones and Google's global parameters.
func queryFingerprint(path string, q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		switch k {
		case "pageToken", "maxResults", "fields", "prettyPrint", "alt", "key", "quotaUser", "access_token":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(path)
	for _, k := range keys {
		vs := append([]string(nil), q[k]...)
		sort.Strings(vs)
		b.WriteString("&" + k + "=" + strings.Join(vs, ","))
	}
	return b.String()
}

type pageResult struct {
	items              []any
	nextPage, nextSync string
}

// paginate serves one page of a list. compute lists the result ids (called
// on the first page only); render turns an id into an item, or drops it.
// A response carries nextPageToken while more pages exist and, for
// syncable collections, nextSyncToken only on the last page — never both.
func (s *Server) paginate(c *call, collection string, maxResults int, syncable bool, compute func() []string, render func(id string) (any, bool)) (pageResult, error) {
	fp := queryFingerprint(c.r.URL.Path, c.q)
	var cur *pageCursor
	if pt := c.q.Get("pageToken"); pt != "" {
		cur = s.st.pageTokens[pt]
		if cur == nil || cur.fingerprint != fp {
			// UNVERIFIED: Google's answer to a page token replayed with a
			// different query; the sync guide requires "the exact same list
			// query", so refusing it catches client bugs.
			return pageResult{}, errInvalidParam("pageToken", "Invalid page token value or query changed between pages.")
		}
	} else {
		cur = &pageCursor{fingerprint: fp, ids: compute(), snapshot: s.st.seq}
	}
	size := maxResults
	if s.st.shortPages && cur.offset+maxResults < len(cur.ids) {
		// "The number of events in the resulting page may be less than
		// this parameter value, or none at all, even if there are more
		// events matching the query. Incomplete pages can be detected by a
		// non-empty nextPageToken field" (events.list, maxResults). Half a
		// page, or an empty one every other time when half is nothing.
		size = maxResults / 2
		if size == 0 && cur.lastEmpty {
			size = 1
		}
	}
	end := min(cur.offset+size, len(cur.ids))
	var out pageResult
	out.items = []any{}
	for _, id := range cur.ids[cur.offset:end] {
		if it, ok := render(id); ok {
			out.items = append(out.items, it)
		}
	}
	if end < len(cur.ids) {
		tok := randomID(40, alnum)
		s.st.pageTokens[tok] = &pageCursor{fingerprint: fp, ids: cur.ids, offset: end, snapshot: cur.snapshot, lastEmpty: end == cur.offset}
		out.nextPage = tok
	} else if syncable {
		out.nextSync = s.issueSyncLocked(collection, cur.snapshot)
	}
	return out, nil
}

// intParam parses an integer query parameter. Values above hi are clamped,
// as the reference says "the page size can never be larger than" hi;
// values below lo are refused.
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo {
		return 0, errInvalidParam(name, "Invalid value '"+v+"' for "+name+".")
	}
	return min(n, hi), nil
}

func boolParam(q url.Values, name string) (bool, error) {
	switch v := q.Get(name); v {
	case "":
		return false, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, errInvalidParam(name, "Invalid boolean value '"+v+"' for "+name+".")
	}
}
