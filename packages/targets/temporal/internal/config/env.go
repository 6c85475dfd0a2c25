// Package config reads the process environment, once, at start-up: the only
// place in the target that looks at environment variables.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Config is what the target needs from its environment (docs/targets.md).
type Config struct {
	Port        int
	Host        string
	DatabaseURL string
	// BuildDir holds the temporal CLI next to this binary (SFBENCH_BUILD_DIR).
	BuildDir string
	// DataDir keeps the dev server's SQLite file across restarts (SFBENCH_DATA_DIR).
	DataDir string
	// CPUs sizes the worker's slots and pollers and the PostgreSQL pool.
	CPUs int
	// LogLevel: debug, info, warn or error (the dev server's too).
	LogLevel string
	// Trace: write SPEC 3 span lines for sampled requests (SFBENCH_TRACE=1).
	Trace bool
}

func intVar(name string, def, min, max int, errs *[]string) int {
	raw, ok := os.LookupEnv(name)
	if !ok || raw == "" {
		return def
	}
	v, err := strconv.Atoi(raw)
	if err != nil || v < min || v > max {
		*errs = append(*errs, fmt.Sprintf("%s: %q is not an integer in %d..%d", name, raw, min, max))
		return def
	}
	return v
}

// Load reads and checks the environment; the error names every bad variable and what is allowed.
func Load() (Config, error) {
	var errs []string
	c := Config{
		Port:        intVar("PORT", 18970, 1, 65535, &errs),
		Host:        os.Getenv("HOST"),
		DatabaseURL: os.Getenv("DATABASE_URL"),
		BuildDir:    os.Getenv("SFBENCH_BUILD_DIR"),
		DataDir:     os.Getenv("SFBENCH_DATA_DIR"),
		// SFBENCH_CPUS, when a runner sets it, is the share of the machine this target may use.
		CPUs:     intVar("SFBENCH_CPUS", runtime.NumCPU(), 1, 1024, &errs),
		LogLevel: strings.ToLower(os.Getenv("LOG_LEVEL")),
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
	}
	if c.DatabaseURL == "" {
		errs = append(errs, "DATABASE_URL: required, the PostgreSQL server sfbench starts for this target (target.json services)")
	}
	if c.BuildDir == "" {
		if exe, err := os.Executable(); err == nil {
			c.BuildDir = filepath.Dir(exe)
		}
	}
	if c.DataDir == "" {
		errs = append(errs, "SFBENCH_DATA_DIR: required, the directory that keeps the Temporal server's database across restarts")
	}
	switch trace := os.Getenv("SFBENCH_TRACE"); trace {
	case "", "0":
	case "1":
		c.Trace = true
	default:
		errs = append(errs, fmt.Sprintf("SFBENCH_TRACE: %q must be 0 or 1", trace))
	}
	switch c.LogLevel {
	case "":
		c.LogLevel = "warn"
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Sprintf("LOG_LEVEL: %q is not one of debug, info, warn, error", c.LogLevel))
	}
	if len(errs) > 0 {
		return c, errors.New(strings.Join(errs, "; "))
	}
	return c, nil
}
