//go:build !unix

package httpapi_test

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
