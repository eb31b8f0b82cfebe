package unical

import "time"

// DefaultSweepInterval is the default of Config.SweepInterval.
const DefaultSweepInterval = 5 * time.Minute

// sweepConfig is Config.SweepInterval with its default: how often a
// running engine sweeps the Store (0: never), which also tells a caller
// refused for want of Idempotency-Key space when to retry.
type sweepConfig struct {
	interval time.Duration
}

func newSweepConfig(cfg *Config) sweepConfig {
	switch {
	case cfg.SweepInterval == 0:
		return sweepConfig{interval: DefaultSweepInterval}
	case cfg.SweepInterval < 0:
		return sweepConfig{}
	}
	return sweepConfig{interval: cfg.SweepInterval}
}
