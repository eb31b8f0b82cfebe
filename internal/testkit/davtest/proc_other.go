//go:build !linux

package davtest

import "syscall"

// sysProcAttr returns nil: outside Linux there is no parent-death signal,
// so a test binary that dies without its cleanups can leave a server
// running.
func sysProcAttr() *syscall.SysProcAttr { return nil }
