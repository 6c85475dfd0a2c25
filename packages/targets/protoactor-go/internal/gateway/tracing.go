package gateway

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
)

// traceparent is a W3C traceparent: version 00, trace id, parent span id, flags.
var traceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$`)

// SampledTraceparent is core's sampledTraceparent (SPEC 3): the trace id and
// parent span id of a valid traceparent whose flags (hex) have the sampled
// bit, bit 0, set. The workload sets it only in a run's traced phase; for a
// missing, invalid or unsampled traceparent ok is false, and the request
// writes no span and carries no trace into its grain calls, so the phases that
// rank a traced target (the knee search, the stable phase) cost it only
// reading this header.
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

// gatewaySpan is the open gateway span of one traced request.
type gatewaySpan struct {
	TraceID  string
	SpanID   string
	ParentID string
	Start    int64
}

// startSpan opens a gateway span when tracing is on and the request's
// traceparent is sampled; nil otherwise, and then the request's calls carry no
// trace either (server.go).
func (s *Server) startSpan(req *http.Request) *gatewaySpan {
	if s.rt.Spans == nil {
		return nil
	}
	traceID, parentID, ok := SampledTraceparent(req.Header.Get("traceparent"))
	if !ok {
		return nil
	}
	return &gatewaySpan{TraceID: traceID, ParentID: parentID, SpanID: grains.NewSpanID(), Start: grains.NowMicros()}
}

func (s *Server) endSpan(g *gatewaySpan, entity, op, key string) {
	s.rt.Spans.Write(grains.Span{TraceID: g.TraceID, SpanID: g.SpanID, ParentID: g.ParentID, Kind: "gateway",
		Entity: entity, Op: op, Key: key, Start: g.Start, End: grains.NowMicros()})
}
