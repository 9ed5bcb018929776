package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/testkit"
)

// TestFailuresWorkQueue is the clerk's day two on the built binary: an
// order file fails for a SKU the portal lacks; it is in the Failed list
// and in files --state failed; the clerk adds the SKU on the portal and
// replays the file; the replay succeeds, the failure leaves the Failed
// list and files --state failed, and once error_retention (3s here) is
// over its files leave error/ for error/resolved/YYYY/MM/. Every order is
// created once.
func TestFailuresWorkQueue(t *testing.T) {
	s, dir, in := simAndInbox(t, "A")
	listen := testkit.FreeAddr(t)
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: in, extra: "hold_missing = \"0\"\nerror_retention = \"3s\""})
	d := start(t, "run", "run", "--config", cfg)
	base := "http://" + listen
	waitFor(t, 20*time.Second, "the console to answer", func() bool {
		_, _, err := get(base + "/healthz")
		return err == nil
	})
	processed, errDir := filepath.Join(in, "processed"), filepath.Join(in, "error")
	drop := func(name, content string) { writeAtomic(t, filepath.Join(in, name), []byte(content)) }
	drop("SUPPLIERS_20260301.csv", "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n")
	waitFor(t, 30*time.Second, "the suppliers file processed", func() bool { return has(files(t, processed), "SUPPLIERS_20260301.csv") })
	const skuHeader = "sku,name,description1,ean,eanBox,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"
	drop("SKU_20260301.csv", skuHeader+"SKU-1,Chair,Oak chair,7350123100419,17350123100416,2,47,53,89,6.8,14.4,79.00,SUP-A\n")
	waitFor(t, 30*time.Second, "the SKU file processed", func() bool { return has(files(t, processed), "SKU_20260301.csv") })

	// An order file: SO-1 is fine, SO-2 names SKU-2, not on the portal.
	const orders = "ORDERS_20260401.csv"
	const orderHeader = "orderNumber,externalOrderNumber,deliveryMode,warehouseLocation,shipTo.title,shipTo.firstName,shipTo.lastName,shipTo.streetAddress,shipTo.streetAddress2,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,shipTo.phone,shipTo.languageCode,shipTo.attributes.accessCode,shipTo.attributes.floor,shipTo.attributes.building,shipTo.attributes.company,position,sku,quantity,serviceType,purchaseOrderLineItem.orderNumber,purchaseOrderLineItem.position\n"
	drop(orders, orderHeader+
		"SO-1,WEB-1,MOUNTING,3,Mme,Jeanne,Martin,12 rue des Lilas,,69003,Lyon,FR,jeanne.martin@example.org,+33 6 12 34 56 78,fr,4521,3,B,,1,SKU-1,4,,,\n"+
		"SO-2,WEB-2,MOUNTING,3,M.,Paul,Durand,3 rue Neuve,,69002,Lyon,FR,paul.durand@example.org,+33 6 98 76 54 32,fr,,,,,1,SKU-2,1,,,\n")
	waitFor(t, 30*time.Second, "the order file failed", func() bool { return has(files(t, errDir), orders) })

	failedList := func() string {
		t.Helper()
		out, code := runCmd(t, 30*time.Second, "files", "--config", cfg, "--state", "failed")
		if code != 0 {
			t.Fatalf("files --state failed: exit %d\n%s", code, out)
		}
		return out
	}
	consoleFailed := func() string {
		t.Helper()
		code, body, err := get(base + "/files?state=failed")
		if err != nil || code != 200 {
			t.Fatalf("GET /files?state=failed: %d, %v", code, err)
		}
		return body
	}
	if out := failedList(); !strings.Contains(out, orders) || !strings.Contains(out, "REASON") {
		t.Fatalf("files --state failed lacks the failed order file:\n%s", out)
	}
	if body := consoleFailed(); !strings.Contains(body, orders) || !strings.Contains(body, `SKU-2`) {
		t.Fatalf("the console's Failed list lacks the order file and its reason:\n%s", body)
	}

	// The clerk adds SKU-2 on the portal and replays the file.
	createVariant(t, s, "SKU-2")
	if out, code := runCmd(t, 30*time.Second, "replay", "--config", cfg, orders); code != 0 || !strings.Contains(out, "the running filebridge picks it up") {
		t.Fatalf("replay: exit %d\n%s", code, out)
	}
	waitFor(t, 30*time.Second, "the replay processed", func() bool {
		return len(files(t, processed)) == 4 // suppliers, SKU, each with its report... and the replay
	})
	waitFor(t, 30*time.Second, "the failure to leave files --state failed", func() bool { return strings.Contains(failedList(), "no file matches") })
	if body := consoleFailed(); strings.Contains(body, orders) {
		t.Errorf("the console's Failed list still lists the resolved order file:\n%s", body)
	}
	if out, _ := runCmd(t, 30*time.Second, "show", "--config", cfg, "3"); !strings.Contains(out, "resolved    by replay #") {
		t.Errorf("show of the failed run lacks its resolution:\n%s", out)
	}
	// error_retention: out of error/, into error/resolved/YYYY/MM/.
	waitFor(t, 30*time.Second, "the resolved failure's files to leave error/", func() bool {
		for _, p := range files(t, errDir) {
			if !strings.HasPrefix(p, "resolved/") {
				return false
			}
		}
		return true
	})
	month := time.Now().Format("2006/01")
	// Named after the failed run's id (#3): unique whatever the names.
	if got := files(t, errDir); !has(got, "resolved/"+month+"/3-"+orders) || !has(got, "resolved/"+month+"/3-ORDERS_20260401.report.csv") {
		t.Errorf("error/ = %q, want the order file and its report under resolved/%s/ as 3-NAME", got, month)
	}
	if out, _ := runCmd(t, 30*time.Second, "show", "--config", cfg, "3"); !strings.Contains(out, filepath.Join("error", "resolved", filepath.FromSlash(month), "3-"+orders)) {
		t.Errorf("show does not point at the moved file:\n%s", out)
	}
	st := s.stats(t)
	if st.RepeatedCreates != 0 || st.Counts["sales_orders"] != 2 {
		t.Errorf("simulator: %d repeated creates, %d orders; want 0 and 2 (SO-1 once, SO-2)", st.RepeatedCreates, st.Counts["sales_orders"])
	}
	d.stopOK(t, "run")
}
