package actors

import (
	"encoding/json"
	"net/http"
	"strings"

	daprhttp "github.com/dapr/go-sdk/service/http"
	"github.com/go-chi/chi/v5"
)

// reentrancyDepth bounds how many calls of one reentrancy chain may be inside
// one micro actor at once: a big entity receives from every other sender
// (bigWindow each) while it sends; daprd's default of 32 is too few for that.
const reentrancyDepth = 1_000_000

// appConfig is what the app answers daprd's GET /dapr/config with: the actor
// types it hosts, and reentrancy for the micro type only (its calls carry an
// explicit chain id; a call without one gets a fresh id from daprd, so the shop
// actors stay strictly one call at a time). The Go SDK's own answer has no
// reentrancy setting, so the app serves this route itself.
func appConfig() []byte {
	depth := reentrancyDepth
	raw, _ := json.Marshal(map[string]any{
		"entities":                []string{KindProduct, KindUser, KindCart, KindOrder, KindMicro},
		"actorIdleTimeout":        "10m",
		"drainOngoingCallTimeout": "30s",
		"drainRebalancedActors":   true,
		"entitiesConfig": []map[string]any{{
			"entities":   []string{KindMicro},
			"reentrancy": map[string]any{"enabled": true, "maxStackDepth": depth},
		}},
	})
	return raw
}

// Serve hosts the actors on addr (the app port daprd calls) with the Go SDK's
// HTTP service; it answers once the listener is being opened, and errors
// arrive on the channel.
func (rt *Runtime) Serve(addr string) (stop func() error, errs <-chan error) {
	cfg := appConfig()
	mux := chi.NewRouter()
	// a middleware answers the route before the SDK's own handler (which Start registers) sees it
	mux.Use(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				// daprd deactivates an actor (idle, or moved to another node): DELETE /actors/<type>/<id>
				if parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/"); len(parts) == 3 && parts[0] == "actors" {
					rt.departed.add(parts[1], parts[2])
				}
			}
			if r.Method == http.MethodGet && r.URL.Path == "/dapr/config" {
				w.Header().Set("content-type", "application/json")
				_, _ = w.Write(cfg)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	s := daprhttp.NewServiceWithMux(addr, mux)
	for _, f := range rt.Factories() {
		s.RegisterActorImplFactoryContext(f)
	}
	ch := make(chan error, 1)
	go func() { ch <- s.Start() }()
	return s.GracefulStop, ch
}
