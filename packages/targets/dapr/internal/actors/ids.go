package actors

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// ActorID is the Dapr actor id of entity id. Entity ids are any 1-128
// characters but NUL; Dapr puts actor ids into URL paths (the sidecar calls
// PUT /actors/<type>/<id>/method/... on the app) and into state keys joined
// with "||", so an id made only of [A-Za-z0-9._-] (every UUID) is used as it
// is and any other becomes "~" and its UTF-8 bytes in hex ("~" never occurs
// in a plain id, so the two forms cannot collide).
func ActorID(id string) string {
	for i := 0; i < len(id); i++ {
		if !plain(id[i]) {
			return "~" + hex.EncodeToString([]byte(id))
		}
	}
	return id
}

// EntityID inverts ActorID.
func EntityID(actorID string) string {
	if rest, ok := strings.CutPrefix(actorID, "~"); ok {
		if raw, err := hex.DecodeString(rest); err == nil {
			return string(raw)
		}
	}
	return actorID
}

func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// NewOrderID is a random UUID (version 4).
func NewOrderID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
