package davtest

import "syscall"

// sysProcAttr makes the kernel kill a server if the test binary dies
// without running its cleanups (a panic, a -timeout, a SIGKILL), so no
// server outlives its tests. Pdeathsig follows the thread that started the
// child; the Go runtime only retires threads locked with LockOSThread,
// which the test goroutines that call Start and Shared are not.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
