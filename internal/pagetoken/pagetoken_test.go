package pagetoken_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/pagetoken"
	"github.com/unical/unical/internal/seal"
)

// blobs is an in-memory Blobs.
type blobs map[string][]byte

var errNoBlob = errors.New("no blob")

func (b blobs) PutBlob(_ context.Context, appID, key string, data []byte, _ time.Time) error {
	b[appID+"/"+key] = data
	return nil
}

func (b blobs) GetBlob(_ context.Context, appID, key string, _ time.Time) ([]byte, error) {
	data, ok := b[appID+"/"+key]
	if !ok {
		return nil, errNoBlob
	}
	return data, nil
}

func TestTokens_SealOpen(t *testing.T) {
	t.Parallel()
	tokens := pagetoken.New(seal.New(seal.NewKey()), blobs{}, time.Now)
	p := pagetoken.Payload{Kind: "events-page", Scope: "acc/cal", After: "evt_9", Pos: &pagetoken.Position{Key: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ID: "evt_9"}}
	tok := tokens.Seal("app_1", p)
	got, ok := tokens.Open("app_1", "events-page", "acc/cal", tok)
	if !ok {
		t.Fatal("a sealed token does not open")
	}
	p.V = pagetoken.Version
	if diff := cmp.Diff(&p, got); diff != "" {
		t.Errorf("Open() mismatch (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, app, kind, scope string }{
		{"ErrOtherApp", "app_2", "events-page", "acc/cal"},
		{"ErrOtherKind", "app_1", "events", "acc/cal"},
		{"ErrOtherScope", "app_1", "events-page", "acc/other"},
	} {
		if _, ok := tokens.Open(tc.app, tc.kind, tc.scope, tok); ok {
			t.Errorf("%s: the token opened", tc.name)
		}
	}
}

func TestTokens_Cursor(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	store := blobs{}
	tokens := pagetoken.New(seal.New(seal.NewKey()), store, time.Now)
	for _, cursor := range []string{"short", strings.Repeat("snapshot ", 200)} {
		var p pagetoken.Payload
		if err := tokens.StoreCursor(ctx, "app_1", &p, cursor); err != nil {
			t.Fatal(err)
		}
		if inline := p.Blob == ""; inline != (len(cursor) <= 1024) {
			t.Errorf("cursor of %d bytes: inline %v", len(cursor), inline)
		}
		got, err := tokens.LoadCursor(ctx, "app_1", &p)
		if err != nil || got != cursor {
			t.Errorf("LoadCursor() = %.20q, %v; want the cursor stored", got, err)
		}
		if p.Blob != "" {
			for k, v := range store {
				if strings.Contains(string(v), "snapshot") {
					t.Errorf("blob %s holds the cursor in plaintext", k)
				}
			}
			delete(store, "app_1/"+p.Blob)
			if _, err := tokens.LoadCursor(ctx, "app_1", &p); !errors.Is(err, errNoBlob) {
				t.Errorf("LoadCursor() of a dropped cursor = %v, want the blobs' error", err)
			}
		}
	}
}
