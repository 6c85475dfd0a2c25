package micro

import (
	"fmt"
	"math/rand/v2"

	"go.temporal.io/sdk/workflow"
)

// BigInput is one /micro/big request.
type BigInput struct {
	Entities int   `json:"entities"`
	Messages int   `json:"messages"`
	Seed     int64 `json:"seed"`
}

// BigResult is what the entities received.
type BigResult struct {
	Delivered int64 `json:"delivered"`
	TotalNs   int64 `json:"totalNs"`
	HandlerNs int64 `json:"handlerNs"`
}

// BigEntityInput is one entity's part: whom it sends to and how many messages it will receive.
type BigEntityInput struct {
	Run     string `json:"run"`
	Targets []int  `json:"targets"`
	Expect  int    `json:"expect"`
}

const (
	signalGo    = "go"
	signalMsg   = "msg"
	signalBatch = 1000
)

// Plan spreads messages over the senders as evenly as possible, each to a
// random other entity (seeded), and counts what each entity will receive.
func Plan(entities, messages int, seed int64) (targets [][]int, expect []int) {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	targets = make([][]int, entities)
	expect = make([]int, entities)
	for i, n := range Split(messages, entities) {
		targets[i] = make([]int, n)
		for k := range targets[i] {
			t := r.IntN(entities - 1)
			if t >= i {
				t++
			}
			targets[i][k] = t
			expect[t]++
		}
	}
	return targets, expect
}

func bigID(run string, i int) string { return fmt.Sprintf("%s/big-%d", run, i) }

// Big starts the entities, tells them to go once every one exists (a signal
// to a workflow that has not started yet would fail), and sums what they received.
func Big(ctx workflow.Context, in BigInput) (BigResult, error) {
	begin := workflow.Now(ctx)
	run := workflow.GetInfo(ctx).WorkflowExecution.ID
	targets, expect := Plan(in.Entities, in.Messages, in.Seed)
	futures := make([]workflow.ChildWorkflowFuture, in.Entities)
	for i := range futures {
		futures[i] = workflow.ExecuteChildWorkflow(childOptions(ctx, bigID(run, i)), BigEntity,
			BigEntityInput{Run: run, Targets: targets[i], Expect: expect[i]})
	}
	for _, f := range futures {
		if err := f.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
			return BigResult{}, err
		}
	}
	start := workflow.Now(ctx)
	signals := make([]workflow.Future, in.Entities)
	for i, f := range futures {
		signals[i] = f.SignalChildWorkflow(ctx, signalGo, nil)
	}
	for _, s := range signals {
		if err := s.Get(ctx, nil); err != nil {
			return BigResult{}, err
		}
	}
	var out BigResult
	for _, f := range futures {
		var received int64
		if err := f.Get(ctx, &received); err != nil {
			return out, err
		}
		out.Delivered += received
	}
	end := workflow.Now(ctx)
	out.TotalNs = end.Sub(start).Nanoseconds()
	out.HandlerNs = end.Sub(begin).Nanoseconds()
	return out, nil
}

// BigEntity counts the messages it receives, sends its own once told to go,
// and ends when it has sent them all and received what the plan sends it.
func BigEntity(ctx workflow.Context, in BigEntityInput) (int64, error) {
	var received int64
	messages := workflow.GetSignalChannel(ctx, signalMsg)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for messages.Receive(ctx, nil) {
			received++
		}
	})
	workflow.GetSignalChannel(ctx, signalGo).Receive(ctx, nil)
	// At most signalBatch outgoing signals pending at once: the server
	// refuses a workflow task that would leave more than 2000.
	for from := 0; from < len(in.Targets); from += signalBatch {
		batch := in.Targets[from:min(from+signalBatch, len(in.Targets))]
		sends := make([]workflow.Future, len(batch))
		for k, t := range batch {
			sends[k] = workflow.SignalExternalWorkflow(ctx, bigID(in.Run, t), "", signalMsg, nil)
		}
		for _, s := range sends {
			if err := s.Get(ctx, nil); err != nil {
				return received, err
			}
		}
	}
	if err := workflow.Await(ctx, func() bool { return received >= int64(in.Expect) }); err != nil {
		return received, err
	}
	return received, nil
}
