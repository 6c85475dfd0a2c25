package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/shop"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/trace"
)

type headerWriter struct{ h *commonpb.Header }

func (w headerWriter) Set(k string, p *commonpb.Payload) { w.h.Fields[k] = p }

// tracedCheckout runs a checkout of shopFixture's cart c through the
// propagator, with the start header a traced gateway request gives it
// (none when link is nil), and answers the span lines written.
func tracedCheckout(t *testing.T, link *trace.Link) []trace.Span {
	t.Helper()
	var out bytes.Buffer
	spans := trace.NewWriter(&out)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetContextPropagators([]workflow.ContextPropagator{trace.Propagator{}})
	header := &commonpb.Header{Fields: map[string]*commonpb.Payload{}}
	ctx := context.Background()
	if link != nil {
		ctx = trace.WithLink(ctx, *link)
	}
	if err := (trace.Propagator{}).Inject(ctx, headerWriter{header}); err != nil {
		t.Fatal(err)
	}
	env.SetHeader(header)
	env.RegisterWorkflow(shop.Checkout)
	env.RegisterActivity(&shop.Activities{Store: shopFixture(), Spans: spans})
	env.ExecuteWorkflow(shop.Checkout, shop.CheckoutInput{OrderID: "o1", CartID: "c", UserID: "u"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("the checkout workflow failed: %v", err)
	}
	spans.Flush()
	var got []trace.Span
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var s trace.Span
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("not a span line: %q", line)
		}
		got = append(got, s)
	}
	return got
}

func TestTracedCheckoutWritesAFunctionSpanPerActivityUnderTheGatewaySpan(t *testing.T) {
	link := trace.Link{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", ParentID: "00f067aa0ba902b7"}
	got := tracedCheckout(t, &link)
	var names []string
	for _, s := range got {
		if s.Sfbench != "span" || s.Kind != "function" || s.TraceID != link.TraceID || s.ParentID != link.ParentID {
			t.Fatalf("span %+v: expected a function span of trace %s under %s", s, link.TraceID, link.ParentID)
		}
		if s.End < s.Start || len(s.SpanID) != 16 {
			t.Fatalf("span %+v: bad times or span id", s)
		}
		names = append(names, s.Entity+"."+s.Op+":"+s.Key)
	}
	sort.Strings(names)
	want := []string{"cart.read:c", "order.create:o1", "product.retract:a", "product.retract:b", "user.charge:u"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("spans %v, expected %v", names, want)
	}
}

func TestUntracedCheckoutWritesNoSpanAndCarriesNoHeader(t *testing.T) {
	if got := tracedCheckout(t, nil); len(got) != 0 {
		t.Fatalf("an untraced checkout wrote %d spans: %+v", len(got), got)
	}
	header := &commonpb.Header{Fields: map[string]*commonpb.Payload{}}
	if err := (trace.Propagator{}).Inject(context.Background(), headerWriter{header}); err != nil || len(header.Fields) != 0 {
		t.Fatalf("an untraced start got header fields %v (%v)", header.Fields, err)
	}
}

func TestSampledTraceparent(t *testing.T) {
	cases := map[string]bool{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03": true,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00": false,
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7":    false,
		"zz-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": false,
		"": false,
	}
	for header, sampled := range cases {
		if _, _, ok := trace.SampledTraceparent(header); ok != sampled {
			t.Errorf("%q: sampled %v, expected %v", header, ok, sampled)
		}
	}
}
