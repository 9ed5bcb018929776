package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"filebridge/internal/journal/pgtest"
)

func TestStartServesQueries(t *testing.T) {
	c := pgtest.Start(t)
	ctx := t.Context()
	for _, url := range []string{c.URL, c.Database(t, "second")} {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("connecting to %s: %v", url, err)
		}
		var got int
		if err := conn.QueryRow(ctx, "select 40 + $1::int", 2).Scan(&got); err != nil {
			t.Fatalf("query: %v", err)
		}
		if got != 42 {
			t.Errorf("got %d, want 42", got)
		}
		_ = conn.Close(context.Background())
	}
}
