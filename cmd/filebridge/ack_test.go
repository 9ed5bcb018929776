package main

import (
	"strings"
	"testing"
)

// TestAckCommand: ack resolves a failed file by hand (the OS user and the
// note recorded); it leaves files --state failed, which --all shows again;
// show says by whom; a second ack, a file that did not fail and an
// unknown file are refused.
func TestAckCommand(t *testing.T) {
	cfg := journalEnv(t)
	if out := mustRunOn(t, cfg, newFilesCmd(), "--state", "failed"); !strings.Contains(out, "REASON") ||
		!strings.Contains(out, "2 of 2 document(s) failed (1 invalid") || !strings.Contains(out, "1 of 1 files") {
		t.Errorf("files --state failed before ack: want SUPPLIERS_BAD.csv with its reason:\n%s", out)
	}
	// Its rows are invalid in the file: show says what to do instead of a replay.
	if out := mustRunOn(t, cfg, newShowCmd(), "SUPPLIERS_BAD.csv"); !strings.Contains(out, "open        the file failed in itself: fix the file and drop it again") {
		t.Errorf("show of an open failure that failed in itself:\n%s", out)
	}
	out := mustRunOn(t, cfg, newAckCmd(), "--note", "entered on the portal by hand", "SUPPLIERS_BAD.csv")
	who := osUser()
	if !strings.Contains(out, "#2 SUPPLIERS_BAD.csv: resolved, acknowledged by "+who+" at ") || !strings.Contains(out, ": entered on the portal by hand") {
		t.Errorf("ack output:\n%s", out)
	}
	if out := mustRunOn(t, cfg, newFilesCmd(), "--state", "failed"); !strings.Contains(out, "no file matches") {
		t.Errorf("files --state failed after ack:\n%s", out)
	}
	if out := mustRunOn(t, cfg, newFilesCmd(), "--state", "failed", "--all"); !strings.Contains(out, "SUPPLIERS_BAD.csv") || !strings.Contains(out, "failed (resolved)") {
		t.Errorf("files --state failed --all:\n%s", out)
	}
	if out := mustRunOn(t, cfg, newFilesCmd(), "--state", "failed", "--all", "--format", "json"); !strings.Contains(out, `"resolved": {`) ||
		!strings.Contains(out, `"by": "acknowledged"`) || !strings.Contains(out, `"note": "entered on the portal by hand"`) {
		t.Errorf("files --format json lacks the resolution:\n%s", out)
	}
	if out := mustRunOn(t, cfg, newShowCmd(), "SUPPLIERS_BAD.csv"); !strings.Contains(out, "resolved    acknowledged by "+who+" at ") {
		t.Errorf("show after ack:\n%s", out)
	}
	for _, tc := range []struct {
		ref, want string
		code      int
	}{
		{"SUPPLIERS_BAD.csv", "the failure is resolved already: acknowledged by " + who, exitInvalid},
		{"SUPPLIERS_1.csv", "the file did not fail (it is done)", exitInvalid},
		{"NOPE.csv", "not found", exitUsage},
	} {
		if out, code := runOn(t, cfg, newAckCmd(), tc.ref); code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("ack %s: exit %d, want %d and %q:\n%s", tc.ref, code, tc.code, tc.want, out)
		}
	}
}
