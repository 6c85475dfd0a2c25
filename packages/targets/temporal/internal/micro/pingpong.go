package micro

import (
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"
)

// HistogramBounds are SPEC 8's round-trip upper bounds: 1, 2, 5 x 10^k ns for k = 3..9.
var HistogramBounds = func() []int64 {
	var b []int64
	for p := int64(1000); p <= 1_000_000_000; p *= 10 {
		b = append(b, p, 2*p, 5*p)
	}
	return b
}()

func bucket(ns int64) int {
	for i, b := range HistogramBounds {
		if ns <= b {
			return i
		}
	}
	return len(HistogramBounds)
}

// PingPongInput is one /micro/pingpong request.
type PingPongInput struct {
	Pairs    int `json:"pairs"`
	Messages int `json:"messages"`
	Bytes    int `json:"bytes"`
}

// PingPongResult is what the pairs measured, merged.
type PingPongResult struct {
	Messages  int64   `json:"messages"`
	Histogram []int64 `json:"histogram"`
	TotalNs   int64   `json:"totalNs"`
	HandlerNs int64   `json:"handlerNs"`
}

// PingInput is one ping's work, carried over when it continues as new.
type PingInput struct {
	Pong      string  `json:"pong"`
	Messages  int     `json:"messages"`
	Bytes     int     `json:"bytes"`
	Done      int     `json:"done"`
	Histogram []int64 `json:"histogram"`
	// First is when the first round trip began (unix ns), kept across runs.
	First int64 `json:"first"`
}

// PingResult is one ping's measurements.
type PingResult struct {
	Messages  int64   `json:"messages"`
	Histogram []int64 `json:"histogram"`
	First     int64   `json:"first"`
	Last      int64   `json:"last"`
}

// PongInput is one pong's work.
type PongInput struct {
	Ping     string `json:"ping"`
	Messages int    `json:"messages"`
	Done     int    `json:"done"`
	// Pending are pings that arrived while the previous run continued as new.
	Pending [][]byte `json:"pending,omitempty"`
}

const (
	signalPing = "ping"
	signalPong = "pong"
	// roundsPerRun bounds a ping's or pong's history (about four events per
	// round trip); after that many it continues as new with its state.
	roundsPerRun = 1000
	// orphanTimeout ends a pong whose ping failed (it would wait for pings forever).
	orphanTimeout = 2 * time.Hour
)

func childOptions(ctx workflow.Context, id string) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id})
}

// PingPong runs the pairs concurrently and merges what their pings measured.
func PingPong(ctx workflow.Context, in PingPongInput) (PingPongResult, error) {
	begin := workflow.Now(ctx)
	run := workflow.GetInfo(ctx).WorkflowExecution.ID
	futures := make([]workflow.ChildWorkflowFuture, in.Pairs)
	for i := range futures {
		futures[i] = workflow.ExecuteChildWorkflow(childOptions(ctx, fmt.Sprintf("%s/ping-%d", run, i)), Ping,
			PingInput{Pong: fmt.Sprintf("%s/pong-%d", run, i), Messages: in.Messages, Bytes: in.Bytes})
	}
	out := PingPongResult{Histogram: make([]int64, len(HistogramBounds)+1)}
	var first, last int64
	for i, f := range futures {
		var r PingResult
		if err := f.Get(ctx, &r); err != nil {
			return out, err
		}
		out.Messages += r.Messages
		for b, n := range r.Histogram {
			out.Histogram[b] += n
		}
		if i == 0 || r.First < first {
			first = r.First
		}
		if r.Last > last {
			last = r.Last
		}
	}
	out.TotalNs = last - first
	out.HandlerNs = workflow.Now(ctx).Sub(begin).Nanoseconds()
	return out, nil
}

// Ping sends its pong one message at a time and times each round trip. Its
// clock is workflow.Now, the start of the workflow task that runs the code,
// which replays the same: a round trip is from the task that sent the ping
// to the task that got the pong.
func Ping(ctx workflow.Context, in PingInput) (PingResult, error) {
	self := workflow.GetInfo(ctx).WorkflowExecution.ID
	if in.Done == 0 {
		pong := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: in.Pong,
			// abandon: the pong outlives this run when the ping continues as new
			ParentClosePolicy:        enumspb.PARENT_CLOSE_POLICY_ABANDON,
			WorkflowExecutionTimeout: orphanTimeout,
		}), Pong, PongInput{Ping: self, Messages: in.Messages})
		if err := pong.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
			return PingResult{}, err
		}
		in.Histogram = make([]int64, len(HistogramBounds)+1)
		in.First = workflow.Now(ctx).UnixNano()
	}
	answers := workflow.GetSignalChannel(ctx, signalPong)
	data := payload(in.Bytes)
	for rounds := 0; in.Done < in.Messages; rounds++ {
		if rounds == roundsPerRun {
			return PingResult{}, workflow.NewContinueAsNewError(ctx, Ping, in)
		}
		sent := workflow.Now(ctx)
		if err := workflow.SignalExternalWorkflow(ctx, in.Pong, "", signalPing, data).Get(ctx, nil); err != nil {
			return PingResult{}, err
		}
		var back []byte
		answers.Receive(ctx, &back)
		if len(back) != len(data) {
			return PingResult{}, fmt.Errorf("pong answered %d bytes, sent %d", len(back), len(data))
		}
		in.Histogram[bucket(workflow.Now(ctx).Sub(sent).Nanoseconds())]++
		in.Done++
	}
	return PingResult{Messages: int64(in.Done), Histogram: in.Histogram, First: in.First, Last: workflow.Now(ctx).UnixNano()}, nil
}

// Pong sends every ping's payload back to its ping.
func Pong(ctx workflow.Context, in PongInput) error {
	pings := workflow.GetSignalChannel(ctx, signalPing)
	for rounds := 0; in.Done < in.Messages; rounds++ {
		if rounds == roundsPerRun {
			// A ping that arrived meanwhile is carried over; one that arrives
			// while this run completes makes the server refuse the completion,
			// and this task runs again with it.
			for {
				var p []byte
				if !pings.ReceiveAsync(&p) {
					break
				}
				in.Pending = append(in.Pending, p)
			}
			return workflow.NewContinueAsNewError(ctx, Pong, in)
		}
		var p []byte
		if len(in.Pending) > 0 {
			p, in.Pending = in.Pending[0], in.Pending[1:]
		} else {
			pings.Receive(ctx, &p)
		}
		if err := workflow.SignalExternalWorkflow(ctx, in.Ping, "", signalPong, p).Get(ctx, nil); err != nil {
			return err
		}
		in.Done++
	}
	return nil
}
