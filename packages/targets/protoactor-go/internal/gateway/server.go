// Package gateway is the HTTP front of the target: it validates SPEC 2
// requests, turns each into one grain call (or a freq-items traversal) and
// writes SPEC 3 gateway spans.
package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/grains"
)

const maxBody = 1 << 20

// Server serves the SPEC 2 routes over the grains of Runtime.
type Server struct {
	// rt is set by Attach before SetReady; no route reads it before then.
	rt *grains.Runtime
	// ready is set once the cluster has all its members and every grain kind answers.
	ready   atomic.Bool
	waiting atomic.Value // string: why /health is not 200 yet
}

// New answers 503 starting on every route until Attach and SetReady.
func New() *Server {
	s := &Server{}
	s.waiting.Store("the cluster is starting")
	return s
}

// Attach gives the server the grains of the local member.
func (s *Server) Attach(rt *grains.Runtime) { s.rt = rt }

// SetReady opens every route; until then they answer 503 starting.
func (s *Server) SetReady() { s.ready.Store(true) }

// SetWaiting records why the target is not ready yet (shown by /health).
func (s *Server) SetWaiting(why string) { s.waiting.Store(why) }

// request is what a handler gets: the path ids, the query, the body and the trace of the request.
type request struct {
	ids   []string
	query url.Values
	body  []byte
	trace *grains.TraceLink
}

type handler func(s *Server, r *request) (any, error)

type route struct {
	method  string
	pattern []string // "*" matches one id segment
	entity  string
	op      string
	h       handler
}

var routes = []route{
	{"POST", []string{"products"}, "product", "create", createProduct},
	{"PATCH", []string{"products", "*"}, "product", "upsert", patchProduct},
	{"GET", []string{"products", "*"}, "product", "get", getProduct},
	{"GET", []string{"products", "*", "freq-items"}, "product", "freqItems", freqItems},
	{"POST", []string{"users"}, "user", "create", createUser},
	{"GET", []string{"users", "*"}, "user", "get", getUser},
	{"PATCH", []string{"users", "*", "credits", "add"}, "user", "addCredits", addCredits},
	{"POST", []string{"shopping-carts"}, "cart", "create", createCart},
	{"GET", []string{"shopping-carts", "*"}, "cart", "get", getCart},
	{"POST", []string{"shopping-carts", "*", "products"}, "cart", "addItem", addToCart},
	{"POST", []string{"orders", "checkout"}, "order", "checkout", checkout},
	{"GET", []string{"orders", "*"}, "order", "get", getOrder},
	// SPEC 8 microbenchmarks (no SPEC 3 entity: their gateway spans name only the op)
	{"GET", []string{"micro", "empty"}, "", "micro.empty", microEmpty},
	{"GET", []string{"micro", "math"}, "", "micro.math", microMath},
	{"GET", []string{"micro", "sleep"}, "", "micro.sleep", microSleep},
	{"POST", []string{"micro", "io"}, "", "micro.io", microIO},
	{"POST", []string{"micro", "pingpong"}, "", "micro.pingpong", microPingpong},
	{"POST", []string{"micro", "divide"}, "", "micro.divide", microDivide},
	{"POST", []string{"micro", "big"}, "", "micro.big", microBig},
}

// match finds the route of a path; ids are the percent-decoded "*" segments.
func match(method string, segments []string) (r *route, ids []string, pathKnown bool) {
	for i := range routes {
		rt := &routes[i]
		if len(rt.pattern) != len(segments) {
			continue
		}
		var got []string
		ok := true
		for j, p := range rt.pattern {
			if p == "*" {
				got = append(got, segments[j])
			} else if p != segments[j] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		pathKnown = true
		if rt.method == method {
			return rt, got, true
		}
	}
	return nil, nil, pathKnown
}

func (s *Server) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	raw := req.URL.EscapedPath()
	if raw == "/health" && req.Method == http.MethodGet {
		if s.ready.Load() {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		} else {
			writeError(w, http.StatusServiceUnavailable, "starting", s.waiting.Load().(string))
		}
		return
	}
	var segments []string
	for _, seg := range strings.Split(strings.Trim(raw, "/"), "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			writeError(w, http.StatusBadRequest, "bad-request", "path: bad percent-encoding in "+seg)
			return
		}
		segments = append(segments, dec)
	}
	rt, ids, known := match(req.Method, segments)
	if rt == nil {
		if known {
			writeError(w, http.StatusMethodNotAllowed, "method-not-allowed", req.Method+" "+raw+": no such route")
		} else {
			writeError(w, http.StatusNotFound, "not-found", req.Method+" "+raw+": no such route")
		}
		return
	}
	if !s.ready.Load() {
		writeError(w, http.StatusServiceUnavailable, "starting", s.waiting.Load().(string))
		return
	}
	gw := s.startSpan(req)
	for _, id := range ids {
		if err := checkID("id", id); err != nil {
			writeError(w, http.StatusBadRequest, "bad-request", err.Error())
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "payload-too-large", "body: at most 1 MiB")
		} else {
			writeError(w, http.StatusBadRequest, "bad-request", "body: "+err.Error())
		}
		return
	}
	r := &request{ids: ids, query: req.URL.Query(), body: body}
	// an unsampled request (gw nil) passes no trace on: its calls write no spans
	if gw != nil {
		r.trace = &grains.TraceLink{TraceID: gw.TraceID, ParentID: gw.SpanID}
	}
	out, err := rt.h(s, r)
	if gw != nil {
		key := ""
		if len(ids) > 0 {
			key = ids[0]
		}
		s.endSpan(gw, rt.entity, rt.op, key)
	}
	if err != nil {
		var br badRequest
		var ge *grainError
		switch {
		case errors.As(err, &br):
			writeError(w, http.StatusBadRequest, "bad-request", br.msg)
		case errors.As(err, &ge):
			writeError(w, ge.reply.Status, ge.reply.Code, ge.reply.Message)
		case errors.Is(err, grains.ErrUnavailable):
			writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		default:
			writeError(w, http.StatusInternalServerError, "internal", err.Error())
		}
		return
	}
	if out == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		status, raw = http.StatusInternalServerError, []byte(`{"error":"internal","message":"answer cannot be encoded"}`)
	}
	w.Header().Set("content-type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]string{"error": code, "message": message})
}
