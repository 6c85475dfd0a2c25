package gotest

import (
	"slices"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/micro"
)

func TestGenerateIsSpec8sGenerator(t *testing.T) {
	// x1 = (1103515245 * 1 + 12345) mod 2^31 = 1103527590, mod 10^6 = 527590
	if got := micro.Generate(1, 2); got[0] != 527590 {
		t.Fatalf("expected x(1) = 527590 for seed 1, got %v", got)
	}
}

func TestSplitIsEven(t *testing.T) {
	if got := micro.Split(10, 4); !slices.Equal(got, []int{3, 3, 2, 2}) {
		t.Fatalf("expected [3 3 2 2], got %v", got)
	}
}

func TestPlanSendsEveryMessageToAnotherEntity(t *testing.T) {
	targets, expect := micro.Plan(20, 500, 3)
	sent, received := 0, 0
	for i, ts := range targets {
		if n := len(ts); n != 25 {
			t.Fatalf("entity %d sends %d messages, expected 25", i, n)
		}
		for _, t2 := range ts {
			if t2 == i {
				t.Fatalf("entity %d sends to itself", i)
			}
		}
		sent += len(ts)
	}
	for _, n := range expect {
		received += n
	}
	if sent != 500 || received != 500 {
		t.Fatalf("sent %d, expected to receive %d; want 500 each", sent, received)
	}
}

func newMicroEnv() *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	for _, wf := range []any{micro.Divide, micro.DivideNode, micro.PingPong, micro.Ping, micro.Pong, micro.Big, micro.BigEntity} {
		env.RegisterWorkflow(wf)
	}
	return env
}

func TestDivideSortsThroughChildWorkflows(t *testing.T) {
	env := newMicroEnv()
	env.ExecuteWorkflow(micro.Divide, micro.DivideInput{Items: 2500, Fanout: 4, Leaf: 1000, Seed: 99})
	var res micro.DivideResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	sorted := micro.Generate(99, 2500)
	slices.Sort(sorted)
	if res.Entities != 5 || res.First != sorted[0] || res.Last != sorted[len(sorted)-1] || res.Checksum != micro.Checksum(sorted) {
		t.Fatalf("expected 5 entities, first %d, last %d, checksum %d; got %+v", sorted[0], sorted[len(sorted)-1], micro.Checksum(sorted), res)
	}
}
