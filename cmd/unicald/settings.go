package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/unical/unical/internal/webhook"
	"github.com/unical/unical/metrics"
)

// retrySchedule is the --retry-schedule flag: the delays before each
// retry of a webhook message, as comma-separated Go durations. The
// library's schedule also holds the first attempt's delay (unused), which
// the flag leaves out.
type retrySchedule []time.Duration

// defaultRetrySchedule is webhook.DefaultSchedule without its first entry.
func defaultRetrySchedule() retrySchedule { return retrySchedule(webhook.DefaultSchedule[1:]) }

func (s *retrySchedule) argName() string { return "delays" }

func (s *retrySchedule) String() string {
	parts := make([]string, len(*s))
	for i, d := range *s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// maxRetries bounds the schedule, so that a message cannot be kept
// retrying for ever by a long list.
const maxRetries = 50

func (s *retrySchedule) Set(v string) error {
	var out retrySchedule
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		d, err := time.ParseDuration(part)
		if err != nil {
			return fmt.Errorf("%q is not a duration; give comma-separated Go durations such as 5s,5m,30m", part)
		}
		if d <= 0 {
			return fmt.Errorf("%q is not a positive duration; each retry must wait", part)
		}
		out = append(out, d)
	}
	if len(out) > maxRetries {
		return fmt.Errorf("%d retries is more than the %d allowed", len(out), maxRetries)
	}
	*s = out
	return nil
}

// config returns the schedule as Config.RetrySchedule wants it.
func (s retrySchedule) config() []time.Duration {
	return append([]time.Duration{0}, s...)
}

// jitterFlag is --retry-jitter: a fraction in [0, 1].
type jitterFlag float64

func (j *jitterFlag) argName() string { return "fraction" }

func (j *jitterFlag) String() string { return strconv.FormatFloat(float64(*j), 'g', -1, 64) }

func (j *jitterFlag) Set(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f >= 0 && f <= 1) {
		return errors.New("give a fraction from 0 (no jitter) to 1, such as 0.2")
	}
	*j = jitterFlag(f)
	return nil
}

// config returns the jitter as Config.RetryJitter wants it: there 0
// means the default and a negative value none.
func (j jitterFlag) config() float64 {
	if j == 0 {
		return -1
	}
	return float64(j)
}

// pollInterval is --poll-interval, --reconcile-interval and the grant
// check flags: a positive duration, or a negative one to turn change
// polling (or reconciling, or the grant checks) off.
type pollInterval time.Duration

func (p *pollInterval) argName() string { return "duration" }

func (p *pollInterval) String() string { return time.Duration(*p).String() }

func (p *pollInterval) Set(v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 30s or 1m", v)
	}
	if d == 0 {
		return errors.New("0 is not an interval; give a positive duration, or a negative one to turn it off")
	}
	*p = pollInterval(d)
	return nil
}

// envFlag defines a flag whose default comes from an environment variable
// when that is set. A bad value there is an error naming both, returned
// by the caller before parsing the command line.
func (m *Main) envFlag(fs *flag.FlagSet, v flag.Value, name, env, usage string) error {
	fs.Var(v, name, withEnv(usage, env))
	if raw := m.Getenv(env); raw != "" {
		if err := v.Set(raw); err != nil {
			return usageError{msg: fmt.Sprintf("%s (--%s): %v", env, name, err)}
		}
	}
	return nil
}

// serveMetrics serves GET /metrics alone on ln, for --metrics-addr: a
// listener that can stay inside the network while the API is public.
func serveMetrics(ln net.Listener, met *metrics.Metrics, logger *slog.Logger) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", met.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      30 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	logger.Info("serving metrics", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener", "err", err)
		}
	}()
	return srv
}
