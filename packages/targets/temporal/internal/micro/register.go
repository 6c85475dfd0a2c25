package micro

import "go.temporal.io/sdk/worker"

// Register adds the microbenchmark workflows and activities to a worker.
func Register(w worker.Registry, a *Activities) {
	for _, wf := range []any{Entity, PingPong, Ping, Pong, Divide, DivideNode, Big, BigEntity} {
		w.RegisterWorkflow(wf)
	}
	w.RegisterActivity(a)
}
