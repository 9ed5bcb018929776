package main

import (
	"strconv"
)

// Edition A samples: an ERP on Windows writes comma-separated UTF-8 files
// with CRLF line ends.
var styleA = csvStyle{comma: ',', crlf: true}

func goodA() []sample {
	return []sample{
		{"A/good/SUPPLIERS_20260302.csv", csvFile(suppliersA(), styleA)},
		{"A/good/SKU_20260302.csv", csvFile(skusA(products), styleA)},
		{"A/good/RECEPTIONS_20260304.csv", csvFile(receptionsA(), styleA)},
		{"A/good/ORDERS_20260316.csv", csvFile(ordersA(), styleA)},
		// EANs as text cells, measures as numbers.
		{"A/good/SKU_20260310.xlsx", xlsxFile("SKU", skusA(productsXLSX),
			[]string{"quantityPerBox", "length", "width", "height", "grossWeight", "grossWeightBox", "buyPrice"}, nil)},
	}
}

func suppliersA() *table {
	t := &table{}
	for _, s := range suppliers {
		t.add("code", s.Code, "name", s.Name, "relationship", "Manufacturer")
	}
	return t
}

func skusA(list []product) *table {
	t := &table{}
	for _, p := range list {
		addSKU(t, p, p.EAN(), p.EANBox())
	}
	return t
}

// addSKU adds the row of a product to a table of SKUs.
func addSKU(t *table, p product, ean, eanBox string) {
	t.add("sku", p.SKU, "name", p.Name, "description1", p.Desc, "ean", ean, "eanBox", eanBox,
		"quantityPerBox", strconv.Itoa(p.PerBox), "length", p.L, "width", p.W, "height", p.H,
		"grossWeight", p.Weight, "grossWeightBox", p.BoxW, "buyPrice", p.Price, "supplierCode", p.Supplier)
}

// reception is an inbound delivery of the samples (both editions).
type reception struct {
	Number, Reference, Warehouse, Supplier, Type, DeliveryType, Due string
	Lines                                                           []line
}

type line struct {
	SKU      string
	Quantity int
	// Edition B purchase-order lines.
	Lot, Expiry, Owner string
}

var receptions = []reception{
	{"MSKU4417203", "PO-88123", whLyon, "SUP-NORDIC", "CONT40HC", "floor-loaded", "2026-03-16T07:00:00Z", []line{
		{SKU: "CHR-OAK-DIN", Quantity: 240}, {SKU: "CHR-BIRCH-STK", Quantity: 320}, {SKU: "TBL-OAK180-TOP", Quantity: 60}, {SKU: "TBL-OAK180-LEG", Quantity: 60}}},
	{"REC-26-0311", "PO-88131", whHamburg, "SUP-HOLZWERK", "SEMI", "pallet", "2026-03-17T06:30:00Z", []line{
		{SKU: "BED-PINE-160", Quantity: 40}, {SKU: "SHELF-BEECH-5", Quantity: 60}, {SKU: "WARDR-2D-WHT", Quantity: 30}, {SKU: "MIRROR-RND-80", Quantity: 50}}},
	{"REC-26-0312", "PO-88140", whHamburg, "SUP-KERAMIK", "STANDARD", "pallet", "2026-03-18T08:00:00Z", []line{
		{SKU: "PLATE-STW-27", Quantity: 600}, {SKU: "BOWL-STW-15", Quantity: 480}, {SKU: "MUG-STW-35CL", Quantity: 720}}},
	{"REC-26-0313", "PO-88152", whLyon, "SUP-LINVOSGES", "STANDARD", "pallet", "2026-03-19T09:00:00Z", []line{
		{SKU: "DUVET-240-LIN", Quantity: 150}, {SKU: "PILLOW-65-LIN", Quantity: 400}, {SKU: "TOWEL-BATH-SAG", Quantity: 240}, {SKU: "RUG-WOOL-200", Quantity: 25}}},
	{"REC-26-0314", "PO-88160", whLyon, "SUP-LUMIERE", "", "pallet", "2026-03-20T10:00:00Z", []line{
		{SKU: "LAMP-FLOOR-BRS", Quantity: 35}, {SKU: "LAMP-TABLE-LIN", Quantity: 80}}},
	{"TGHU8812047", "PO-88171", whHamburg, "SUP-SMALAND", "CONT20", "floor-loaded", "2026-03-23T07:00:00Z", []line{
		{SKU: "GLASS-WINE-6", Quantity: 480}}},
	{"REC-26-0316", "PO-88175", whLyon, "SUP-BIOT", "STANDARD", "pallet", "2026-03-24T08:30:00Z", []line{
		{SKU: "CARAFE-1L", Quantity: 180}}},
}

// newSKUOnReception is announced on a reception line with its master data
// (item.* columns): the portal creates the SKU with the reception.
var newSKUOnReception = product{"TOWEL-HAND-SAG", "Hand towel sage 50x100", "Cotton terry hand towel, sage green, 550 g/m2", "SUP-LINVOSGES", 30079, 20, "30", "25", "6", "0.31", "6.6", "6.20"}

func receptionsA() *table {
	t := &table{}
	for _, r := range receptions {
		head := []string{"orderNumber", r.Number, "referenceNumber", r.Reference, "warehouseLocation", r.Warehouse,
			"supplierCode", r.Supplier, "orderType", r.Type, "attributes.deliveryType", r.DeliveryType, "dueAt", r.Due}
		for i, l := range r.Lines {
			t.add(with(head, "position", strconv.Itoa(i+1), "sku", l.SKU, "quantity", strconv.Itoa(l.Quantity))...)
		}
		if r.Number == "REC-26-0313" {
			p := newSKUOnReception
			t.add(with(head, "position", strconv.Itoa(len(r.Lines)+1), "sku", p.SKU, "quantity", "200",
				"item.name", p.Name, "item.ean", p.EAN(), "item.eanBox", p.EANBox(), "item.quantityPerBox", strconv.Itoa(p.PerBox),
				"item.length", p.L, "item.width", p.W, "item.height", p.H, "item.grossWeight", p.Weight,
				"item.grossWeightBox", p.BoxW, "item.buyPrice", p.Price)...)
		}
	}
	return t
}

// order is a customer order of the samples. A line with a service and no
// SKU is a service line (Edition A).
type order struct {
	Number, External, Mode, Warehouse string
	Consignee                         int // index in consignees
	Lines                             []orderLine
	// Edition B.
	WarehouseCode, Carrier, CarrierService, Planned, SlotBefore string
}

type orderLine struct {
	SKU      string
	Quantity int
	Service  string
	// Edition A: the reception line the goods come from.
	Reception string
	RecPos    int
	// Edition B: requested lot.
	Lot string
}

var ordersOfA = []order{
	{Number: "SO-2026-10001", External: "WEB-558812", Mode: "MOUNTING", Warehouse: whLyon, Consignee: 0, Lines: []orderLine{
		{SKU: "CHR-OAK-DIN", Quantity: 4}, {SKU: "TBL-OAK180-TOP", Quantity: 1}, {SKU: "TBL-OAK180-LEG", Quantity: 1}, {Service: "TAKE_BACK", Quantity: 1}}},
	{Number: "SO-2026-10002", External: "WEB-558830", Mode: "STANDARD", Warehouse: whLyon, Consignee: 1, Lines: []orderLine{
		{SKU: "DUVET-240-LIN", Quantity: 2}, {SKU: "PILLOW-65-LIN", Quantity: 4}, {SKU: "TOWEL-BATH-SAG", Quantity: 6}}},
	{Number: "SO-2026-10003", External: "WEB-558851", Mode: "STANDARD", Warehouse: whHamburg, Consignee: 2, Lines: []orderLine{
		{SKU: "PLATE-STW-27", Quantity: 12}, {SKU: "BOWL-STW-15", Quantity: 6}, {SKU: "MUG-STW-35CL", Quantity: 6, Reception: "REC-26-0312", RecPos: 3}}},
	{Number: "SO-2026-10004", External: "AMZ-302-7781", Mode: "ECO", Warehouse: whHamburg, Consignee: 3, Lines: []orderLine{
		{SKU: "LAMP-TABLE-LIN", Quantity: 2}, {SKU: "MIRROR-RND-80", Quantity: 1}}},
	{Number: "SO-2026-10005", External: "WEB-558902", Mode: "UNPACKING", Warehouse: whHamburg, Consignee: 4, Lines: []orderLine{
		{SKU: "SOFA3-GRY-BASE", Quantity: 1}, {SKU: "SOFA3-GRY-CUSH", Quantity: 1}, {SKU: "RUG-WOOL-200", Quantity: 1}, {Service: "PACKAGING_REMOVAL", Quantity: 1}}},
	{Number: "SO-2026-10006", External: "WEB-558917", Mode: "MOUNTING", Warehouse: whLyon, Consignee: 5, Lines: []orderLine{
		{SKU: "WARDR-2D-WHT", Quantity: 1}, {SKU: "BED-PINE-160", Quantity: 1}, {Service: "TAKE_BACK", Quantity: 2}}},
	{Number: "SO-2026-10007", External: "WEB-558933", Mode: "STANDARD", Warehouse: whHamburg, Consignee: 6, Lines: []orderLine{
		{SKU: "GLASS-WINE-6", Quantity: 2}, {SKU: "CARAFE-1L", Quantity: 1}, {SKU: "CHR-BIRCH-STK", Quantity: 4, Reception: "MSKU4417203", RecPos: 2}}},
}

func ordersA() *table {
	t := &table{}
	for _, o := range ordersOfA {
		c := consignees[o.Consignee]
		head := []string{"orderNumber", o.Number, "externalOrderNumber", o.External, "deliveryMode", o.Mode, "warehouseLocation", o.Warehouse,
			"shipTo.title", c.Title, "shipTo.firstName", c.First, "shipTo.lastName", c.Last, "shipTo.streetAddress", c.Street,
			"shipTo.streetAddress2", c.Street2, "shipTo.zipcode", c.Zip, "shipTo.city", c.City, "shipTo.countryCode", c.Country,
			"shipTo.email", c.Email, "shipTo.phone", c.Phone, "shipTo.languageCode", c.Lang,
			"shipTo.attributes.accessCode", c.AccessCode, "shipTo.attributes.floor", c.Floor,
			"shipTo.attributes.building", c.Building, "shipTo.attributes.company", c.Company}
		for i, l := range o.Lines {
			kv := with(head, "position", strconv.Itoa(i+1), "sku", l.SKU, "quantity", strconv.Itoa(l.Quantity), "serviceType", l.Service)
			if l.Reception != "" {
				kv = append(kv, "purchaseOrderLineItem.orderNumber", l.Reception, "purchaseOrderLineItem.position", strconv.Itoa(l.RecPos))
			}
			t.add(kv...)
		}
	}
	return t
}
