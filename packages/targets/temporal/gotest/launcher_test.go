package gotest

import (
	"strings"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/config"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/devserver"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
)

func TestDevServerKeepsItsDatabaseSyncedInTheGivenFile(t *testing.T) {
	args := strings.Join(devserver.Args("/data/temporal.db", 7233, "warn"), " ")
	for _, want := range []string{"server start-dev", "--db-filename /data/temporal.db", "--port 7233", "--ip 127.0.0.1", "--headless",
		"--sqlite-pragma synchronous=full", "--sqlite-pragma journal_mode=wal", "system.enableActivityEagerExecution=true"} {
		if !strings.Contains(args, want) {
			t.Errorf("start-dev arguments %q lack %q", args, want)
		}
	}
}

func TestConfigNamesEveryMissingVariable(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("SFBENCH_DATA_DIR", "")
	t.Setenv("PORT", "70000")
	t.Setenv("SFBENCH_TRACE", "yes")
	_, err := config.Load()
	if err == nil {
		t.Fatal("expected an error")
	}
	for _, name := range []string{"DATABASE_URL", "SFBENCH_DATA_DIR", "PORT", "SFBENCH_TRACE"} {
		if !strings.Contains(err.Error(), name+":") {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
}

func TestConfigTracesOnlyWhenAsked(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://x")
	t.Setenv("SFBENCH_DATA_DIR", t.TempDir())
	for value, want := range map[string]bool{"": false, "0": false, "1": true} {
		t.Setenv("SFBENCH_TRACE", value)
		c, err := config.Load()
		if err != nil || c.Trace != want {
			t.Errorf("SFBENCH_TRACE=%q: trace %v (%v), expected %v", value, c.Trace, err, want)
		}
	}
}

func TestSizingGrowsWithTheCores(t *testing.T) {
	two, eight := shop.Size(2), shop.Size(8)
	if two.PoolSize != 16 || two.MaxPollers != 8 || eight.PoolSize != 64 || two.ActivitySlots < two.PoolSize {
		t.Fatalf("sizing for 2 cores %+v, for 8 %+v", two, eight)
	}
}
