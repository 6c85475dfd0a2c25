package gateway

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/sfbench/sfbench/packages/targets/dapr/internal/actors"
)

var traceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$`)

// gatewaySpan is the open gateway span of one traced request.
type gatewaySpan struct {
	TraceID  string
	SpanID   string
	ParentID string
	Start    int64
}

// startSpan opens a gateway span when tracing is on and the request carries a valid traceparent.
func (s *Server) startSpan(req *http.Request) *gatewaySpan {
	if s.rt.Spans == nil {
		return nil
	}
	m := traceparent.FindStringSubmatch(strings.TrimSpace(req.Header.Get("traceparent")))
	if m == nil {
		return nil
	}
	return &gatewaySpan{TraceID: m[1], ParentID: m[2], SpanID: actors.NewSpanID(), Start: actors.NowMicros()}
}

func (s *Server) endSpan(g *gatewaySpan, entity, op, key string) {
	s.rt.Spans.Write(actors.Span{TraceID: g.TraceID, SpanID: g.SpanID, ParentID: g.ParentID, Kind: "gateway",
		Entity: entity, Op: op, Key: key, Start: g.Start, End: actors.NowMicros()})
}
