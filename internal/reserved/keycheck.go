package reserved

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/unical/unical/internal/seal"
)

// ErrWrongKey is CheckMasterKey's answer when the master key does not open
// the data already in the Store.
var ErrWrongKey = errors.New("reserved: the master key does not open the data in the Store")

// Blobs is the part of the Store the master key check reads and writes.
type Blobs interface {
	GetBlob(ctx context.Context, appID, key string, now time.Time) ([]byte, error)
	PutBlob(ctx context.Context, appID, key string, data []byte, expiresAt time.Time) error
}

// keyCheckText is the known value of the key check.
const keyCheckText = "unical master key check v1"

// CheckMasterKey opens the key check (KeyCheck) in blobs with key, or
// writes one when there is none, and returns ErrWrongKey when it does not
// open. notFound tells the Store's "no such blob" from its failures. A
// Store from before the check existed is judged by opensOld, which opens
// the first sealed secret it finds and fails when that does not open, so
// that a wrong key is caught there too before the check is written with
// it.
func CheckMasterKey(ctx context.Context, blobs Blobs, key seal.Key, now time.Time, notFound func(error) bool, opensOld func() error) error {
	s := seal.New(key.Derive("key-check"))
	ad := []byte(KeyCheck)
	sealed, err := blobs.GetBlob(ctx, App, KeyCheck, now)
	switch {
	case err == nil:
		if b, err := s.Open(sealed, ad); err != nil || string(b) != keyCheckText {
			return ErrWrongKey
		}
		return nil
	case !notFound(err):
		return fmt.Errorf("read the master key check: %w", err)
	}
	if err := opensOld(); err != nil {
		return err
	}
	if err := blobs.PutBlob(ctx, App, KeyCheck, s.Seal([]byte(keyCheckText), ad), Never); err != nil {
		return fmt.Errorf("write the master key check: %w", err)
	}
	return nil
}
