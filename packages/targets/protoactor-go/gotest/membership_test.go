package gotest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/cluster/clusterproviders/automanaged"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/node"
)

func nodeModel(id string) *automanaged.NodeModel {
	return automanaged.NewNode("sfbench", id, "127.0.0.1", 4000, 5000, []string{"product"})
}

// A poll error as net/http returns it, wrapping the dial's or the read's cause.
func pollError(cause error) error {
	return &url.Error{Op: "Get", URL: "http://127.0.0.1:5000/_health", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", cause)}}
}

func ids(m *node.Membership) []string {
	var out []string
	for _, member := range m.Members("sfbench") {
		out = append(out, member.Id)
	}
	return out
}

func TestAMemberThatIsSlowStaysUntilItsGraceEnds(t *testing.T) {
	m := node.NewMembership(30 * time.Second)
	t0 := time.Now()
	if note, changed := m.Observe("b", nodeModel("B"), nil, t0); !changed || note == "" {
		t.Fatal("a member that answers for the first time joins, and says so")
	}
	timeout := &url.Error{Op: "Get", URL: "http://b/_health", Err: context.DeadlineExceeded}
	for _, after := range []time.Duration{2 * time.Second, 10 * time.Second, 29 * time.Second} {
		if note, changed := m.Observe("b", nil, timeout, t0.Add(after)); changed || note == "" {
			t.Fatalf("a poll that timed out %s after the last answer changed the cluster, or went unsaid: %q", after, note)
		}
		if got := ids(m); len(got) != 1 || got[0] != "B" {
			t.Fatalf("after %s of timed-out polls the members are %v, want [B]", after, got)
		}
	}
	// it answers again: nothing changes, and its grace counts from this answer
	m.Observe("b", nodeModel("B"), nil, t0.Add(30*time.Second))
	if note, changed := m.Observe("b", nil, timeout, t0.Add(59*time.Second)); changed {
		t.Fatalf("the grace did not start again at the last answer: %s", note)
	}
	if note, changed := m.Observe("b", nil, timeout, t0.Add(61*time.Second)); !changed || len(ids(m)) != 0 {
		t.Fatalf("a member unanswered for longer than its grace stays: %q, members %v", note, ids(m))
	}
}

func TestAMemberWhosePortRefusesLeavesAtOnce(t *testing.T) {
	m := node.NewMembership(30 * time.Second)
	t0 := time.Now()
	m.Observe("a", nodeModel("A"), nil, t0)
	m.Observe("b", nodeModel("B"), nil, t0)
	if _, changed := m.Observe("b", nil, pollError(syscall.ECONNREFUSED), t0.Add(500*time.Millisecond)); !changed {
		t.Fatal("a refused connection did not drop the member")
	}
	if got := ids(m); len(got) != 1 || got[0] != "A" {
		t.Fatalf("members %v, want [A]", got)
	}
	// a member started again on that port answers under a new id and joins
	if note, changed := m.Observe("b", nodeModel("B2"), nil, t0.Add(time.Second)); !changed || len(ids(m)) != 2 {
		t.Fatalf("a restarted member did not join: %q, members %v", note, ids(m))
	}
	if _, changed := m.Observe("b", nodeModel("B3"), nil, t0.Add(2*time.Second)); !changed {
		t.Fatal("a member answering under another id than before did not change the cluster")
	}
	if note, changed := m.Observe("b", nodeModel("B3"), nil, t0.Add(3*time.Second)); changed || note != "" {
		t.Fatalf("a member answering as before changed the cluster or was noted: %q", note)
	}
}

func TestAHostThatNeverAnsweredIsNoMember(t *testing.T) {
	m := node.NewMembership(30 * time.Second)
	if note, changed := m.Observe("c", nil, errors.New("connection reset"), time.Now()); changed || note != "" {
		t.Fatalf("a host that never answered changed the cluster: %s", note)
	}
	other := automanaged.NewNode("another-cluster", "X", "127.0.0.1", 1, 2, nil)
	m.Observe("d", other, nil, time.Now())
	if got := ids(m); len(got) != 0 {
		t.Fatalf("members %v, want none (a host of another cluster is not one)", got)
	}
}

// What the rule keys on is what net/http returns for a port nothing listens on.
func TestARefusedPollIsTheDialsECONNREFUSED(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res, err := (&http.Client{Timeout: 2 * time.Second}).Get("http://" + addr + "/_health")
	if err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		t.Fatal("a closed port answered")
	}
	m := node.NewMembership(30 * time.Second)
	m.Observe(addr, nodeModel("A"), nil, time.Now())
	if _, changed := m.Observe(addr, nil, err, time.Now()); !changed || len(ids(m)) != 0 {
		t.Fatalf("the error of a poll of a closed port (%v) was not read as a member gone", err)
	}
}
