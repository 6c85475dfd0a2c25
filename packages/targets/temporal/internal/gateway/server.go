// Package gateway is the HTTP front of the target: it validates SPEC 2
// requests; single-entity routes are statements over the store, the
// checkout and the microbenchmarks are Temporal workflows it starts and
// waits for.
package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"go.temporal.io/sdk/client"

	"github.com/sfbench/sfbench/packages/targets/temporal/internal/store"
	"github.com/sfbench/sfbench/packages/targets/temporal/internal/trace"
)

const maxBody = 1 << 20

// Server serves the SPEC 2 and SPEC 8 routes.
type Server struct {
	// store and temporal are set by Attach before SetReady; no route reads them before then.
	store    *store.Store
	temporal client.Client
	ready    atomic.Bool
	waiting  atomic.Value // string: why /health is not 200 yet
	// Logf reports what failed off the request path (a co-purchase start).
	Logf func(format string, args ...any)
	// Spans gets the gateway span of every sampled request (nil: tracing off).
	Spans *trace.Writer
	// coPurchases holds the orders whose co-purchase start the server accepted
	// in this process (order id -> time.Time of the start), so that the sweep
	// starts only what never reached the server.
	coPurchases sync.Map
}

// New answers 503 starting on every route until Attach and SetReady.
func New() *Server {
	s := &Server{Logf: func(string, ...any) {}}
	s.waiting.Store("the Temporal server is starting")
	return s
}

// Attach gives the server the store and the Temporal client.
func (s *Server) Attach(st *store.Store, c client.Client) { s.store, s.temporal = st, c }

// SetReady opens every route; until then they answer 503 starting.
func (s *Server) SetReady() { s.ready.Store(true) }

// SetWaiting records why the target is not ready yet (shown by /health).
func (s *Server) SetWaiting(why string) { s.waiting.Store(why) }

// request is what a handler gets: the path ids, the query and the body.
type request struct {
	http  *http.Request
	ids   []string
	query url.Values
	body  []byte
	// link is the trace a sampled request's workflow carries (nil: none)
	link *trace.Link
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
	// an unsampled request (or spans off) opens no span and passes no trace on
	var gw *trace.Span
	if s.Spans != nil {
		if traceID, parentID, ok := trace.SampledTraceparent(req.Header.Get("traceparent")); ok {
			gw = &trace.Span{TraceID: traceID, SpanID: trace.NewSpanID(), ParentID: parentID, Kind: "gateway",
				Entity: rt.entity, Op: rt.op, Start: trace.NowMicros()}
			if len(ids) > 0 {
				gw.Key = ids[0]
			}
		}
	}
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
	r := &request{http: req, ids: ids, query: req.URL.Query(), body: body}
	if gw != nil {
		r.link = &trace.Link{TraceID: gw.TraceID, ParentID: gw.SpanID}
	}
	out, err := rt.h(s, r)
	if gw != nil {
		gw.End = trace.NowMicros()
		s.Spans.Write(*gw)
	}
	if err != nil {
		var br badRequest
		var f *store.Failure
		var u unavailable
		switch {
		case errors.As(err, &br):
			writeError(w, http.StatusBadRequest, "bad-request", br.msg)
		case errors.As(err, &f):
			writeError(w, f.Status, f.Code, f.Message)
		case errors.As(err, &u):
			writeError(w, http.StatusServiceUnavailable, "unavailable", u.Error())
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

// unavailable is a workflow that did not answer within its budget: 503.
type unavailable struct{ err error }

func (u unavailable) Error() string { return u.err.Error() }
func (u unavailable) Unwrap() error { return u.err }

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
