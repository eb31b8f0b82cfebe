// Package metrics exports unical's measurements in the Prometheus text
// format, with github.com/prometheus/client_golang. A [Metrics] is the
// [unical.Observer] of a Client (webhook deliveries, change polling, push
// notifications, and provider calls, as a [unical.ProviderWrapper] through
// package observe), the [httpapi.RequestObserver] of the HTTP API, and
// reads the store's counts (accounts, outbox) when scraped.
//
// Every label value comes from a fixed set (provider types, operation
// names, outcomes, route patterns, methods, statuses): never an id, an
// email or a secret, and the number of series stays bounded.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/unical/unical"
	"github.com/unical/unical/engine"
	"github.com/unical/unical/observe"
	"github.com/unical/unical/storestats"
)

// namespace prefixes every metric name.
const namespace = "unical"

// Metrics holds unical's metrics in their own registry.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec

	providerCalls    *prometheus.CounterVec
	providerDuration *prometheus.HistogramVec
	providerRetries  *prometheus.CounterVec

	deliveries        *prometheus.CounterVec
	deliveryDuration  prometheus.Histogram
	endpointsDisabled prometheus.Counter

	pollCycles   prometheus.Counter
	subsPolled   prometheus.Counter
	pollLag      prometheus.Gauge
	pollDuration prometheus.Histogram

	pushReceived *prometheus.CounterVec
	pushIgnored  *prometheus.CounterVec
}

var (
	_ unical.Observer        = (*Metrics)(nil)
	_ unical.ProviderWrapper = (*Metrics)(nil)
	_ observe.Observer       = (*Metrics)(nil)
	_ engine.Observer        = (*Metrics)(nil)
)

// slowBuckets are for calls that go over the network and may retry: up to
// a minute.
var slowBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60}

// New returns Metrics registered in a registry of their own, with the Go
// runtime and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.reg.MustRegister(c) }
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "http_requests_total",
		Help: "HTTP requests served, by route pattern, method and status code.",
	}, []string{"route", "method", "status"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "http_request_duration_seconds",
		Help:    "Time to serve an HTTP request, by route pattern and method.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "method"})
	f(m.httpRequests)
	f(m.httpDuration)

	m.providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "provider_calls_total",
		Help: "Calls to calendar providers, by provider, operation and outcome (ok, rate_limited, unavailable, expired, error).",
	}, []string{"provider", "operation", "outcome"})
	m.providerDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "provider_call_duration_seconds",
		Help:    "Duration of provider calls including their retries, by provider and operation.",
		Buckets: slowBuckets,
	}, []string{"provider", "operation"})
	m.providerRetries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "provider_retries_total",
		Help: "Requests to providers sent again after a throttled or failed one, by provider and operation.",
	}, []string{"provider", "operation"})
	f(m.providerCalls)
	f(m.providerDuration)
	f(m.providerRetries)

	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "webhook_deliveries_total",
		Help: "Webhook delivery attempts, by outcome (delivered, retrying, failed, skipped).",
	}, []string{"outcome"})
	m.deliveryDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "webhook_attempt_duration_seconds",
		Help:    "Duration of webhook delivery requests.",
		Buckets: slowBuckets,
	})
	m.endpointsDisabled = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "webhook_endpoints_disabled_total",
		Help: "Webhook endpoints the engine disabled (failing too long, or 410 Gone).",
	})
	f(m.deliveries)
	f(m.deliveryDuration)
	f(m.endpointsDisabled)

	m.pollCycles = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "poll_cycles_total",
		Help: "Change-polling passes over the subscriptions.",
	})
	m.subsPolled = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Name: "poll_subscriptions_total",
		Help: "Subscriptions checked for changes with a sync cursor: those without a provider watch on every pass, those with one every reconcile interval.",
	})
	m.pollLag = prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "poll_lag_seconds",
		Help: "How long after its due time the most overdue subscription of the last polling pass was taken up.",
	})
	m.pollDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "poll_cycle_duration_seconds",
		Help:    "Duration of one polling pass.",
		Buckets: slowBuckets,
	})
	f(m.pollCycles)
	f(m.subsPolled)
	f(m.pollLag)
	f(m.pollDuration)

	m.pushReceived = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "push_notifications_total",
		Help: "Push notifications received from providers, by provider.",
	}, []string{"provider"})
	m.pushIgnored = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "push_notifications_ignored_total",
		Help: "Push notifications that matched no subscription's watch, or could not be read, by provider.",
	}, []string{"provider"})
	f(m.pushReceived)
	f(m.pushIgnored)

	// Series that exist from the start read 0 rather than missing, so
	// that rate() and alerts work before the first event.
	for _, o := range engine.DeliveryOutcomes {
		m.deliveries.WithLabelValues(o)
	}
	for _, t := range unical.ProviderTypes {
		m.pushReceived.WithLabelValues(providerLabel(t))
		m.pushIgnored.WithLabelValues(providerLabel(t))
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// DeliveryCounts returns the webhook delivery attempts since the process
// started, by outcome (engine.DeliveryOutcomes): read from the counters
// unical_webhook_deliveries_total exports, so that the dashboard's
// overview and /metrics show the same numbers.
func (m *Metrics) DeliveryCounts() map[string]float64 {
	out := make(map[string]float64, len(engine.DeliveryOutcomes))
	for _, o := range engine.DeliveryOutcomes {
		var c dto.Metric
		if err := m.deliveries.WithLabelValues(o).Write(&c); err == nil {
			out[o] = c.GetCounter().GetValue()
		}
	}
	return out
}

// RequestCounts returns the HTTP requests served since the process
// started by status code ("200", "404"), summed over routes and methods:
// read from the counters unical_http_requests_total exports, so that the
// dashboard's overview and /metrics show the same numbers.
func (m *Metrics) RequestCounts() map[string]float64 {
	ch := make(chan prometheus.Metric)
	go func() {
		m.httpRequests.Collect(ch)
		close(ch)
	}()
	out := map[string]float64{}
	for metric := range ch {
		var c dto.Metric
		if err := metric.Write(&c); err != nil {
			continue
		}
		for _, l := range c.GetLabel() {
			if l.GetName() == "status" {
				out[l.GetValue()] += c.GetCounter().GetValue()
			}
		}
	}
	return out
}

// Registry is the registry the metrics are in, for a program that adds
// its own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// providerLabel is a provider type as a label value: "provider_a".
func providerLabel(t unical.ProviderType) string {
	if _, ok := unical.ParseProviderPath(t.PathName()); !ok {
		return "other"
	}
	return t.PathName()
}

// WrapProvider implements unical.ProviderWrapper: the Client's providers
// report their calls to m.
func (m *Metrics) WrapProvider(p unical.Provider) unical.Provider { return observe.Provider(p, m) }

// ProviderCall implements observe.Observer.
func (m *Metrics) ProviderCall(t unical.ProviderType, op, outcome string, took time.Duration) {
	p := providerLabel(t)
	m.providerCalls.WithLabelValues(p, op, outcome).Inc()
	m.providerDuration.WithLabelValues(p, op).Observe(took.Seconds())
}

// ProviderRetry implements observe.Observer.
func (m *Metrics) ProviderRetry(t unical.ProviderType, op string) {
	m.providerRetries.WithLabelValues(providerLabel(t), op).Inc()
}

// DeliveryAttempt implements unical.Observer.
func (m *Metrics) DeliveryAttempt(outcome string, took time.Duration) {
	m.deliveries.WithLabelValues(outcome).Inc()
	if outcome != engine.DeliverySkipped {
		m.deliveryDuration.Observe(took.Seconds())
	}
}

// EndpointDisabled implements unical.Observer.
func (m *Metrics) EndpointDisabled() { m.endpointsDisabled.Inc() }

// PollCycle implements unical.Observer.
func (m *Metrics) PollCycle(polled int, lag, took time.Duration) {
	m.pollCycles.Inc()
	m.subsPolled.Add(float64(polled))
	m.pollLag.Set(lag.Seconds())
	m.pollDuration.Observe(took.Seconds())
}

// PushNotification implements unical.Observer.
func (m *Metrics) PushNotification(t unical.ProviderType, ignored bool) {
	p := providerLabel(t)
	m.pushReceived.WithLabelValues(p).Inc()
	if ignored {
		m.pushIgnored.WithLabelValues(p).Inc()
	}
}

// ObserveRoute implements httpapi.RequestObserver: it resolves the route's
// duration histogram once, and each status's counter the first time the
// route answers with it, so a request costs two atomic adds and a scan of
// a few statuses, not a label lookup.
func (m *Metrics) ObserveRoute(route, method string) func(status int, took time.Duration) {
	r := &routeRecorder{m: m, route: route, method: method, duration: m.httpDuration.WithLabelValues(route, method)}
	r.statuses.Store(&[]statusCounter{})
	return r.observe
}

// routeRecorder records one route and method.
type routeRecorder struct {
	m             *Metrics
	route, method string
	duration      prometheus.Observer
	// statuses is copied on write: a route answers with a handful of
	// statuses, found by a scan without a lock.
	statuses atomic.Pointer[[]statusCounter]
	mu       sync.Mutex // serializes additions to statuses
}

type statusCounter struct {
	status  int
	counter prometheus.Counter
}

func (r *routeRecorder) observe(status int, took time.Duration) {
	r.duration.Observe(took.Seconds())
	r.counter(status).Inc()
}

func (r *routeRecorder) counter(status int) prometheus.Counter {
	for _, sc := range *r.statuses.Load() {
		if sc.status == status {
			return sc.counter
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.statuses.Load()
	for _, sc := range old {
		if sc.status == status {
			return sc.counter
		}
	}
	c := r.m.httpRequests.WithLabelValues(r.route, r.method, strconv.Itoa(status))
	next := append(old[:len(old):len(old)], statusCounter{status, c})
	r.statuses.Store(&next)
	return c
}

// StoreStatsTTL is how long the store's counts are reused between scrapes.
const StoreStatsTTL = 10 * time.Second

// WatchStore adds the store's counts to the metrics: accounts by provider
// type and status, pending outbox messages and the age of the oldest. They
// are read with stats when scraped, at most every StoreStatsTTL (a
// scrape in between gets the previous counts), and within a few seconds;
// a failed read leaves them out of that scrape. Pass [storestats.Of] of
// the Client's Store.
func (m *Metrics) WatchStore(stats func(ctx context.Context) (*storestats.Stats, error)) {
	m.reg.MustRegister(&storeCollector{stats: stats, now: time.Now})
}

var (
	accountsDesc = prometheus.NewDesc(namespace+"_accounts", "End user accounts, by provider type and status.",
		[]string{"provider", "status"}, nil)
	pendingDesc = prometheus.NewDesc(namespace+"_outbox_pending_messages",
		"Webhook messages waiting for delivery, including retries scheduled later.", nil, nil)
	oldestDesc = prometheus.NewDesc(namespace+"_outbox_oldest_pending_age_seconds",
		"Age of the oldest webhook message waiting for delivery; 0 when none waits.", nil, nil)
)

// storeCollector reads the store's counts on scrape, with a short cache.
type storeCollector struct {
	stats func(ctx context.Context) (*storestats.Stats, error)
	now   func() time.Time

	mu     sync.Mutex
	last   *storestats.Stats
	readAt time.Time
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- accountsDesc
	ch <- pendingDesc
	ch <- oldestDesc
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	now := c.now()
	if c.last == nil || now.Sub(c.readAt) >= StoreStatsTTL {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := c.stats(ctx)
		cancel()
		if err == nil {
			c.last, c.readAt = st, now
		}
	}
	st := c.last
	c.mu.Unlock()
	if st == nil {
		return
	}
	// Every known type and status is reported, 0 where there is none;
	// anything else in the store is not a label value.
	for _, t := range unical.ProviderTypes {
		for _, s := range []unical.AccountStatus{unical.AccountStatusActive, unical.AccountStatusExpired} {
			ch <- prometheus.MustNewConstMetric(accountsDesc, prometheus.GaugeValue,
				float64(st.Accounts[t][s]), providerLabel(t), strings.ToLower(string(s)))
		}
	}
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(st.PendingMessages))
	age := 0.0
	if !st.OldestPending.IsZero() {
		age = max(now.Sub(st.OldestPending).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, age)
}
