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
	// StateTable is the table the PostgreSQL state store keeps every actor's state in.
	StateTable = "dapr_actor_state"
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

// component is the actor state store: Dapr's PostgreSQL state store (v1, the
// stable one) on the target's own PostgreSQL, flagged as the actor state store.
// Every actor state transaction is one PostgreSQL transaction, committed before
// the sidecar answers the app.
func component(databaseURL string) string {
	return `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: ` + StateStore + `
spec:
  type: state.postgresql
  version: v1
  metadata:
    - name: connectionString
      value: ` + yamlString(databaseURL) + `
    - name: actorStateStore
      value: "true"
    - name: tableName
      value: ` + StateTable + `
    - name: metadataTableName
      value: ` + MetadataTable + `
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
