package grains

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// TraceLink is the trace context a call carries: the W3C trace id and the span that made the call.
// Only calls of a sampled request carry one (SPEC 3); the others leave Call.Trace nil, so it is
// left out of the message and the grain that runs the call writes no span and passes none on.
type TraceLink struct {
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

// SpanWriter buffers span lines and writes whole lines in one write every few
// milliseconds (or every 64 KiB), so that members sharing one stdout never
// interleave half lines and a traced request costs an append, not a syscall.
type SpanWriter struct {
	mu  sync.Mutex
	buf []byte
	out io.Writer
}

// NewSpanWriter writes to out (the process's stdout) and flushes every 10 ms until the process ends.
func NewSpanWriter(out io.Writer) *SpanWriter {
	w := &SpanWriter{out: out}
	go func() {
		for range time.Tick(10 * time.Millisecond) {
			w.Flush()
		}
	}()
	return w
}

func (w *SpanWriter) Write(s Span) {
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

func (w *SpanWriter) Flush() {
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

// NewSpanID is a random 64-bit id as 16 hex digits.
func NewSpanID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
