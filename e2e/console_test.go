package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"filebridge/internal/testkit"
)

// chromium finds the browser the console test drives. Outside CI a
// machine without it skips the test, saying so; in CI (.ci/run installs
// the Debian package) its absence fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed: .ci/run installs the Debian package chromium; the console's browser test needs it")
	}
	t.Skip("SKIPPED: chromium is not installed, so the web console was not tested in a browser (apt-get install chromium)")
	return ""
}

// TestConsoleInBrowser drives headless Chromium through the web console
// of the built binary against the simulator: it opens the dashboard, drops
// a receptions file naming a SKU the portal lacks, sees the file failed,
// opens its page, creates the SKU on the simulator, presses Replay, follows
// the link to the new run and sees it processed, each reception created
// once. Then the pages are opened on a
// phone-sized screen, where they must not scroll sideways.
// UPDATE_SCREENSHOT=1 copies the screenshot to docs/console.png.
func TestConsoleInBrowser(t *testing.T) {
	browser := chromium(t)
	s, dir, in := simAndInbox(t, "A")
	listen := testkit.FreeAddr(t)
	// hold_missing = "0": the missing SKU fails the file at once instead of
	// holding it until the master data comes (the clerk's replay is tested).
	// Inbox "wait" keeps the default hold_missing: its file naming a
	// missing SKU is held, and the dashboard lists it with the code.
	wait := mkdir(t, dir, "wait")
	cfg := runConfig(t, dir, s, listen, inboxSpec{name: "erp", url: in, extra: `hold_missing = "0"`}, inboxSpec{name: "wait", url: wait})
	d := start(t, "run", "run", "--config", cfg)
	base := "http://" + listen
	waitFor(t, 20*time.Second, "the console to answer", func() bool {
		_, _, err := get(base + "/healthz")
		return err == nil
	})
	processed := filepath.Join(in, "processed")
	drop := func(name, content string) {
		writeAtomic(t, filepath.Join(in, name), []byte(content))
	}
	// Master data first: the supplier and one of the two SKUs.
	drop("SUPPLIERS_20260301.csv", "code,name,relationship\nSUP-A,Supplier A,Manufacturer\n")
	waitFor(t, 30*time.Second, "the suppliers file processed", func() bool { return has(files(t, processed), "SUPPLIERS_20260301.csv") })
	const skuHeader = "sku,name,description1,ean,eanBox,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"
	drop("SKU_20260301.csv", skuHeader+"SKU-1,Chair,Oak chair,7350123100419,17350123100416,2,47,53,89,6.8,14.4,79.00,SUP-A\n")
	waitFor(t, 30*time.Second, "the SKU file processed", func() bool { return has(files(t, processed), "SKU_20260301.csv") })

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("browser: %s: %v\n--- daemon ---\n%s", what, err, tail(d.out.String(), 4000))
		}
	}
	text := func(what string, sel chromedp.CSS) string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("browser: %s: reading %s: %v", what, sel, err)
		}
		return got
	}
	location := func() string {
		t.Helper()
		u, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatalf("browser: reading the address: %v", err)
		}
		return u
	}
	// waitText reloads url until the element's text contains want.
	waitText := func(what, url string, sel chromedp.CSS, want string) string {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			do(what, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("main")))
			got := text(what, sel)
			if strings.Contains(got, want) {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s shows %q, want %q", what, url, got, want)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	// 1. The dashboard.
	do("opening the dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#inboxes")))
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || !strings.Contains(title, "Dashboard") || !strings.Contains(text("dashboard", "#inboxes"), "erp") {
		t.Fatalf("dashboard: title %q (%v)", title, err)
	}
	// The portal's concurrency: the limit its client runs at now beside
	// the configured 8.
	if p := text("dashboard portals", "#portals"); !strings.Contains(p, " / 8") {
		t.Errorf("dashboard: the portals table lacks the current limit beside the configured concurrency: %q", p)
	}
	// A file held for SKU-9 and an entry no route takes, in inbox "wait".
	const held = "RECEPTIONS_20260303.csv"
	writeAtomic(t, filepath.Join(wait, held), []byte("orderNumber,warehouseLocation,supplierCode,orderType,dueAt,position,sku,quantity\n"+
		"R-9,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-9,1\n"))
	writeAtomic(t, filepath.Join(wait, "notes.txt"), []byte("not for the portal\n"))
	// 2. A bad file: SKU-2 is not on the portal.
	const bad = "RECEPTIONS_20260302.csv"
	drop(bad, "orderNumber,warehouseLocation,supplierCode,orderType,dueAt,position,sku,quantity\n"+
		"R-1,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-1,10\n"+
		"R-2,3,SUP-A,CONT40HC,2026-03-16T07:00:00Z,1,SKU-2,5\n")
	// 3. It shows up failed.
	waitText("the failed file in the files table", base+"/files?state=failed", "#files", bad)
	// 4. Its page.
	do("opening the failed file's page",
		chromedp.Click(chromedp.Search(fmt.Sprintf(`//table[@id="files"]//a[text()=%q]`, bad))),
		chromedp.WaitVisible(chromedp.CSS("#state")))
	if state, docs := text("failed page", "#state"), text("failed page", "#documents"); state != "failed" || !strings.Contains(docs, `SKU "SKU-2" is not on the portal`) {
		t.Fatalf("the failed file's page: state %q, documents %q", state, docs)
	}
	failedURL := location()
	// 5. A clerk creates SKU-2 on the portal.
	createVariant(t, s, "SKU-2")
	// 6. Replay.
	do("pressing Replay", chromedp.Click(chromedp.CSS("#replay")), chromedp.WaitVisible(chromedp.CSS("p.note.ok")))
	if note := text("after Replay", "p.note.ok"); !strings.Contains(note, "Put back into the inbox as "+bad) {
		t.Fatalf("after Replay the page says %q", note)
	}
	// 7. The new run, linked from the original, ends processed.
	waitText("the replay claimed and linked from the original", failedURL, "dl.facts", "Replayed as\n#")
	do("following the replay link", chromedp.Click(chromedp.CSS("a.replay-link")), chromedp.WaitVisible(chromedp.CSS("#state")))
	replayURL := location()
	waitText("the replay processed", replayURL, "#state", "done")
	// Policy reject is all or nothing: the first run created neither
	// reception, so the replay creates both (TestReplayCommand covers a
	// replay that finds documents already created).
	if docs := text("the replay's documents", "#documents"); strings.Count(docs, "created") != 2 {
		t.Errorf("the replay's documents: %q, want R-1 and R-2 created", docs)
	}
	if n := s.stats(t).Counts["purchase_orders"]; n != 2 {
		t.Errorf("the portal holds %d receptions, want 2: R-1 and R-2 once each", n)
	}
	// The replay resolved the failure: the original says so, and the
	// Failed list (open failures) no longer holds it.
	waitText("the original resolved by its replay", failedURL, "#resolved", "by replay #")
	do("opening the Failed list", chromedp.Navigate(base+"/files?state=failed"), chromedp.WaitVisible(chromedp.CSS("#files")))
	if list := text("the Failed list", "#files"); strings.Contains(list, bad) {
		t.Errorf("the Failed list still holds the resolved %s: %q", bad, list)
	}

	// The held file: on the dashboard with the code it waits for, under
	// the held filter; the entry no route takes, listed with its reason.
	waitText("the held file on the dashboard", base+"/", "#held", `SKU "SKU-9"`)
	if ign := text("dashboard ignored", "#ignored"); !strings.Contains(ign, "notes.txt") {
		t.Errorf("the dashboard does not list notes.txt as ignored: %q", ign)
	}
	waitText("the held file under the held filter", base+"/files?state=held", "#files", held)

	// Numbers stand under their headers: the header of every column of
	// numbers is right-aligned as its cells are.
	for _, u := range []string{base + "/", base + "/files", failedURL} {
		do("opening "+u, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("main")))
		misaligned, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](numberHeaders))
		if err != nil || len(misaligned) > 0 {
			t.Errorf("%s: headers not aligned with their numbers: %q (%v)", u, misaligned, err)
		}
	}

	// Readable on a phone: at 390 and 420 px the pages do not scroll
	// sideways, and each table row is a card whose key cells (State,
	// Result, Message; on the dashboard Health and Last error) lie on the
	// screen.
	for _, width := range []int64{390, 420} {
		do("emulating a phone", chromedp.EmulateViewport(width, 844, chromedp.EmulateMobile, chromedp.EmulateScale(3)))
		for _, u := range []string{base + "/", base + "/files", failedURL, base + "/files?state=failed&resolved=1"} {
			do("opening "+u+" on a phone", chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("main")))
			widths, err := chromedp.Run(ctx, chromedp.Evaluate[[]int]("[window.innerWidth, document.documentElement.scrollWidth]"))
			if err != nil || len(widths) != 2 || int64(widths[0]) != width || widths[1] > widths[0] {
				t.Errorf("%s on a %d px screen: [viewport, page] widths %v (%v); the page must not scroll sideways", u, width, widths, err)
			}
			off, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](keyCellsOnScreen))
			if err != nil || len(off) == 0 || off[0] == "0" || len(off) > 1 {
				t.Errorf("%s on a %d px screen: key cells [count, off-screen...] %q (%v)", u, width, off, err)
			}
			if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
				// SCREENSHOT_DIR=/tmp/shots: each page at each width, to look at.
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
				if err == nil {
					name := strings.NewReplacer(base, "", "/", "-").Replace(u)
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("console-%d%s.png", width, name)), png, 0o644)
				}
			}
		}
	}
	do("back to a desktop window", chromedp.ResetViewport())

	// The screenshot for the README: the original run's page with its
	// errors and the link to its replay.
	do("opening the original run again", chromedp.Navigate(failedURL), chromedp.WaitVisible(chromedp.CSS("a.replay-link")))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("taking the screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) && !bytes.HasPrefix(png, []byte("\xff\xd8")) {
		t.Fatalf("the screenshot is not an image (%d bytes)", len(png))
	}
	if os.Getenv("UPDATE_SCREENSHOT") != "" {
		if err := os.WriteFile(filepath.Join(repoRoot, "docs", "console.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// createVariant creates a SKU on the simulator as a clerk would on the
// portal, with the supplier SUP-A.
func createVariant(t *testing.T, s *sim, sku string) {
	t.Helper()
	var list map[string]json.RawMessage
	s.getJSON(t, s.Base+"/connections?itemsPerPage=100", &list, true)
	var members []map[string]any
	raw := list["hydra:member"]
	if raw == nil {
		raw = list["member"]
	}
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	var supplier any
	for _, m := range members {
		if m["code"] == "SUP-A" {
			supplier = m["id"]
		}
	}
	if supplier == nil {
		t.Fatalf("SUP-A is not on the simulator: %v", members)
	}
	body, _ := json.Marshal(map[string]any{
		"company": 42, "sku": sku, "name": "Table", "description1": "Birch table", "ean": "7350123100587", "eanBox": "17350123100584",
		"quantityPerBox": 4, "length": 44, "width": 50, "height": 80, "grossWeight": 4.2, "grossWeightBox": 17.9, "buyPrice": 39.5,
		"supplier": supplier,
	})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.Base+"/variants", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		t.Fatalf("creating %s on the simulator: %s: %s", sku, resp.Status, b.String())
	}
}

// numberHeaders lists the headers of the page's columns of numbers
// (td.num) that are not right-aligned as their cells are.
const numberHeaders = `(() => {
  const out = [];
  for (const table of document.querySelectorAll("table")) {
    const heads = table.querySelectorAll("thead th");
    for (const tr of table.querySelectorAll("tbody tr")) {
      let col = 0;
      for (const td of tr.cells) {
        const th = heads[col];
        if (td.classList.contains("num") && th && getComputedStyle(th).textAlign !== "right") {
          out.push(table.id + ": " + th.textContent.trim());
        }
        col += td.colSpan;
      }
    }
  }
  return [...new Set(out)];
})()`

// keyCellsOnScreen returns how many State, Result, Message, Health and
// Last error cells the page has, then each one that does not lie within
// the screen's width.
const keyCellsOnScreen = `(() => {
  const keys = ["State", "Result", "Message", "Reason", "Health", "Last error"];
  let n = 0;
  const off = [];
  for (const table of document.querySelectorAll("table")) {
    const heads = Array.from(table.querySelectorAll("thead th"), th => th.textContent.trim());
    for (const tr of table.querySelectorAll("tbody tr")) {
      let col = 0;
      for (const td of tr.cells) {
        if (td.colSpan === 1 && keys.includes(heads[col])) {
          n++;
          const r = td.getBoundingClientRect();
          if (r.width === 0 || r.left < 0 || r.right > window.innerWidth + 0.5) {
            off.push(table.id + " " + heads[col] + " at " + Math.round(r.left) + ".." + Math.round(r.right));
          }
        }
        col += td.colSpan;
      }
    }
  }
  return [String(n), ...off];
})()`
