package davtest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// errExited reports that a server process ended before it answered.
var errExited = errors.New("server process exited before it answered")

// proc is one running server process.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait has returned
	err    error         // cmd.Wait's result, set before exited is closed
}

// findBinary returns the path of the server binary named name.
func findBinary(name string) (string, error) {
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNotInstalled, err)
	}
	return bin, nil
}

// spawn starts bin in dir with its output appended to log.
func spawn(log *os.File, dir, bin string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// An *os.File is handed to the child directly, so no copying goroutine
	// can outlive the process.
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop asks the process to exit with SIGTERM, kills it if it is still
// running after stopGrace, and returns once it has been reaped.
func (p *proc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.exited // SIGKILL cannot be ignored, so this wait is short
	}
}

// waitReady polls base with OPTIONS until the server answers with any HTTP
// response other than 502, the process exits, or startTimeout passes. The
// number of polls is bounded by startTimeout/pollInterval.
func waitReady(p *proc, client *http.Client, base string) error {
	deadline := time.Now().Add(startTimeout)
	var lastErr error
	for range int(startTimeout / pollInterval) {
		req, err := http.NewRequest(http.MethodOptions, base+"/", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadGateway {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		lastErr = err
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%w (%v)", errExited, p.err)
		case <-time.After(pollInterval):
		}
	}
	return fmt.Errorf("server did not answer within %v: %w", startTimeout, lastErr)
}

// probeClient returns an HTTP client for readiness probes: short timeouts,
// no redirects, no kept-alive connections to leak.
func probeClient(transport http.RoundTripper) *http.Client {
	if transport == nil {
		transport = &http.Transport{DisableKeepAlives: true}
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// freeLoopbackAddr returns a 127.0.0.1 address with a port that was free a
// moment ago. Another process may take the port before the server binds
// it; callers retry when that happens.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", err
	}
	return addr, nil
}
