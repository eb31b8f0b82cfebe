//go:build unix

package httpapi_test

import (
	"syscall"
	"time"
)

// processCPU returns the user and system CPU time the test process has
// used, which, unlike wall time, other jobs on a busy machine barely move.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
