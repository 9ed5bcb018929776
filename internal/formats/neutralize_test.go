package formats

import (
	"testing"

	"filebridge/internal/formats/export"
	"filebridge/internal/model"
)

// TestNeutralizedCells reads back cells written with export.Neutralize (as
// the reports write NAME.rejected.csv): the apostrophe is dropped where it
// precedes a formula character, and kept anywhere else.
func TestNeutralizedCells(t *testing.T) {
	tests := []struct{ cell, want string }{
		{"=SUM(A1)", "=SUM(A1)"},
		{"+33 4 72", "+33 4 72"},
		{"-3", "-3"},
		{"@home", "@home"},
		{"\tTab", "Tab"}, // trimmed, as the cell itself would be
		{"\rCR", "CR"},
		{"'quoted'", "'quoted'"},
		{"'", "'"},
		{"''=x", "''=x"},
		{"O'Brien", "O'Brien"},
		{"plain", "plain"},
		{"", ""},
	}
	for _, tt := range tests {
		written := export.Neutralize(tt.cell)
		if got := cleanCell(written, true); got != tt.want {
			t.Errorf("cell %q written %q, read back %q, want %q", tt.cell, written, got, tt.want)
		}
	}
	// A rejected row, written neutralised, decodes to the same values: a
	// negative quantity stays refused as such, a name keeps its sign.
	head := header(A, model.KindOutbound)
	row := exampleRow(A, model.KindOutbound, map[string]string{"quantity": "-3", "shipTo.lastName": "=Martin", "shipTo.streetAddress": "@12 rue"})
	for k, v := range row {
		row[k] = export.Neutralize(v)
	}
	res := decodeBytes(t, "ORDERS.rejected.csv", csvFile(',', head, row), Options{Edition: A, Type: "orders"})
	if res.err != nil || len(res.docs) != 1 {
		t.Fatalf("%v, %d docs", res.err, len(res.docs))
	}
	out := res.docs[0].Outbound
	if out.ShipTo == nil || out.ShipTo.LastName != "=Martin" || out.ShipTo.StreetAddress != "@12 rue" {
		t.Errorf("consignee %+v", out.ShipTo)
	}
	if _, ok := findIssue(res.errors(), "quantity", "greater than 0"); !ok {
		t.Errorf("want the quantity refused as -3, got:%s", dump(res.all()))
	}
}
