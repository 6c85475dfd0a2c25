package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	dapr "github.com/dapr/go-sdk/client"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
	"github.com/sfbench/sfbench/packages/targets/dapr/internal/sidecar"
)

// store stands in for daprd's actor state API: it counts the reads of each
// key and can be told to fail the next write. Every other method of the
// client is left to the embedded interface (nil: a call to one would panic,
// which fails the test).
type store struct {
	dapr.Client
	mu        sync.Mutex
	data      map[string][]byte
	reads     map[string]int
	failWrite bool
}

func (s *store) GetActorState(_ context.Context, r *dapr.GetActorStateRequest) (*dapr.GetActorStateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := r.ActorType + "/" + r.ActorID + "/" + r.KeyName
	s.reads[k]++
	return &dapr.GetActorStateResponse{Data: s.data[k]}, nil
}

func (s *store) SaveStateTransactionally(_ context.Context, kind, id string, ops []*dapr.ActorStateOperation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failWrite {
		s.failWrite = false
		return errors.New("connection reset: the commit's outcome is unknown")
	}
	for _, o := range ops {
		if o.OperationType == "delete" {
			delete(s.data, kind+"/"+id+"/"+o.Key)
		} else {
			s.data[kind+"/"+id+"/"+o.Key] = o.Value
		}
	}
	return nil
}

func (s *store) readsOf(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads[key]
}

// An active actor reads a key from the store once and keeps it (as Dapr's
// SDKs keep an active actor's state); after daprd deactivated it here, or
// after a call of it failed, it reads from the store again.
func TestAnActiveActorKeepsItsStateUntilDeactivatedOrAFailedCall(t *testing.T) {
	t.Setenv("SFBENCH_PORT_LEASES", t.TempDir())
	// the SDK dials a sidecar for each new actor object and waits for none here
	t.Setenv("DAPR_CLIENT_TIMEOUT_SECONDS", "1")
	ports, err := sidecar.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	s := &store{data: map[string][]byte{}, reads: map[string]int{}}
	rt := &actors.Runtime{Client: s, Timeout: 5 * time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	stop, _ := rt.Serve(addr)
	defer func() { _ = stop() }()

	// what daprd sends the app: one actor method call, or a deactivation
	send := func(method, path string, body any) (int, actors.Reply) {
		t.Helper()
		raw, _ := json.Marshal(body)
		var res *http.Response
		for deadline := time.Now().Add(10 * time.Second); ; {
			req, _ := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(raw))
			if res, err = http.DefaultClient.Do(req); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond) // the listener is still opening
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var reply actors.Reply
		if method == http.MethodPut {
			if err := json.NewDecoder(res.Body).Decode(&reply); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
		return res.StatusCode, reply
	}
	call := func(c actors.Call) actors.Reply {
		t.Helper()
		status, reply := send(http.MethodPut, "/actors/product/p1/method/Handle", c)
		if status != http.StatusOK {
			t.Fatalf("%s: HTTP %d", c.Op, status)
		}
		return reply
	}
	price, stock := int64(7), int64(10)
	const key = "product/p1/product"

	call(actors.Call{Op: "create", Price: &price, Stock: &stock})
	call(actors.Call{Op: "get"})
	if r := call(actors.Call{Op: "get"}); r.Product == nil || r.Product.Stock != 10 {
		t.Fatalf("get: %+v", r)
	}
	if n := s.readsOf(key); n != 1 {
		t.Fatalf("an active product read its state %d times in three calls, want once", n)
	}

	// a write whose outcome is unknown: the next call reads what the store holds
	s.failWrite = true
	if r := call(actors.Call{Op: "retract", Amount: 3, OrderID: "o1"}); r.Status != 500 {
		t.Fatalf("retract with a failed write: %+v", r)
	}
	call(actors.Call{Op: "get"})
	if n := s.readsOf(key); n != 2 {
		t.Fatalf("after a failed call the product read its state %d times in all, want 2", n)
	}

	// daprd deactivates the actor here (it moved to another node): from now on every call reads
	if status, _ := send(http.MethodDelete, "/actors/product/p1", nil); status != http.StatusOK {
		t.Fatalf("deactivation: HTTP %d", status)
	}
	call(actors.Call{Op: "get"})
	call(actors.Call{Op: "retract", Amount: 3, OrderID: "o2"})
	if r := call(actors.Call{Op: "get"}); r.Product == nil || r.Product.Stock != 7 {
		t.Fatalf("get after the retraction: %+v", r)
	}
	if n := s.readsOf(key); n != 5 {
		t.Fatalf("a product deactivated here read its state %d times in all, want 5 (once per call after the deactivation)", n)
	}
}
