// Unit tests live here, outside internal/, so that target.json's loc globs count no test code.
package gotest

import (
	"strings"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
)

func TestActorIDKeepsPlainIDsAndEncodesTheRest(t *testing.T) {
	uuid := "3f0c2b7e-9a41-4c55-8d2e-0b6f1a2c3d4e"
	if got := actors.ActorID(uuid); got != uuid {
		t.Fatalf("ActorID(%q) = %q, want it unchanged", uuid, got)
	}
	for _, id := range []string{"a/b", "x||y", "~", "ünï", "a b", "%2F", strings.Repeat("é", 128)} {
		aid := actors.ActorID(id)
		if !strings.HasPrefix(aid, "~") || strings.ContainsAny(aid[1:], "/|% ~") {
			t.Errorf("ActorID(%q) = %q: want ~ and hex digits", id, aid)
		}
		if back := actors.EntityID(aid); back != id {
			t.Errorf("EntityID(ActorID(%q)) = %q", id, back)
		}
	}
}

func TestTopNOrdersByCountThenID(t *testing.T) {
	counts := map[string]int64{"a": 1, "b": 3, "c": 3, "d": 2, "e": 0}
	got := actors.TopN(counts, 3, []string{"c"})
	want := []string{"b", "d", "a"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("TopN = %v, want %v", got, want)
	}
}

func TestDivideInputFollowsTheSpecGenerator(t *testing.T) {
	got := actors.DivideInput(2, 1)
	x1 := (1103515245*int64(1) + 12345) % (1 << 31)
	x2 := (1103515245*x1 + 12345) % (1 << 31)
	if got[0] != int32(x1%1_000_000) || got[1] != int32(x2%1_000_000) {
		t.Fatalf("DivideInput(2, 1) = %v", got)
	}
}
