package gotest

import (
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
	for _, name := range []string{"PORT", "HOST", "PROTOACTOR_MEMBERS", "SFBENCH_TRACE", "PG_POOL_SIZE", "LOG_LEVEL"} {
		t.Setenv(name, "")
	}
	c, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 8080 || c.Host != "127.0.0.1" || c.Members != 2 || c.Trace || c.PoolSize != 16 || c.LogLevel != "warn" {
		t.Fatalf("defaults: %+v", c)
	}
}
