// Unit tests of the pure parts (top-n, request validation, routing); the
// vitest suite in test/ drives the built binary. Kept out of internal/ so the
// manifest's loc globs count no test code.
package gotest

import (
	"reflect"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
)

func TestTopNOrdersByCountThenID(t *testing.T) {
	counts := map[string]int64{"b": 3, "a": 3, "c": 5, "d": 1, "e": 0}
	if got := grains.TopN(counts, 3, nil); !reflect.DeepEqual(got, []string{"c", "a", "b"}) {
		t.Fatalf("TopN = %v, want [c a b]", got)
	}
}

func TestTopNSkipsExcludedBeforeTakingN(t *testing.T) {
	counts := map[string]int64{"a": 9, "b": 8, "c": 7}
	if got := grains.TopN(counts, 2, []string{"a"}); !reflect.DeepEqual(got, []string{"b", "c"}) {
		t.Fatalf("TopN = %v, want [b c]", got)
	}
}

func TestTopNWithFewerThanNAnswersAll(t *testing.T) {
	if got := grains.TopN(map[string]int64{"x": 1}, 5, nil); !reflect.DeepEqual(got, []string{"x"}) {
		t.Fatalf("TopN = %v, want [x]", got)
	}
	if got := grains.TopN(map[string]int64{}, 5, nil); len(got) != 0 {
		t.Fatalf("TopN of no counts = %v, want []", got)
	}
}
