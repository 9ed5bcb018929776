package outbox

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/folderurl"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// simEnv is a simulator with a portal source, a journal and a local outbox.
type simEnv struct {
	t      *testing.T
	sim    *portalsim.Sim
	src    *PortalSource
	db     *journal.DB
	dir    string
	runner *Runner
	ed     model.Edition
}

func newSimEnv(t testing.TB, ed model.Edition, preload, perPage int, clock func() time.Time) *simEnv {
	t.Helper()
	return newSimEnvOpts(t, portalsim.Options{Edition: portalsim.Edition(ed), Preload: preload, Clock: clock}, perPage)
}

// newSimEnvOpts is newSimEnv with the simulator's options (token, seed and
// logger are set here).
func newSimEnvOpts(t testing.TB, opts portalsim.Options, perPage int) *simEnv {
	t.Helper()
	ctx := t.Context()
	ed := model.Edition(opts.Edition)
	opts.Token, opts.Seed, opts.Logger = "demo-token", 7, slog.New(slog.DiscardHandler)
	sim, err := portalsim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	src, err := NewPortalSource(portal.Config{Edition: ed, BaseURL: srv.URL + "/api", Company: sim.Company(),
		Token: "demo-token", ItemsPerPage: perPage, MaxRetries: 2, Logger: slog.New(slog.DiscardHandler),
		Concurrency: 8, Timeout: 30 * time.Second, RetryMaxWait: 2 * time.Minute, ShipmentStatusFilter: "status.code"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	db, err := journal.Open(ctx, filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dir := t.TempDir()
	f, err := folder.Open(ctx, folder.Options{Location: folderurl.Local(dir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	e := &simEnv{sim: sim, src: src, db: db, dir: dir, ed: ed,
		runner: &Runner{Source: src, Folder: f, Journal: db, Logger: slog.New(slog.DiscardHandler)}}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	return e
}

func (e *simEnv) job(typ model.ExportType) Job {
	return Job{Outbox: "out", Edition: e.ed, Type: typ, Filename: "{type}_{seq}.csv"}
}

// export runs an export and reads its file back as maps by header.
func (e *simEnv) export(typ model.ExportType) (Result, []map[string]string) {
	e.t.Helper()
	res, err := e.runner.Run(e.t.Context(), e.job(typ))
	if err != nil {
		e.t.Fatalf("exporting %s: %v", typ, err)
	}
	if res.File == "" {
		return res, nil
	}
	rows := readCSV(e.t, filepath.Join(e.dir, res.File))
	if len(rows) != res.Rows {
		e.t.Fatalf("%s: result says %d rows, the file has %d", res.File, res.Rows, len(rows))
	}
	return res, rows
}

func readCSV(t testing.TB, name string) []map[string]string {
	t.Helper()
	fh, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, h := range header {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
}

func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func itoa[N int | int64](n N) string { return strconv.FormatInt(int64(n), 10) }

// created documents, by order number.
type createdLine struct {
	sku string
	qty int64
}

func (e *simEnv) createReception(n string, lines ...createdLine) {
	e.t.Helper()
	in := model.Inbound{OrderNumber: n, ReferenceNumber: "REF-" + n, SupplierCode: "PRE-SUP-0001",
		DueAt: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)}
	if e.ed == model.EditionA {
		in.WarehouseLocation = 3
	} else {
		in.WarehouseCode = "WH-LYON"
	}
	for i, l := range lines {
		il := model.InboundLine{Position: i + 1, SKU: l.sku, Quantity: l.qty}
		if e.ed == model.EditionB {
			il.LotNumber, il.OwnerCode = "LOT-"+n, "OWN1"
			il.ExpiryDate = time.Date(2028, 1, 31, 0, 0, 0, 0, time.UTC)
		}
		in.Lines = append(in.Lines, il)
	}
	if _, err := e.src.Client.CreateInbound(e.t.Context(), in); err != nil {
		e.t.Fatalf("creating reception %s: %v", n, err)
	}
}

func (e *simEnv) createOrder(n string, lines ...createdLine) {
	e.t.Helper()
	o := model.Outbound{OrderNumber: n, ExternalOrderNumber: "EXT-" + n,
		ShipTo: &model.Address{Name: "Ada Lovelace", StreetAddress: "1 rue de la Paix", Zipcode: "75002", City: "Paris",
			CountryCode: "FR", Email: "ada@example.com"}}
	if e.ed == model.EditionA {
		o.WarehouseLocation = 3
	} else {
		o.WarehouseCode = "WH-LYON"
		o.ShipTo.Code, o.ShipTo.Relationship = "CUST-"+n, "Marketplace"
	}
	for i, l := range lines {
		o.Lines = append(o.Lines, model.OutboundLine{Position: i + 1, SKU: l.sku, Quantity: l.qty})
	}
	if _, err := e.src.Client.CreateOutbound(e.t.Context(), o); err != nil {
		e.t.Fatalf("creating order %s: %v", n, err)
	}
}

func sku(i int) string { return fmt.Sprintf("PRE-%06d", i) }

// TestEndToEnd creates receptions and orders through the portal client,
// lets the simulated warehouse work, exports every type of the edition and
// checks every row of every file against the portal's documents and what
// was created; then checks that a second round exports only what is new.
// It runs against both simulator modes (the literal one: no next links,
// no item reads, no order timestamps, documented filters only), with pages
// of 3, smaller than every list.
func TestEndToEnd(t *testing.T) {
	for _, ed := range model.Editions {
		for _, literal := range []bool{false, true} {
			name := "edition " + string(ed)
			if literal {
				name += " literal"
			}
			t.Run(name, func(t *testing.T) { endToEnd(t, ed, literal) })
		}
	}
}

func endToEnd(t *testing.T, ed model.Edition, literal bool) {
	e := newSimEnvOpts(t, portalsim.Options{Edition: portalsim.Edition(ed), Preload: 12, Literal: literal}, 3)
	e.t = t
	receptions := map[string][]createdLine{}
	for i := 1; i <= 4; i++ {
		n := fmt.Sprintf("R%s-%d", ed, i)
		receptions[n] = []createdLine{{sku(i), int64(10 * i)}, {sku(i + 4), int64(i)}}
		e.createReception(n, receptions[n]...)
	}
	orders := map[string][]createdLine{}
	for i := 1; i <= 6; i++ {
		n := fmt.Sprintf("O%s-%d", ed, i)
		orders[n] = []createdLine{{sku(i), 2}, {sku(i + 6), 3}}
		e.createOrder(n, orders[n]...)
	}
	for range 5 {
		e.sim.Tick()
	}
	e.checkReceipts(receptions)
	e.checkShipments(orders)
	e.checkStock()
	e.checkMovements()
	if ed == model.EditionB {
		e.checkTracking()
		e.checkItems()
	}

	// Second round: nothing new in receipts and shipments.
	for _, typ := range []model.ExportType{model.ExportReceipts, model.ExportShipments} {
		if res, _ := e.export(typ); res.File != "" {
			t.Errorf("%s exported again without changes: %+v", typ, res)
		}
	}
	n := "R" + string(ed) + "-NEW"
	e.createReception(n, createdLine{sku(11), 7})
	for range 3 {
		e.sim.Tick()
	}
	_, rows := e.export(model.ExportReceipts)
	if len(rows) != 1 || rows[0]["orderNumber"] != n || rows[0]["sku"] != sku(11) {
		t.Errorf("third round exported %v, want the one line of %s", rows, n)
	}
}

func (e *simEnv) checkReceipts(created map[string][]createdLine) {
	t := e.t
	docs := map[string]model.Inbound{}
	for in, err := range e.src.Client.Inbounds(t.Context(), portal.InboundFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		docs[in.OrderNumber] = in
	}
	_, rows := e.export(model.ExportReceipts)
	seen := map[string]bool{}
	wantRows := 0
	for n, lines := range created {
		if st := docs[n].Status.Code; st == 80 || (e.ed == model.EditionB && st == 75) {
			wantRows += len(lines)
		}
	}
	if wantRows == 0 || len(rows) != wantRows {
		t.Fatalf("receipts: %d rows, want %d (every line of every received reception)", len(rows), wantRows)
	}
	for i, r := range rows {
		n := r["orderNumber"]
		pos, _ := strconv.Atoi(r["position"])
		doc, ok := docs[n]
		if !ok || pos < 1 || pos > len(created[n]) {
			t.Fatalf("receipts row %d: unknown reception line %s/%d", i+1, n, pos)
		}
		key := n + "/" + r["position"]
		if seen[key] {
			t.Errorf("receipts row %d: line %s exported twice", i+1, key)
		}
		seen[key] = true
		cl, dl := created[n][pos-1], doc.Lines[pos-1]
		wantStatus := map[int]string{80: "Received", 75: "Partially received"}[doc.Status.Code]
		warehouse := "3"
		if e.ed == model.EditionB {
			warehouse = "WH-LYON"
		}
		want := map[string]string{
			"orderNumber": n, "referenceNumber": "REF-" + n, "statusCode": itoa(doc.Status.Code), "statusName": wantStatus,
			"receivedAt": ts(doc.ReceivedAt), "warehouse": warehouse, "supplierCode": "PRE-SUP-0001", "position": itoa(pos),
			"sku": cl.sku, "quantityOrdered": itoa(cl.qty), "quantityReceived": itoa(dl.QuantityReceived),
			"difference": itoa(dl.QuantityReceived - cl.qty), "lotNumber": "", "expiryDate": "", "ownerCode": "",
			"updatedAt": ts(doc.UpdatedAt),
		}
		if e.ed == model.EditionB {
			want["lotNumber"], want["expiryDate"], want["ownerCode"] = "LOT-"+n, "2028-01-31", "OWN1"
		}
		if doc.ReceivedAt.IsZero() || (e.ed == model.EditionA && dl.QuantityReceived != cl.qty) {
			t.Errorf("receipts: %s not received in full: %+v", n, doc)
		}
		compareRow(t, "receipts", i, r, want)
	}
}

func (e *simEnv) checkShipments(created map[string][]createdLine) {
	t := e.t
	_, rows := e.export(model.ExportShipments)
	// Every ordered unit is either shipped or unfulfillable, exactly once.
	accounted := map[string]int64{}
	for i, r := range rows {
		n := r["orderNumber"]
		pos, _ := strconv.Atoi(r["position"])
		lines, ok := created[n]
		if !ok || pos < 1 || pos > len(lines) {
			t.Fatalf("shipments row %d: unknown order line %s/%s", i+1, n, r["position"])
		}
		cl := lines[pos-1]
		shipped, _ := strconv.ParseInt(r["quantityShipped"], 10, 64)
		unf, _ := strconv.ParseInt(r["quantityUnfulfillable"], 10, 64)
		accounted[n+"/"+r["position"]] += shipped + unf
		if r["externalOrderNumber"] != "EXT-"+n || r["sku"] != cl.sku || r["quantityOrdered"] != itoa(cl.qty) ||
			r["shippedAt"] == "" || r["trackingNumber"] == "" {
			t.Errorf("shipments row %d: %v (created %+v)", i+1, r, cl)
		}
		if unf > 0 && (r["reasonCode"] == "" || shipped != 0) {
			t.Errorf("shipments row %d: unfulfillable line without reason: %v", i+1, r)
		}
		if e.ed == model.EditionB && (r["fulfillmentNumber"] == "" || r["carrierCode"] == "" || r["carrierName"] == "") {
			t.Errorf("shipments row %d: fulfillment or carrier missing: %v", i+1, r)
		}
	}
	for n, lines := range created {
		for i, l := range lines {
			if got := accounted[n+"/"+itoa(i+1)]; got != l.qty {
				t.Errorf("shipments: order line %s/%d accounts for %d units, want %d", n, i+1, got, l.qty)
			}
		}
	}
	// The tracking numbers are the portal's.
	want := map[string]string{}
	if e.ed == model.EditionB {
		for f, err := range e.src.Client.Fulfillments(t.Context(), portal.FulfillmentFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			want[f.FulfillmentNumber] = f.TrackingNumber
		}
		for _, r := range rows {
			if want[r["fulfillmentNumber"]] != r["trackingNumber"] {
				t.Errorf("shipments: fulfillment %s tracking %q, portal says %q", r["fulfillmentNumber"], r["trackingNumber"], want[r["fulfillmentNumber"]])
			}
		}
	} else {
		for o, err := range e.src.Client.Outbounds(t.Context(), portal.OutboundFilter{}) {
			if err != nil {
				t.Fatal(err)
			}
			want[o.OrderNumber] = o.Attributes["marketplaceTrackingNumber"]
		}
		for _, r := range rows {
			if want[r["orderNumber"]] != r["trackingNumber"] {
				t.Errorf("shipments: order %s tracking %q, portal says %q", r["orderNumber"], r["trackingNumber"], want[r["orderNumber"]])
			}
		}
	}
}

func (e *simEnv) checkStock() {
	t := e.t
	want := portalRows(t, e.src.Client.Stocks(t.Context(), portal.StockFilter{}), func(s model.Stock) map[string]string {
		return map[string]string{"sku": s.SKU, "name": s.Name, "ean": s.EAN, "available": itoa(s.Available),
			"incoming": itoa(s.Incoming), "allocated": itoa(s.Allocated), "locked": itoa(s.Locked), "updatedAt": ts(s.UpdatedAt)}
	})
	if len(want) != 12 {
		t.Fatalf("stock: portal has %d stocks, want 12 (12 variants)", len(want))
	}
	_, rows := e.export(model.ExportStock)
	compareRows(t, "stock", rows, want)
}

func (e *simEnv) checkMovements() {
	t := e.t
	want := portalRows(t, e.src.Client.Movements(t.Context(), portal.MovementFilter{}), func(m model.Movement) map[string]string {
		r := map[string]string{"movedAt": ts(m.MovedAt), "sku": m.SKU, "fromPosition": m.FromPosition, "toPosition": m.ToPosition,
			"quantity": itoa(m.Quantity), "comment": m.Comment, "processed": strconv.FormatBool(m.Processed)}
		if e.ed == model.EditionB {
			r["fromOwnerCode"], r["fromLotNumber"], r["toOwnerCode"], r["toLotNumber"] = m.FromOwnerCode, m.FromLotNumber, m.ToOwnerCode, m.ToLotNumber
			r["fromExpiryDate"], r["toExpiryDate"] = "", ""
		}
		return r
	})
	res, rows := e.export(model.ExportMovements)
	if (len(want) == 0) != (res.File == "") {
		t.Fatalf("movements: %d rows in %q, portal has %d", len(rows), res.File, len(want))
	}
	compareRows(t, "movements", rows, want)
}

func (e *simEnv) checkTracking() {
	t := e.t
	type event struct{ unit, code, at string }
	want := map[event]int{}
	for ev, err := range e.src.Client.ShippingUnitEvents(t.Context(), portal.EventFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		want[event{ev.ShippingUnitNumber, itoa(ev.Status.Code), ts(ev.OccurredAt)}]++
	}
	_, rows := e.export(model.ExportTracking)
	got := map[event]int{}
	for i, r := range rows {
		got[event{r["shippingUnitNumber"], r["statusCode"], r["occurredAt"]}]++
		if r["orderNumber"] == "" || r["trackingNumber"] == "" || r["location"] == "" || r["message"] == "" ||
			r["latitude"] == "" || r["statusDetail"] == "" {
			t.Errorf("tracking row %d incomplete: %v", i+1, r)
		}
	}
	if len(want) == 0 || len(rows) != len(want) {
		t.Errorf("tracking: %d rows, portal has %d events", len(rows), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("tracking: event %+v exported %d times, want %d", k, got[k], n)
		}
	}
}

func (e *simEnv) checkItems() {
	t := e.t
	want := portalRows(t, e.src.Client.Items(t.Context(), portal.ItemFilter{}), func(it model.Item) map[string]string {
		return map[string]string{"sku": it.SKU, "name": it.Name, "ean": it.EAN, "length": string(it.Length),
			"width": string(it.Width), "height": string(it.Height), "grossWeight": string(it.GrossWeight), "updatedAt": ts(it.UpdatedAt)}
	})
	_, rows := e.export(model.ExportItems)
	bySKU := func(a, b map[string]string) int { return cmp.Compare(a["sku"], b["sku"]) }
	slices.SortFunc(rows, bySKU)
	slices.SortFunc(want, bySKU)
	compareRows(t, "items", rows, want)
}

// portalRows reads every document seq yields into the row the export
// should have written for it.
func portalRows[T any](t *testing.T, seq iter.Seq2[T, error], row func(T) map[string]string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, row(v))
	}
	return out
}

// compareRows compares the rows of an export with what the portal holds,
// row by row.
func compareRows(t *testing.T, what string, rows, want []map[string]string) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("%s: %d rows, portal has %d", what, len(rows), len(want))
	}
	for i := range rows {
		compareRow(t, what, i, rows[i], want[i])
	}
}

func compareRow(t *testing.T, what string, i int, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s row %d, column %s = %q, want %q", what, i+1, k, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s row %d has %d columns, want %d", what, i+1, len(got), len(want))
	}
}

// TestCrashBetweenFileAndCursor fails the cursor commit after the file is
// in place (as a crash there would): the next run exports the same rows
// again, and none is lost.
func TestCrashBetweenFileAndCursor(t *testing.T) {
	e := newSimEnv(t, model.EditionB, 6, 2, nil)
	e.t = t
	jr := &failingJournal{DB: e.db}
	e.runner.Journal = jr
	for i := 1; i <= 3; i++ {
		e.createReception(fmt.Sprintf("C-%d", i), createdLine{sku(i), 5}, createdLine{sku(i + 3), 1})
	}
	for range 4 {
		e.sim.Tick()
	}
	jr.failSave = true
	res, err := e.runner.Run(t.Context(), e.job(model.ExportReceipts))
	if err == nil || res.File == "" {
		t.Fatalf("run with a failing cursor commit: %+v, %v", res, err)
	}
	crashed := readCSV(t, filepath.Join(e.dir, res.File))
	jr.failSave = false
	_, again := e.export(model.ExportReceipts)
	if len(crashed) != 6 || len(again) != len(crashed) {
		t.Fatalf("%d rows before the crash, %d after; want 6 and 6", len(crashed), len(again))
	}
	for i := range crashed {
		compareRow(t, "receipts after the crash", i, again[i], crashed[i])
	}
	if res, _ := e.export(model.ExportReceipts); res.File != "" {
		t.Errorf("the cursor did not move after the successful run: %+v", res)
	}
}
