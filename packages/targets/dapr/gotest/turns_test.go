package gotest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
)

// A call whose request daprd gave up on (its context ended) while the app still
// runs it keeps the actor's turn until it returns: the next call waits for it.
func TestTurnOutlastsAnAbandonedCall(t *testing.T) {
	var turns actors.Turns
	first, abandon := context.WithCancel(context.Background())
	release, err := turns.Acquire(first, "product/p")
	if err != nil {
		t.Fatal(err)
	}
	abandon()

	// a caller that stops waiting gets no turn while the abandoned call still runs
	impatient, stop := context.WithCancel(context.Background())
	stop()
	if next, err := turns.Acquire(impatient, "product/p"); err == nil {
		next()
		t.Fatal("a call entered while the abandoned one still ran")
	}

	entered := make(chan struct{})
	go func() {
		next, err := turns.Acquire(context.Background(), "product/p")
		if err != nil {
			t.Error(err)
			close(entered)
			return
		}
		close(entered)
		next()
	}()
	release()
	<-entered
}

// Calls of one actor never overlap; calls of different actors do not wait for each other.
func TestTurnsSerializeOneActorOnly(t *testing.T) {
	var turns actors.Turns
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := turns.Acquire(context.Background(), "product/p")
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			inside.Add(-1)
			release()
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d calls of one actor ran at once", most.Load())
	}

	holdP, err := turns.Acquire(context.Background(), "product/p")
	if err != nil {
		t.Fatal(err)
	}
	defer holdP()
	holdQ, err := turns.Acquire(context.Background(), "product/q")
	if err != nil {
		t.Fatalf("product/q waited for product/p: %v", err)
	}
	holdQ()
}

// A call abandoned while it waits for its turn gives up and never runs.
func TestTurnGivesUpAnAbandonedWaiter(t *testing.T) {
	var turns actors.Turns
	release, err := turns.Acquire(context.Background(), "cart/c")
	if err != nil {
		t.Fatal(err)
	}
	waiting, abandon := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		next, err := turns.Acquire(waiting, "cart/c")
		if next != nil {
			next()
		}
		done <- err
	}()
	abandon()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned waiter: %v, want context.Canceled", err)
	}
	release()

	// the turn is free again for a live call
	again, err := turns.Acquire(context.Background(), "cart/c")
	if err != nil {
		t.Fatal(err)
	}
	again()
}
