package gotest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/gateway"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
)

// startCounter is a Temporal client that only counts workflow starts by id;
// the ids in refuse fail to start, as when the server does not answer.
type startCounter struct {
	client.Client
	mu     sync.Mutex
	starts map[string]int
	refuse map[string]bool
}

func newStartCounter() *startCounter {
	return &startCounter{starts: map[string]int{}, refuse: map[string]bool{}}
}

func (c *startCounter) ExecuteWorkflow(_ context.Context, o client.StartWorkflowOptions, _ interface{}, _ ...interface{}) (client.WorkflowRun, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.starts[o.ID]++
	if c.refuse[o.ID] {
		return nil, errors.New("the server did not answer")
	}
	return nil, nil
}

func (c *startCounter) count(order string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts[shop.CoPurchaseWorkflowID(order)]
}

func TestSweepStartsOnlyTheCoPurchasesTheServerNeverAccepted(t *testing.T) {
	c := newStartCounter()
	c.refuse[shop.CoPurchaseWorkflowID("lost")] = true
	gw := gateway.New()
	gw.Attach(nil, c)

	// the gateway's own start after the answer
	gw.StartCoPurchase("answered")
	// a backlog: the pending list holds orders whose workflows wait in the server's queue
	for i := 0; i < 3; i++ {
		gw.SweepCoPurchases([]string{"answered", "restarted", "lost"})
	}
	if got := c.count("answered"); got != 1 {
		t.Fatalf("an order whose start the server accepted was started %d times, want 1", got)
	}
	if got := c.count("restarted"); got != 1 {
		t.Fatalf("an order with no start in this process was started %d times, want 1 (then left to the server)", got)
	}
	if got := c.count("lost"); got != 3 {
		t.Fatalf("an order whose start failed was started %d times over 3 sweeps, want 3", got)
	}

	// a restarted target knows no start: it starts every pending order once
	again := gateway.New()
	again.Attach(nil, c)
	if n := again.SweepCoPurchases([]string{"answered"}); n != 1 || c.count("answered") != 2 {
		t.Fatalf("after a restart the sweep started %d (total %d), want 1 (total 2)", n, c.count("answered"))
	}
}
