package samples_test

import (
	"io/fs"
	"strings"
	"testing"

	"filebridge"
	"filebridge/internal/model"
	"filebridge/internal/samples"
)

// TestSamplesTOMLHasRoutes: samples/samples.toml carries the same routes,
// in the inbox of each edition.
func TestSamplesTOMLHasRoutes(t *testing.T) {
	data, err := fs.ReadFile(filebridge.Samples, "samples/samples.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range model.Editions {
		t.Run(string(e), func(t *testing.T) {
			r := samples.Routes(e)
			if !strings.Contains(r, "[[inboxes.routes]]") {
				t.Fatalf("no routes for edition %s: %q", e, r)
			}
			inbox := `url = "` + string(e) + `"` + "\n" + r
			if !strings.Contains(string(data), inbox) {
				t.Errorf("samples/samples.toml has not the routes of edition %s after its url:\n%s", e, r)
			}
		})
	}
}
