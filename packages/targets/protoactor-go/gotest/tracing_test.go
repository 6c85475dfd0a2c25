package gotest

import (
	"strings"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/gateway"
)

// The rule is core's sampledTraceparent (SPEC 3): a valid traceparent whose
// flags, read as hex, have bit 0 set; anything else starts no span.
func TestOnlyASampledTraceparentStartsATrace(t *testing.T) {
	trace, parent := strings.Repeat("1", 32), strings.Repeat("2", 16)
	valid := "00-" + trace + "-" + parent + "-"
	for _, flags := range []string{"01", "03", "a1", "ff"} {
		gotTrace, gotParent, ok := gateway.SampledTraceparent(valid + flags)
		if !ok || gotTrace != trace || gotParent != parent {
			t.Errorf("flags %s: got %q %q %v, want the trace continued", flags, gotTrace, gotParent, ok)
		}
	}
	if _, _, ok := gateway.SampledTraceparent("  " + valid + "01 "); !ok {
		t.Error("a sampled traceparent with surrounding spaces is not continued")
	}
	for _, header := range []string{
		valid + "00", valid + "02", valid + "10", valid + "1a", // unsampled: other flag bits do not sample
		"", "garbage", "00-zz",
		"01-" + trace + "-" + parent + "-01", // another version
		"00-" + strings.ToUpper(strings.Repeat("a", 32)) + "-" + parent + "-01",
		"00-" + trace + "-" + parent[1:] + "-01",
		valid + "1",
	} {
		if gotTrace, gotParent, ok := gateway.SampledTraceparent(header); ok || gotTrace != "" || gotParent != "" {
			t.Errorf("%q: got %q %q %v, want no trace", header, gotTrace, gotParent, ok)
		}
	}
}
