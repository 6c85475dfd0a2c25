package gotest

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
)

func TestMicroPayloadIsTheAlphabetRepeated(t *testing.T) {
	p := grains.Pattern(30)
	if string(p) != "abcdefghijklmnopqrstuvwxyzabcd" {
		t.Fatalf("Pattern(30) = %q", p)
	}
	sum := sha256.Sum256(grains.Pattern(26))
	if got := hex.EncodeToString(sum[:]); got != "71c480df93d6ae2f1efad1447c66c9525e316218cf51fc8d9ed832f2daf18b73" {
		t.Fatalf("sha256 of the 26-byte payload = %s", got)
	}
}

func TestDivideInputFollowsTheSpecGenerator(t *testing.T) {
	// x1 = (1103515245*42 + 12345) mod 2^31 = 1250496027, and so on (computed independently)
	if got := grains.DivideInput(3, 42); !slices.Equal(got, []int32{496027, 302264, 676753}) {
		t.Fatalf("DivideInput(3, 42) = %v", got)
	}
	for _, v := range grains.DivideInput(10_000, 2147483647) {
		if v < 0 || v >= 1_000_000 {
			t.Fatalf("value %d out of [0, 1e6)", v)
		}
	}
}

func TestHistogramBoundsAre125From1usTo5s(t *testing.T) {
	b := grains.HistogramBounds
	if len(b) != 21 || b[0] != 1000 || b[1] != 2000 || b[2] != 5000 || b[3] != 10_000 || b[20] != 5_000_000_000 {
		t.Fatalf("bounds = %v", b)
	}
}

func TestBigTargetsAreOthersAndReproducible(t *testing.T) {
	var first, again []int
	grains.BigTargets(7, 3, 5, 1000, func(j int) { first = append(first, j) })
	grains.BigTargets(7, 3, 5, 1000, func(j int) { again = append(again, j) })
	if !slices.Equal(first, again) {
		t.Fatal("the same seed and index drew different targets")
	}
	seen := map[int]int{}
	for _, j := range first {
		if j == 3 || j < 0 || j >= 5 {
			t.Fatalf("entity 3 of 5 sent to %d", j)
		}
		seen[j]++
	}
	if len(seen) != 4 {
		t.Fatalf("1000 messages reached %d of the 4 others", len(seen))
	}
}
