package admin_test

import (
	"errors"

	"github.com/unical/unical"
)

// asError is errors.As for *unical.Error.
func asError(err error, target **unical.Error) bool { return errors.As(err, target) }
