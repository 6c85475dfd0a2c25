package gotest

import (
	"runtime"
	"strings"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/config"
)

func TestConfigNamesEveryBadVariableAndWhatIsAllowed(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("PROTOACTOR_MEMBERS", "0")
	t.Setenv("SFBENCH_TRACE", "yes")
	t.Setenv("PORT", "80a")
	_, err := config.Load()
	if err == nil {
		t.Fatal("Load accepted a bad environment")
	}
	for _, want := range []string{
		"DATABASE_URL: required",
		`PROTOACTOR_MEMBERS: "0" is not an integer in 1..16`,
		`SFBENCH_TRACE: "yes" must be 0 or 1`,
		`PORT: "80a" is not an integer in 1..65535`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/shop")
	for _, name := range []string{"PORT", "HOST", "PROTOACTOR_MEMBERS", "SFBENCH_CPUS", "SFBENCH_TRACE", "PG_POOL_SIZE", "LOG_LEVEL"} {
		t.Setenv(name, "")
	}
	c, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.Host != "127.0.0.1" || c.Members != min(16, runtime.GOMAXPROCS(0)) || c.Trace || c.PoolSize != 16 || c.LogLevel != "warn" {
		t.Fatalf("defaults: %+v", c)
	}
}

// One member per core the target is given: members on one core only add gRPC hops between grains.
func TestConfigMembersFollowTheCoresGiven(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/shop")
	t.Setenv("PROTOACTOR_MEMBERS", "")
	for cpus, members := range map[string]int{"1": 1, "3": 3, "64": 16} {
		t.Setenv("SFBENCH_CPUS", cpus)
		c, err := config.Load()
		if err != nil || c.Members != members {
			t.Errorf("SFBENCH_CPUS=%s: members %d (%v), want %d", cpus, c.Members, err, members)
		}
	}
	t.Setenv("SFBENCH_CPUS", "2")
	t.Setenv("PROTOACTOR_MEMBERS", "4")
	if c, _ := config.Load(); c.Members != 4 {
		t.Errorf("PROTOACTOR_MEMBERS=4 with SFBENCH_CPUS=2: members %d, want 4", c.Members)
	}
	t.Setenv("PROTOACTOR_MEMBERS", "")
	t.Setenv("SFBENCH_CPUS", "none")
	if _, err := config.Load(); err == nil || !strings.Contains(err.Error(), `SFBENCH_CPUS: "none" is not an integer in 1..1024`) {
		t.Errorf("SFBENCH_CPUS=none: %v", err)
	}
}
