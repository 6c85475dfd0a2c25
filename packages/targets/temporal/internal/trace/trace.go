// Package trace is SPEC 3 for this target: span lines on stdout, and a
// sampled request's trace carried from the gateway through the checkout
// workflow into its activities in Temporal's own headers, by a context
// propagator, the way Temporal's Go SDK carries request context (the SDK's
// ContextPropagator; samples-go's ctxpropagation). Only a sampled request
// puts a trace into its context; the others add no header to anything.
package trace

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"
)

// Link is what a traced call carries: the trace and the span that caused it.
type Link struct {
	TraceID  string `json:"t"`
	ParentID string `json:"p"`
}

// Span is one SPEC 3 span line.
type Span struct {
	Sfbench  string `json:"sfbench"`
	TraceID  string `json:"traceId"`
	SpanID   string `json:"spanId"`
	ParentID string `json:"parentId,omitempty"`
	Kind     string `json:"kind"`
	Entity   string `json:"entity,omitempty"`
	Op       string `json:"op"`
	Key      string `json:"key,omitempty"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
}

// Writer buffers span lines and writes whole lines every 10 ms (or every
// 64 KiB): the gateway and the worker share one stdout, and a traced call
// costs an append, not a syscall.
type Writer struct {
	mu  sync.Mutex
	buf []byte
	out io.Writer
}

// NewWriter writes to out (the process's stdout) until the process ends.
func NewWriter(out io.Writer) *Writer {
	w := &Writer{out: out}
	go func() {
		for range time.Tick(10 * time.Millisecond) {
			w.Flush()
		}
	}()
	return w
}

func (w *Writer) Write(s Span) {
	s.Sfbench = "span"
	line, err := json.Marshal(s)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.buf = append(append(w.buf, line...), '\n')
	full := len(w.buf) >= 64<<10
	w.mu.Unlock()
	if full {
		w.Flush()
	}
}

func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return
	}
	_, _ = w.out.Write(w.buf)
	w.buf = w.buf[:0]
}

// NowMicros is the wall clock in epoch microseconds.
func NowMicros() int64 { return time.Now().UnixMicro() }

// NewSpanID is a random 16-hex-digit span id.
func NewSpanID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var traceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// SampledTraceparent is core's sampledTraceparent (SPEC 3): the trace id and
// parent span id of a valid traceparent with the sampled flag (bit 0); ok is
// false for a missing, invalid or unsampled one, which the workload sends in
// every phase but the traced one.
func SampledTraceparent(header string) (traceID, parentID string, ok bool) {
	m := traceparent.FindStringSubmatch(strings.TrimSpace(header))
	if m == nil {
		return "", "", false
	}
	flags, err := strconv.ParseUint(m[3], 16, 8)
	if err != nil || flags&1 == 0 {
		return "", "", false
	}
	return m[1], m[2], true
}

type linkKey struct{}

// WithLink is ctx carrying a traced call's link.
func WithLink(ctx context.Context, l Link) context.Context {
	return context.WithValue(ctx, linkKey{}, l)
}

// LinkOf is the link ctx carries, if the call is traced.
func LinkOf(ctx context.Context) (Link, bool) {
	l, ok := ctx.Value(linkKey{}).(Link)
	return l, ok
}

// Function records a function span of a traced call from start until the
// returned func is called; for an untraced call (or spans off) both cost a lookup.
func Function(ctx context.Context, w *Writer, entity, op, key string) func() {
	if w == nil {
		return func() {}
	}
	l, ok := LinkOf(ctx)
	if !ok {
		return func() {}
	}
	start := NowMicros()
	return func() {
		w.Write(Span{TraceID: l.TraceID, SpanID: NewSpanID(), ParentID: l.ParentID, Kind: "function",
			Entity: entity, Op: op, Key: key, Start: start, End: NowMicros()})
	}
}

// header is the Temporal header that holds a traced call's link.
const header = "sfbench-trace"

// Propagator carries a Link from the gateway's context into the workflow's
// and from the workflow's into its activities'.
type Propagator struct{}

var _ workflow.ContextPropagator = Propagator{}

func put(hw workflow.HeaderWriter, l Link) error {
	p, err := converter.GetDefaultDataConverter().ToPayload(l)
	if err != nil {
		return err
	}
	hw.Set(header, p)
	return nil
}

func get(hr workflow.HeaderReader) (Link, bool, error) {
	p, ok := hr.Get(header)
	if !ok {
		return Link{}, false, nil
	}
	var l Link
	if err := converter.GetDefaultDataConverter().FromPayload(p, &l); err != nil {
		return Link{}, false, err
	}
	return l, true, nil
}

func (Propagator) Inject(ctx context.Context, hw workflow.HeaderWriter) error {
	if l, ok := LinkOf(ctx); ok {
		return put(hw, l)
	}
	return nil
}

func (Propagator) Extract(ctx context.Context, hr workflow.HeaderReader) (context.Context, error) {
	l, ok, err := get(hr)
	if err != nil || !ok {
		return ctx, err
	}
	return WithLink(ctx, l), nil
}

func (Propagator) InjectFromWorkflow(ctx workflow.Context, hw workflow.HeaderWriter) error {
	if l, ok := ctx.Value(linkKey{}).(Link); ok {
		return put(hw, l)
	}
	return nil
}

func (Propagator) ExtractToWorkflow(ctx workflow.Context, hr workflow.HeaderReader) (workflow.Context, error) {
	l, ok, err := get(hr)
	if err != nil || !ok {
		return ctx, err
	}
	return workflow.WithValue(ctx, linkKey{}, l), nil
}
