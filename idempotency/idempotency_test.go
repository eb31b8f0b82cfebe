package idempotency_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/idempotency"
	"github.com/unical/unical/internal/seal"
)

// keys is one key's record in memory, with the Store's claim rules.
type keys struct {
	mu    sync.Mutex
	claim *idempotency.Claim
	kept  *idempotency.Answer
}

func (k *keys) Begin(_ context.Context, c *idempotency.Claim) (*idempotency.Held, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.claim != nil && (k.kept != nil || k.claim.Fingerprint != c.Fingerprint || c.CreatedAt.Before(k.claim.LeaseExpiry)) {
		return &idempotency.Held{Fingerprint: k.claim.Fingerprint, Kept: k.kept}, nil
	}
	k.claim = c
	return nil, nil
}

func (k *keys) Complete(_ context.Context, c *idempotency.Claim, kept *idempotency.Answer) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.claim == nil || k.claim.ID != c.ID {
		return errors.New("claim taken over")
	}
	if kept == nil {
		k.claim = nil
		return nil
	}
	k.kept = kept
	return nil
}

func newRunner() *idempotency.Runner {
	return idempotency.New(idempotency.Config{MasterKey: seal.NewKey(), Now: time.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func keepAll(string) bool { return true }

func TestRun(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r, k := newRunner(), &keys{}
	calls := 0
	run := func(context.Context) idempotency.Answer {
		calls++
		return idempotency.Answer{Status: 201, Body: []byte(`{"id":"evt_1","secret":"s3cret"}`)}
	}
	first, replayed, err := r.Run(ctx, k, "app_1", "key-1", "POST /v1/events body", keepAll, run)
	if err != nil || replayed {
		t.Fatalf("first Run() = replayed %v, %v", replayed, err)
	}
	if string(k.kept.Body) == string(first.Body) {
		t.Error("the kept answer is stored in plaintext")
	}
	again, replayed, err := r.Run(ctx, k, "app_1", "key-1", "POST /v1/events body", keepAll, run)
	if err != nil || !replayed {
		t.Fatalf("retry Run() = replayed %v, %v; want the kept answer", replayed, err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("replayed answer (-first +replayed):\n%s", diff)
	}
	if _, _, err := r.Run(ctx, k, "app_1", "key-1", "POST /v1/events other body", keepAll, run); !errors.Is(err, idempotency.ErrKeyReused) {
		t.Errorf("Run() with another fingerprint = %v, want ErrKeyReused", err)
	}
	if _, _, err := r.Run(ctx, k, "app_2", "key-1", "POST /v1/events body", keepAll, run); !errors.Is(err, idempotency.ErrUnopened) {
		t.Errorf("Run() opening another application's answer = %v, want ErrUnopened", err)
	}
	if calls != 1 {
		t.Errorf("run was called %d times, want once", calls)
	}
}

func TestRun_NotKept(t *testing.T) {
	t.Parallel()
	r, k := newRunner(), &keys{}
	for i := range 2 {
		ans, replayed, err := r.Run(t.Context(), k, "app_1", "key-1", "fp", func(string) bool { return false },
			func(context.Context) idempotency.Answer { return idempotency.Answer{Status: 503, Code: "unavailable"} })
		if err != nil || replayed || ans.Status != 503 {
			t.Errorf("attempt %d: Run() = %+v, replayed %v, %v; want the answer run again", i, ans, replayed, err)
		}
	}
}

// TestRun_Running checks that a retry while the first attempt runs is
// told so, and that the first attempt is not stopped by its caller.
func TestRun_Running(t *testing.T) {
	t.Parallel()
	r, k := newRunner(), &keys{}
	ctx, cancel := context.WithCancel(t.Context())
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, _, err := r.Run(ctx, k, "app_1", "key-1", "fp", keepAll, func(ctx context.Context) idempotency.Answer {
			close(started)
			<-release
			return idempotency.Answer{Status: 200, Code: map[bool]string{true: "cancelled"}[ctx.Err() != nil]}
		})
		done <- err
	}()
	<-started
	cancel()
	if _, _, err := r.Run(t.Context(), k, "app_1", "key-1", "fp", keepAll, nil); !errors.Is(err, idempotency.ErrRunning) {
		t.Errorf("retry during the first attempt = %v, want ErrRunning", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ans, replayed, err := r.Run(t.Context(), k, "app_1", "key-1", "fp", keepAll, nil)
	if err != nil || !replayed || ans.Code != "" {
		t.Errorf("retry after = %+v, replayed %v, %v; want the first answer, run with a context its caller did not end", ans, replayed, err)
	}
}

// TestRun_LargeAnswer keeps an answer over MaxKeptBody as its status and
// code alone: the first caller gets the whole answer, a retry gets
// ErrNotKept with the status, and run is not called again. An answer at
// the bound is kept whole.
func TestRun_LargeAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		size     int
		wantKept bool
	}{
		{"at the bound", idempotency.MaxKeptBody, true},
		{"past the bound", idempotency.MaxKeptBody + 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, k := newRunner(), &keys{}
			calls := 0
			run := func(context.Context) idempotency.Answer {
				calls++
				return idempotency.Answer{Status: 200, Body: make([]byte, tc.size)}
			}
			first, _, err := r.Run(t.Context(), k, "app_1", "key-1", "fp", keepAll, run)
			if err != nil || len(first.Body) != tc.size {
				t.Fatalf("first Run() = %d bytes, %v; want the whole answer", len(first.Body), err)
			}
			again, replayed, err := r.Run(t.Context(), k, "app_1", "key-1", "fp", keepAll, run)
			switch {
			case tc.wantKept && (err != nil || !replayed || len(again.Body) != tc.size):
				t.Errorf("retry = %d bytes, replayed %v, %v; want the kept answer", len(again.Body), replayed, err)
			case !tc.wantKept && (!errors.Is(err, idempotency.ErrNotKept) || again.Status != 200 || len(again.Body) != 0):
				t.Errorf("retry = %+v, %v; want ErrNotKept with status 200 and no body", again.Status, err)
			}
			if !tc.wantKept && len(k.kept.Body) != 0 {
				t.Errorf("the store keeps %d bytes of an answer past the bound", len(k.kept.Body))
			}
			if calls != 1 {
				t.Errorf("run was called %d times, want once", calls)
			}
		})
	}
}
