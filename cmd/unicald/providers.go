package main

import (
	"log/slog"

	"github.com/unical/unical"
)

// defaultProviders returns the providers the server ships with. Each real
// provider lands in its own package under provider/ and is wired here.
func defaultProviders(logger *slog.Logger) []unical.Provider {
	return []unical.Provider{}
}
