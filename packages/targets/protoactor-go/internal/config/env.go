// Package config reads the process environment, once, at start-up: the only
// place in the target that looks at environment variables.
package config

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Config is what the target needs from its environment (docs/targets.md).
type Config struct {
	Port        int
	Host        string
	DatabaseURL string
	Trace       bool
	// Members is how many cluster members (processes) host grains, the gateway's own included:
	// one per core the target is given (SFBENCH_CPUS, else what Go sees) unless PROTOACTOR_MEMBERS says.
	Members int
	// PoolSize is the PostgreSQL connection pool size of each member.
	PoolSize int
	// LogLevel: debug, info, warn or error (Proto.Actor's own logs).
	LogLevel string
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
		Port:        intVar("PORT", 8080, 1, 65535, &errs),
		Host:        os.Getenv("HOST"),
		DatabaseURL: os.Getenv("DATABASE_URL"),
		Members:     intVar("PROTOACTOR_MEMBERS", min(16, intVar("SFBENCH_CPUS", runtime.GOMAXPROCS(0), 1, 1024, &errs)), 1, 16, &errs),
		PoolSize:    intVar("PG_POOL_SIZE", 16, 1, 500, &errs),
		LogLevel:    os.Getenv("LOG_LEVEL"),
	}
	if c.Host == "" {
		c.Host = "127.0.0.1"
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
		errs = append(errs, fmt.Sprintf("LOG_LEVEL: %q must be one of debug, info, warn, error", c.LogLevel))
	}
	if c.DatabaseURL == "" {
		errs = append(errs, "DATABASE_URL: required (postgres://user@host:port/database; the database must exist)")
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("bad environment: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// MemberEnv is what the launcher passes to a member process besides the shared variables.
type MemberEnv struct {
	// Hosts are the membership (/_health) addresses of all members.
	Hosts []string
	Index int
}

// LoadMember reads the member-only variables the launcher sets.
func LoadMember() (MemberEnv, error) {
	hosts := os.Getenv("PROTOACTOR_HOSTS")
	idx, err := strconv.Atoi(os.Getenv("PROTOACTOR_MEMBER_INDEX"))
	if hosts == "" || err != nil {
		return MemberEnv{}, fmt.Errorf("member mode needs PROTOACTOR_HOSTS and PROTOACTOR_MEMBER_INDEX (set by the launcher)")
	}
	return MemberEnv{Hosts: strings.Split(hosts, ","), Index: idx}, nil
}
