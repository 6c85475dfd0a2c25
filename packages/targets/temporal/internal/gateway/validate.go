package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The limits of SPEC 2 (the same as @sfbench/core's api.ts).
const (
	maxInt      = math.MaxInt32
	maxIDLength = 128
	freqTopMin  = 1
	freqTopMax  = 100
	freqTopDef  = 3
	freqDepMin  = 1
	freqDepMax  = 20
	freqDepDef  = 1
)

// badRequest is a 400 whose message names the field and what is allowed.
type badRequest struct{ msg string }

func (b badRequest) Error() string { return b.msg }

func bad(format string, args ...any) error { return badRequest{fmt.Sprintf(format, args...)} }

// object parses a JSON object body. An empty body is {} when every field is optional.
func object(body []byte, optional bool) (map[string]json.RawMessage, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return map[string]json.RawMessage{}, nil
		}
		return nil, bad("body: a JSON object is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, bad("body: malformed JSON: %v", err)
	}
	if dec.More() {
		return nil, bad("body: malformed JSON: data after the value")
	}
	if _, ok := raw.(map[string]any); !ok {
		return nil, bad("body: must be a JSON object, got %s", jsonType(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, bad("body: %v", err)
	}
	return fields, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "an object"
}

// intField reads an integer field in [min, 2^31-1]; present is false when the field is absent.
func intField(fields map[string]json.RawMessage, name string, min int64, required bool) (value int64, present bool, err error) {
	raw, ok := fields[name]
	if !ok {
		if required {
			return 0, false, bad("%s: required, an integer from %d to %d", name, min, maxInt)
		}
		return 0, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return 0, false, bad("%s: %v", name, err)
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, false, bad("%s: must be an integer from %d to %d, got %s", name, min, maxInt, jsonType(v))
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, false, bad("%s: must be an integer from %d to %d, got %s", name, min, maxInt, n)
	}
	if f < float64(min) || f > maxInt {
		return 0, false, bad("%s: must be an integer from %d to %d, got %s", name, min, maxInt, n)
	}
	return int64(f), true, nil
}

// checkID: 1-128 characters (UTF-16 code units, as in the TypeScript schemas), no NUL.
func checkID(field, id string) error {
	if id == "" {
		return bad("%s: must be 1-%d characters", field, maxIDLength)
	}
	if n := len(utf16.Encode([]rune(id))); n > maxIDLength {
		return bad("%s: must be at most %d characters, got %d", field, maxIDLength, n)
	}
	if strings.ContainsRune(id, 0) {
		return bad("%s: must not contain NUL (U+0000) characters", field)
	}
	return nil
}

func idField(fields map[string]json.RawMessage, name string) (string, error) {
	raw, ok := fields[name]
	if !ok {
		return "", bad("%s: required, a string id of 1-%d characters", name, maxIDLength)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var v any
		_ = json.Unmarshal(raw, &v)
		return "", bad("%s: must be a string id of 1-%d characters, got %s", name, maxIDLength, jsonType(v))
	}
	return s, checkID(name, s)
}

// queryInt reads ?name= as an integer in [min, max] (default when absent).
func queryInt(values map[string][]string, name string, min, max, def int) (int, error) {
	vs, ok := values[name]
	if !ok || len(vs) == 0 {
		return def, nil
	}
	s := strings.TrimSpace(vs[0])
	f, err := strconv.ParseFloat(s, 64)
	if s == "" || err != nil || f != math.Trunc(f) || f < float64(min) || f > float64(max) {
		return 0, bad("%s: must be an integer from %d to %d, got %q", name, min, max, vs[0])
	}
	return int(f), nil
}
