package actors

import (
	"context"
	"sync"
)

// Turns runs the calls of one actor in this app process one at a time, as
// daprd's turn lock promises but does not keep: daprd releases an actor's lock
// as soon as the caller of the call it forwarded goes away (the caller's node
// was killed, or its deadline passed), while the app's handler of that call
// goes on running. The next call of the actor then entered the app beside it,
// both read the same stock and the later write undid the earlier one's
// retraction. A call of an actor here waits until the app has finished the
// previous one, whether daprd still waits for it or not.
type Turns struct {
	mu   sync.Mutex
	held map[string]*turn
}

// turn is one actor's lock; users counts the calls holding or waiting for it,
// so the entry is dropped when none does (actors are many, most idle).
type turn struct {
	slot  chan struct{}
	users int
}

// Acquire waits for the actor's turn. It gives up when ctx ends first: the
// call was abandoned by daprd before it could run, and running it later would
// only be a late delivery nobody waits for.
func (t *Turns) Acquire(ctx context.Context, key string) (release func(), err error) {
	t.mu.Lock()
	if t.held == nil {
		t.held = map[string]*turn{}
	}
	tn := t.held[key]
	if tn == nil {
		tn = &turn{slot: make(chan struct{}, 1)}
		t.held[key] = tn
	}
	tn.users++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		tn.users--
		if tn.users == 0 {
			delete(t.held, key)
		}
		t.mu.Unlock()
	}
	select {
	case tn.slot <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
	release = func() {
		<-tn.slot
		leave()
	}
	if err := ctx.Err(); err != nil {
		release()
		return nil, err
	}
	return release, nil
}
