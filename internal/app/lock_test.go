package app_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"filebridge/internal/app"
)

// TestOneOwnerPerJournal: a second daemon on the same journal is refused
// (an UnreachableError naming this process's PID); once the first is
// closed, it opens.
func TestOneOwnerPerJournal(t *testing.T) {
	cfg := setup(t, "in #1", "out #1")
	ctx := context.Background()
	first, err := app.Open(ctx, cfg, discard(), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = app.Open(ctx, cfg, discard(), app.Options{})
	if err == nil || !app.IsUnreachable(err) || !strings.Contains(err.Error(), "PID "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second daemon: got %v, want an unreachable error naming PID %d", err, os.Getpid())
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := app.Open(ctx, cfg, discard(), app.Options{})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	if err := second.Close(); err != nil {
		t.Fatal(err)
	}
}
