package edi

import (
	"slices"
	"testing"
)

func seg(pos int, tag string, elems ...string) Segment {
	s := Segment{Tag: tag, Pos: pos, Line: pos}
	for _, e := range elems {
		s.Elems = append(s.Elems, []string{e})
	}
	return s
}

func TestLocationString(t *testing.T) {
	for _, tc := range []struct {
		loc  Location
		want string
	}{
		{Location{}, "the interchange"},
		{Location{Pos: 14, Tag: "N4"}, "segment 14 N4"},
		{Location{Pos: 14, Tag: "N4", Elem: 3}, "segment 14 N4, element 03"},
		{Location{Pos: 2, Tag: "LIN", Elem: 3, Comp: 2}, "segment 2 LIN, element 03, component 2"},
	} {
		if got := tc.loc.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.loc, got, tc.want)
		}
	}
	err := Errorf(Location{Pos: 14, Tag: "N4", Elem: 3}, LevelElement, "1", "postcode is empty")
	if got := err.Error(); got != "segment 14 N4, element 03: postcode is empty" {
		t.Errorf("Error() = %q", got)
	}
}

func TestRows(t *testing.T) {
	tab := &Table{
		LineTag: "W01",
		Loops:   []string{"N1"},
		Fields: []Field{
			{Tag: "W05", Elem: 2, Column: "orderNumber"},
			{Loop: "N1", LoopQual: Qualifier{1, "ST"}, Tag: "N1", Elem: 2, Column: "shipTo.name"},
			{Loop: "N1", LoopQual: Qualifier{1, "ST"}, Tag: "N4", Elem: 3, Column: "shipTo.zipcode"},
			{Tag: "G62", Qual: Qualifier{1, "10"}, Elem: 2, Column: "dueAt", Convert: Date},
			{Tag: "W01", Elem: 1, Column: "quantity", Level: Line},
			{Tag: "W01", Elem: 5, Column: "sku", Level: Line},
			{Tag: "LX", Elem: 1, Column: "position", Level: Line},
		},
	}
	segs := []Segment{
		seg(1, "ST", "940", "0001"),
		seg(2, "W05", "N", "ORD-1"),
		seg(3, "N1", "BT", "Billing Co"),
		seg(4, "N4", "Paris", "", "75001"),
		seg(5, "N1", "ST", "Ship Co"),
		seg(6, "N4", "Lyon", "", "69001"),
		seg(7, "G62", "02", "20261201"),
		seg(8, "G62", "10", "20261203"),
		seg(9, "W01", "5", "EA", "", "VN", "SKU-1"),
		seg(10, "W01", "2", "EA", "", "VN", "SKU-2"),
		seg(11, "SE", "11", "0001"),
	}
	cols := tab.Columns(func(c string) bool { return c != "position" })
	if want := []string{"orderNumber", "shipTo.name", "shipTo.zipcode", "dueAt", "quantity", "sku"}; !slices.Equal(cols, want) {
		t.Fatalf("columns %q, want %q", cols, want)
	}
	rows := tab.Rows(segs, cols)
	want := [][]string{
		{"ORD-1", "Ship Co", "69001", "2026-12-03", "5", "SKU-1"},
		{"ORD-1", "Ship Co", "69001", "2026-12-03", "2", "SKU-2"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if !slices.Equal(r.Cells, want[i]) {
			t.Errorf("row %d: %q, want %q", i, r.Cells, want[i])
		}
	}
	if rows[1].Pos != 10 {
		t.Errorf("second row at segment %d, want 10", rows[1].Pos)
	}
	if got := rows[0].Src[2].String(); got != "segment 6 N4, element 03" {
		t.Errorf("zipcode from %q", got)
	}
	// No line item: one row of header values.
	hdr := tab.Rows(segs[:8], cols)
	if len(hdr) != 1 || hdr[0].Cells[0] != "ORD-1" || hdr[0].Cells[4] != "" {
		t.Errorf("header-only rows %+v", hdr)
	}
}

func TestGroupFinish(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []AckStatus
		errs int
		want AckStatus
		acc  int
	}{
		{"all accepted", []AckStatus{Accepted, Accepted}, 0, Accepted, 2},
		{"one with errors", []AckStatus{Accepted, AcceptedWithErrors}, 0, AcceptedWithErrors, 2},
		{"one rejected", []AckStatus{Accepted, Rejected}, 0, Rejected, 1},
		{"all rejected", []AckStatus{Rejected}, 0, Rejected, 0},
		{"group error", []AckStatus{Accepted}, 1, Rejected, 1},
	} {
		g := GroupAck{}
		for _, s := range tc.sets {
			g.Sets = append(g.Sets, SetAck{Status: s})
		}
		for range tc.errs {
			g.Errors = append(g.Errors, &Error{Msg: "x"})
		}
		g.Finish()
		if g.Status != tc.want || g.Accepted != tc.acc || g.Received != len(tc.sets) {
			t.Errorf("%s: status %v accepted %d received %d", tc.name, g.Status, g.Accepted, g.Received)
		}
	}
}

// TestSegmentsInverse: the segments built from column values map back
// onto the same values.
func TestSegmentsInverse(t *testing.T) {
	tab := &Table{
		LineTag: "W01", LineOpen: "LX", Loops: []string{"N1"},
		Fields: []Field{
			{Tag: "W05", Elem: 2, Column: "orderNumber"},
			{Loop: "N1", LoopQual: Qualifier{1, "WH"}, Tag: "N1", Elem: 4, Column: "warehouseLocation"},
			{Loop: "N1", LoopQual: Qualifier{1, "ST"}, Tag: "N1", Elem: 2, Column: "shipTo.name"},
			{Loop: "N1", LoopQual: Qualifier{1, "ST"}, Tag: "N4", Elem: 3, Column: "shipTo.zipcode"},
			{Tag: "G62", Qual: Qualifier{1, "02"}, Elem: 2, Column: "plannedDeliveryDate", Convert: Date},
			{Tag: "LX", Elem: 1, Column: "position", Level: Line},
			{Tag: "W01", Elem: 1, Column: "quantity", Level: Line},
			{Tag: "W01", Qual: Qualifier{4, "SK"}, Elem: 5, Column: "sku", Level: Line},
			{Tag: "W01", Qual: Qualifier{4, "VN"}, Elem: 5, Column: "sku", Level: Line},
		},
	}
	hdr := map[string]string{"orderNumber": "O-1", "warehouseLocation": "3", "shipTo.name": "Jane", "shipTo.zipcode": "75002", "plannedDeliveryDate": "2026-12-03"}
	lines := []map[string]string{{"position": "1", "quantity": "2", "sku": "A"}, {"position": "2", "quantity": "5", "sku": "B"}}
	segs := tab.Segments(hdr, lines)
	for i := range segs {
		segs[i].Pos = i + 2
	}
	cols := tab.Columns(nil)
	rows := tab.Rows(segs, cols)
	if len(rows) != 2 {
		t.Fatalf("%d rows from %+v", len(rows), segs)
	}
	for i, r := range rows {
		for c, col := range cols {
			want := hdr[col]
			if want == "" {
				want = lines[i][col]
			}
			if r.Cells[c] != want {
				t.Errorf("row %d column %s: %q, want %q (segments %+v)", i, col, r.Cells[c], want, segs)
			}
		}
	}
}
