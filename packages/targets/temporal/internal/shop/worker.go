package shop

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Sizing is how many of each the worker runs, derived from the cores the
// target is given (README: "Tuning").
type Sizing struct {
	// MaxPollers caps the autoscaling pollers of each task type.
	MaxPollers        int
	ActivitySlots     int
	WorkflowTaskSlots int
	// PoolSize is the PostgreSQL pool the activities and the gateway share.
	PoolSize int
}

// Size follows Temporal's worker performance guidance for a worker that
// shares its machine with the server and the database: pollers autoscale
// (the recommended behaviour since server 1.28) up to a few per core (more
// only compete for the same cores), activity
// slots a few times the connection pool (an activity is one short
// statement, it waits on the pool rather than the CPU), workflow task slots
// per core (workflow tasks are CPU work, more at once only queue in the Go
// scheduler).
func Size(cpus int) Sizing {
	pool := max(8, 8*cpus)
	return Sizing{
		MaxPollers:        max(4, 4*cpus),
		ActivitySlots:     4 * pool,
		WorkflowTaskSlots: max(8, 16*cpus),
		PoolSize:          pool,
	}
}

// Options are the worker's options for a sizing.
func (z Sizing) Options() worker.Options {
	return worker.Options{
		WorkflowTaskPollerBehavior:              worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{MaximumNumberOfPollers: z.MaxPollers}),
		ActivityTaskPollerBehavior:              worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{MaximumNumberOfPollers: z.MaxPollers}),
		MaxConcurrentActivityExecutionSize:      z.ActivitySlots,
		MaxConcurrentLocalActivityExecutionSize: z.ActivitySlots,
		MaxConcurrentWorkflowTaskExecutionSize:  z.WorkflowTaskSlots,
	}
}

// Register adds the shop's workflows and activities to a worker.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflow(Checkout)
	w.RegisterWorkflow(CoPurchase)
	w.RegisterActivity(a)
}

// NewWorker is a worker on the target's task queue.
func NewWorker(c client.Client, z Sizing) worker.Worker { return worker.New(c, TaskQueue, z.Options()) }
