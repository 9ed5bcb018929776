package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestValidateOnline looks a receptions file's codes up on the simulator:
// the unknown SKU and supplier are reported at their rows, nothing is
// created, and a file whose codes all exist passes.
func TestValidateOnline(t *testing.T) {
	sim, cfg, put := masterDataEnv(t, "")
	bad := put("RECEPTIONS_BAD.csv", recHeader+
		"R-1,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-1,10\n"+
		"R-1,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,2,SKU-2,5\n"+
		"R-2,3,SUP-Z,CONT40HC,2026-03-16T07:00:00Z,1,SKU-1,5\n")
	good := put("RECEPTIONS_OK.csv", recHeader+"R-3,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-1,10\n")
	before := sim.Stats().Counts
	out, code := runValidateCmd(t, "--online", "--config", cfg, "--inbox", "erp", bad)
	if code != exitInvalid {
		t.Errorf("unknown codes: exit %d, want %d:\n%s", code, exitInvalid, out)
	}
	for _, want := range []string{
		`line 2  sku           "SKU-2"  SKU "SKU-2" is not on portal main: create it there first`,
		`line 4  supplierCode  "SUP-Z"  supplier "SUP-Z" is not on portal main`,
		"2 codes not on the portal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"SKU-1"`) || strings.Contains(out, `"SUP-A"`) {
		t.Errorf("known codes reported:\n%s", out)
	}
	if out, code := runValidateCmd(t, "--online", "--config", cfg, "--inbox", "erp", good); code != exitOK {
		t.Errorf("known codes: exit %d:\n%s", code, out)
	}
	if after := sim.Stats().Counts; !reflect.DeepEqual(before, after) {
		t.Errorf("validate --online changed the portal: %v, then %v", before, after)
	}
	if _, code := runValidateCmd(t, "--online", "--edition", "A", good); code != exitUsage {
		t.Errorf("--online without --config: exit %d", code)
	}
	// Offline the same file passes: only the portal knows the codes.
	if out, code := runValidateCmd(t, "--config", cfg, "--inbox", "erp", bad); code != exitOK {
		t.Errorf("offline: exit %d:\n%s", code, out)
	}
}
