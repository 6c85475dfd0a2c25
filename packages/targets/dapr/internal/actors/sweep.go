package actors

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// SettleInterrupted finds every cart with an unfinished checkout (a "pending"
// key in the actor state table) and asks each to settle it: a node killed in
// the middle of a checkout leaves its cart with stock or credits taken and no
// order, and nothing else would ever activate that cart again. Dapr offers no
// query over actor state, so this reads the PostgreSQL state store's table
// directly (keys are "<app id>||<actor type>||<actor id>||<key>"). Settling
// runs in the cart's own turn, so a checkout still in progress elsewhere is
// simply waited for. Answers how many carts were settled.
func (rt *Runtime) SettleInterrupted(ctx context.Context, databaseURL, table, appID string) (int, error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	prefix := appID + "||" + KindCart + "||"
	suffix := "||" + PendingKey
	rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT key FROM %s WHERE key LIKE $1`, pgx.Identifier{table}.Sanitize()), prefix+"%"+suffix)
	if err != nil {
		return 0, err
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, err
	}
	settled := 0
	for _, key := range keys {
		actorID := strings.TrimSuffix(strings.TrimPrefix(key, prefix), suffix)
		r := rt.must(KindCart, EntityID(actorID), &Call{Op: "settle"})
		if r.Status != 0 {
			return settled, fmt.Errorf("cart %s: %s", EntityID(actorID), r.Message)
		}
		settled++
	}
	return settled, nil
}
