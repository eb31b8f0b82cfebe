package apitest

import (
	"bytes"
	"sync"
)

// LogBuffer collects what a server under test logs (an io.Writer for its
// slog handler or its output), safe for the server's goroutines and the
// test reading it.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Take returns what was written since the last Take and forgets it.
func (b *LogBuffer) Take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}
