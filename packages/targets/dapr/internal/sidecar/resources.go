package sidecar

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The names the app and the sidecar share.
const (
	// AppID is the Dapr app id of every node: one app hosting every actor type, in n replicas.
	AppID = "sfbench-dapr"
	// StateStore is the component that holds actor state.
	StateStore = "actorstate"
	// StateTablePrefix names the PostgreSQL state store v2's tables; its state
	// table is the prefix and "state". Not v1's table name: v1's table has other
	// columns, and v2 would take an existing one for its own (its migration
	// creates the table only if none exists) and fail on every statement.
	StateTablePrefix = "dapr_actor_v2_"
	// StateTable is the table the state store keeps every actor's state in.
	StateTable = StateTablePrefix + "state"
	// MetadataTable is the state store's own bookkeeping table.
	MetadataTable = "dapr_metadata"
)

// yamlString quotes s for YAML (a double-quoted scalar takes JSON's escapes).
func yamlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// component is the actor state store: Dapr's PostgreSQL state store v2, the
// version Dapr's component reference asks new applications to use, on the
// target's own PostgreSQL, flagged as the actor state store. Every actor state
// transaction is one PostgreSQL transaction, committed before the sidecar
// answers the app. No state carries a TTL, so the hourly sweep for expired rows
// is off, as the reference advises for such stores.
func component(databaseURL string) string {
	return `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: ` + StateStore + `
spec:
  type: state.postgresql
  version: v2
  metadata:
    - name: connectionString
      value: ` + yamlString(databaseURL) + `
    - name: actorStateStore
      value: "true"
    - name: tablePrefix
      value: ` + StateTablePrefix + `
    - name: metadataTableName
      value: ` + MetadataTable + `
    - name: cleanupInterval
      value: "0"
`
}

// configuration turns off what would reach outside the machine or cost time
// per call: tracing exporters (sampling 0), metrics, and mTLS (no Sentry
// runs; every hop is on loopback).
const configuration = `apiVersion: dapr.io/v1alpha1
kind: Configuration
metadata:
  name: sfbench
spec:
  tracing:
    samplingRate: "0"
  metric:
    enabled: false
  mtls:
    enabled: false
`

// WriteResources writes the components folder and the configuration file
// into dir and answers their paths.
func WriteResources(dir, databaseURL string) (resources, config string, err error) {
	resources = filepath.Join(dir, "dapr-resources")
	if err := os.MkdirAll(resources, 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(resources, "actorstate.yaml"), []byte(component(databaseURL)), 0o600); err != nil {
		return "", "", err
	}
	config = filepath.Join(dir, "dapr-config.yaml")
	if err := os.WriteFile(config, []byte(configuration), 0o644); err != nil {
		return "", "", err
	}
	return resources, config, nil
}
