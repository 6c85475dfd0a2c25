package gotest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sfbench/sfbench/packages/targets/protoactor-go/internal/gateway"
)

func serve(t *testing.T, s *gateway.Server, method, path string) (int, map[string]string) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s %s: body %q is not a JSON object: %v", method, path, rec.Body.String(), err)
	}
	return rec.Code, body
}

func TestEveryRouteAnswers503StartingUntilTheClusterIsReady(t *testing.T) {
	s := gateway.New()
	s.SetWaiting("1 of 2 cluster members joined")
	code, body := serve(t, s, "GET", "/health")
	if code != http.StatusServiceUnavailable || body["error"] != "starting" || body["message"] != "1 of 2 cluster members joined" {
		t.Fatalf("GET /health = %d %v", code, body)
	}
	if code, body = serve(t, s, "POST", "/shopping-carts"); code != http.StatusServiceUnavailable || body["error"] != "starting" {
		t.Fatalf("POST /shopping-carts = %d %v", code, body)
	}
}

func TestUnknownRoutesAndMethodsAnswerJSONErrors(t *testing.T) {
	s := gateway.New()
	if code, body := serve(t, s, "GET", "/nothing/here"); code != http.StatusNotFound || body["error"] != "not-found" {
		t.Fatalf("GET /nothing/here = %d %v", code, body)
	}
	if code, body := serve(t, s, "DELETE", "/products/p1"); code != http.StatusMethodNotAllowed || body["message"] == "" {
		t.Fatalf("DELETE /products/p1 = %d %v", code, body)
	}
}
