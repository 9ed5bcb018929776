package main

import (
	"strconv"
)

// Edition B samples: a warehouse-management export writes UTF-8 files with
// LF line ends; carriers and carrier services are the simulator's seed (DHL,
// UPS, GLS; UPS-STD, GLS-BP...); the connections come from Excel ("CSV UTF-8", with a BOM)
// and the packagings from a tool that separates with semicolons.
var styleB = csvStyle{comma: ','}

func goodB() []sample {
	return []sample{
		{"B/good/CONNECTIONS_20260302.csv", csvFile(connectionsB(), csvStyle{comma: ',', bom: true, crlf: true})},
		{"B/good/VARIANTS_20260302.csv", csvFile(variantsB(), styleB)},
		{"B/good/PACKAGINGS_20260303.csv", csvFile(packagingsB(), csvStyle{comma: ';'})},
		{"B/good/PURCHASE_ORDERS_20260304.csv", csvFile(purchaseOrdersB(purchaseOrders), styleB)},
		{"B/good/SALES_ORDERS_20260316.csv", csvFile(salesOrdersB(), styleB)},
		// Due and expiry dates as Excel dates.
		{"B/good/PURCHASE_ORDERS_20260310.xlsx", xlsxFile("Purchase orders", purchaseOrdersB(purchaseOrdersXLSX),
			[]string{"warehouseLocation", "position", "quantity"}, []string{"dueAt", "expiryDate"})},
	}
}

// connection is an Edition B connection other than a supplier.
type connection struct {
	Code, Name, Relationship   string
	Country, City, Zip, Street string
	Email, Contact, Phone      string
}

var connectionsOfB = []connection{
	{"CUST-ALSTERHOF", "Hotel Alsterhof", "Customer", "DE", "Hamburg", "20354", "Esplanade 12", "einkauf@alsterhof-hotel.de", "Petra Voss", "+49 40 3501 220"},
	{"CUST-TERREAUX", "Brasserie des Terreaux", "Customer", "FR", "Lyon", "69001", "2 place des Terreaux", "achats@brasserie-terreaux.fr", "Marc Girard", "+33 4 78 27 31 15"},
	{"CUST-STUDIOMOB", "Studio Möbel Köln", "Customer", "DE", "Köln", "50672", "Ehrenstraße 43", "info@studio-moebel.de", "Lukas Wagner", "+49 221 2577 310"},
	{"ENT-MN-FR", "Maison Nordique SAS", "Entity", "FR", "Lyon", "69002", "24 quai Rambaud", "compta@maison-nordique.fr", "Service comptabilité", "+33 4 72 00 45 00"},
	{"ENT-MN-DE", "Maison Nordique GmbH", "Entity", "DE", "Hamburg", "20457", "Am Sandtorkai 30", "buchhaltung@maison-nordique.de", "Buchhaltung", "+49 40 8090 330"},
}

func connectionsB() *table {
	t := &table{}
	var all []connection
	for _, s := range suppliers {
		all = append(all, connection{s.Code, s.Name, "Manufacturer", s.Country, s.City, s.Zip, s.Street, s.Email, s.Contact, s.Phone})
	}
	for _, c := range append(all, connectionsOfB...) {
		t.add("code", c.Code, "name", c.Name, "relationship", c.Relationship, "countryCode", c.Country, "city", c.City,
			"zipcode", c.Zip, "streetAddress", c.Street, "email", c.Email, "contactName", c.Contact, "phone", c.Phone)
	}
	return t
}

func variantsB() *table {
	t := &table{}
	for _, list := range [][]product{products, productsB} {
		for _, p := range list {
			t.add("sku", p.SKU, "name", p.Name, "description1", p.Desc, "ean", p.EAN(),
				"length", p.L, "width", p.W, "height", p.H, "grossWeight", p.Weight)
		}
	}
	return t
}

// packaging is a packaging level of a variant. ean: "each" for the
// variant's own EAN, "box" for its master carton's, "inner" for a GTIN-14
// with indicator 2, "" for none.
type packaging struct {
	SKU, Code, EAN, Quantity, L, W, H, Gross, Net, Level, Type string
}

var packagingsOfB = []packaging{
	{"PLATE-STW-27", "EACH", "each", "1", "29", "29", "3", "0.85", "0.85", "UVC", "PIECE"},
	{"PLATE-STW-27", "OUTER_CARTON", "box", "6", "31", "31", "16", "5.6", "5.1", "PCB", "BOX"},
	{"PLATE-STW-27", "PALLET", "", "480", "120", "80", "145", "468", "408", "", "PALLET"},
	{"MUG-STW-35CL", "INNER_CARTON", "inner", "4", "25", "19", "11", "1.55", "1.44", "SPCB", "BOX"},
	{"MUG-STW-35CL", "OUTER_CARTON", "box", "12", "39", "27", "23", "4.8", "4.32", "PCB", "BOX"},
	{"PILLOW-65-LIN", "INNER_CARTON", "inner", "5", "26", "21", "8", "1.7", "1.6", "SPCB", "BAG"},
	{"PILLOW-65-LIN", "OUTER_CARTON", "box", "20", "54", "44", "18", "6.9", "6.4", "PCB", "BOX"},
	{"CHR-OAK-DIN", "OUTER_CARTON", "box", "2", "94", "56", "18", "14.4", "13.6", "PCB", "BOX"},
	{"GLASS-WINE-6", "OUTER_CARTON", "box", "4", "62", "42", "26", "9.1", "8.4", "PCB", "BOX"},
	{"CARE-OIL-500", "OUTER_CARTON", "box", "12", "26", "18", "24", "7.1", "6.72", "PCB", "BOX"},
	{"CARE-OIL-500", "PALLET", "", "960", "120", "80", "130", "590", "537.6", "", "PALLET"},
}

func packagingsB() *table {
	t := &table{}
	for _, pk := range packagingsOfB {
		p := productBySKU(pk.SKU)
		ean := ""
		switch pk.EAN {
		case "each":
			ean = p.EAN()
		case "box":
			ean = p.EANBox()
		case "inner":
			ean = gtin14(2, p.EAN())
		}
		t.add("sku", pk.SKU, "code", pk.Code, "ean", ean, "quantity", pk.Quantity, "length", pk.L, "width", pk.W,
			"height", pk.H, "grossWeight", pk.Gross, "netWeight", pk.Net, "level", pk.Level, "type", pk.Type, "supplierCode", p.Supplier)
	}
	return t
}

// Purchase orders name the warehouse by code, except one that gives its id.
var purchaseOrders = []reception{
	{"PO-2026-000311", "ERP-88123", whLyonCode, "SUP-NORDIC", "", "", "2026-03-16T07:00:00Z", []line{
		{SKU: "CHR-OAK-DIN", Quantity: 240, Owner: "MN-FR"}, {SKU: "SOFA-VELVET-GREEN", Quantity: 20, Owner: "MN-FR"}, {SKU: "TBL-OAK180-TOP", Quantity: 40, Owner: "MN-FR"}, {SKU: "TBL-OAK180-LEG", Quantity: 40, Owner: "MN-FR"}}},
	{"PO-2026-000312", "ERP-88131", whHamburgCde, "SUP-HOLZWERK", "", "", "2026-03-17T06:30:00Z", []line{
		{SKU: "CARE-OIL-500", Quantity: 480, Lot: "L2603-117", Expiry: "2028-02-29", Owner: "MN-DE"},
		{SKU: "CARE-OIL-500", Quantity: 240, Lot: "L2603-124", Expiry: "2028-03-14", Owner: "MN-DE"},
		{SKU: "BED-PINE-160", Quantity: 30, Owner: "MN-DE"}}},
	{"PO-2026-000313", "ERP-88140", "#" + whHamburg, "SUP-KERAMIK", "", "", "2026-03-18T08:00:00Z", []line{
		{SKU: "PLATE-STW-27", Quantity: 600, Owner: "MN-DE"}, {SKU: "BOWL-STW-15", Quantity: 480, Owner: "MN-DE"}, {SKU: "MUG-STW-35CL", Quantity: 720, Owner: "MN-DE"}}},
	{"PO-2026-000314", "ERP-88152", whLyonCode, "SUP-LINVOSGES", "", "", "2026-03-19T09:00:00Z", []line{
		{SKU: "DUVET-240-LIN", Quantity: 150, Owner: "MN-FR"}, {SKU: "PILLOW-65-LIN", Quantity: 400, Owner: "MN-FR"}, {SKU: "TOWEL-BATH-SAG", Quantity: 240, Owner: "MN-FR"}}},
	{"PO-2026-000315", "ERP-88171", whHamburgCde, "SUP-SMALAND", "", "", "2026-03-23T07:00:00Z", []line{
		{SKU: "GLASS-WINE-6", Quantity: 480, Owner: "MN-DE"}}},
	{"PO-2026-000316", "ERP-88175", whLyonCode, "SUP-BIOT", "", "", "2026-03-24T08:30:00Z", []line{
		{SKU: "CARAFE-1L", Quantity: 180, Owner: "MN-FR"}}},
}

// purchaseOrdersXLSX are in the XLSX sample, with real Excel dates.
var purchaseOrdersXLSX = []reception{
	{"PO-2026-000320", "ERP-88190", whLyonCode, "SUP-LUMIERE", "", "", "2026-03-25T08:00:00Z", []line{
		{SKU: "LAMP-FLOOR-BRS", Quantity: 35, Owner: "MN-FR"}, {SKU: "LAMP-TABLE-LIN", Quantity: 80, Owner: "MN-FR"}}},
	{"PO-2026-000321", "ERP-88194", whHamburgCde, "SUP-HOLZWERK", "", "", "2026-03-26T00:00:00Z", []line{
		{SKU: "CARE-OIL-500", Quantity: 360, Lot: "L2603-131", Expiry: "2028-03-31", Owner: "MN-DE"},
		{SKU: "MIRROR-RND-80", Quantity: 40, Owner: "MN-DE"}}},
}

func purchaseOrdersB(list []reception) *table {
	t := &table{}
	for _, r := range list {
		code, id := r.Warehouse, ""
		if code[0] == '#' {
			code, id = "", code[1:]
		}
		head := []string{"orderNumber", r.Number, "referenceNumber", r.Reference, "warehouseCode", code, "warehouseLocation", id,
			"supplierCode", r.Supplier, "dueAt", r.Due}
		for i, l := range r.Lines {
			t.add(with(head, "position", strconv.Itoa(i+1), "sku", l.SKU, "quantity", strconv.Itoa(l.Quantity),
				"lotNumber", l.Lot, "expiryDate", l.Expiry, "ownerCode", l.Owner)...)
		}
	}
	return t
}

// salesOrder is an Edition B sales order: to an existing connection
// (ShipToCode alone) or to an embedded consignee (Consignee >= 0).
type salesOrder struct {
	order
	ShipToCode, BillingToCode, DeliveryMode string
}

var salesOrdersOfB = []salesOrder{
	{order{Number: "SO-2026-20001", External: "WEB-771203", WarehouseCode: whLyonCode, Consignee: 0, Carrier: "DHL", Planned: "2026-03-20", SlotBefore: "12:00",
		Lines: []orderLine{{SKU: "CHR-OAK-DIN", Quantity: 4}, {SKU: "SOFA-VELVET-GREEN", Quantity: 1}}}, "", "ENT-MN-FR", "B2C_HOME"},
	{order{Number: "SO-2026-20002", External: "ALS-2026-044", WarehouseCode: whHamburgCde, Consignee: -1, Carrier: "GLS", CarrierService: "GLS-BP", Planned: "2026-03-23", SlotBefore: "10:00",
		Lines: []orderLine{{SKU: "PLATE-STW-27", Quantity: 120}, {SKU: "BOWL-STW-15", Quantity: 120}, {SKU: "MUG-STW-35CL", Quantity: 96}, {SKU: "CARE-OIL-500", Quantity: 24, Lot: "L2603-117"}}},
		"CUST-ALSTERHOF", "ENT-MN-DE", "B2B_PALLET"},
	{order{Number: "SO-2026-20003", External: "WEB-771228", WarehouseCode: whHamburgCde, Consignee: 2, Carrier: "UPS", CarrierService: "UPS-STD",
		Lines: []orderLine{{SKU: "LAMP-TABLE-LIN", Quantity: 1}, {SKU: "CARE-OIL-500", Quantity: 2}}}, "", "ENT-MN-DE", "B2C_PARCEL"},
	{order{Number: "SO-2026-20004", External: "WEB-771247", Warehouse: whHamburg, Consignee: 4, Planned: "2026-03-24",
		Lines: []orderLine{{SKU: "GLASS-WINE-6", Quantity: 1}, {SKU: "CARAFE-1L", Quantity: 2}}}, "", "ENT-MN-DE", "B2C_PARCEL"},
	{order{Number: "SO-2026-20005", External: "TER-0319", WarehouseCode: whLyonCode, Consignee: -1, Carrier: "DHL", Planned: "2026-03-19", SlotBefore: "09:30",
		Lines: []orderLine{{SKU: "GLASS-WINE-6", Quantity: 10}, {SKU: "CARAFE-1L", Quantity: 12}, {SKU: "PLATE-STW-27", Quantity: 48}}}, "CUST-TERREAUX", "ENT-MN-FR", "B2B_PALLET"},
	{order{Number: "SO-2026-20006", External: "WEB-771262", WarehouseCode: whHamburgCde, Consignee: 6, Carrier: "GLS", Planned: "2026-03-25", SlotBefore: "18:00",
		Lines: []orderLine{{SKU: "SOFA3-GRY-BASE", Quantity: 1}, {SKU: "SOFA3-GRY-CUSH", Quantity: 1}}}, "", "ENT-MN-DE", "B2C_HOME"},
}

func salesOrdersB() *table {
	t := &table{}
	for _, o := range salesOrdersOfB {
		head := []string{"orderNumber", o.Number, "externalOrderNumber", o.External, "deliveryMode", o.DeliveryMode,
			"warehouseCode", o.WarehouseCode, "warehouseLocation", o.Warehouse, "shipToCode", o.ShipToCode,
			"billingToCode", o.BillingToCode, "carrierCode", o.Carrier, "carrierServiceCode", o.CarrierService, "plannedDeliveryDate", o.Planned,
			"deliveryTimeSlotBefore", o.SlotBefore}
		if o.Consignee >= 0 {
			c := consignees[o.Consignee]
			head = with(head, "shipToCode", "B2C-"+c.connectionCodeSuffix, "shipTo.relationship", "Marketplace",
				"shipTo.name", c.Name(), "shipTo.streetAddress", c.Street, "shipTo.streetAddress2", c.Street2,
				"shipTo.zipcode", c.Zip, "shipTo.city", c.City, "shipTo.countryCode", c.Country,
				"shipTo.email", c.Email, "shipTo.phone", c.Phone)
		}
		for i, l := range o.Lines {
			t.add(with(head, "position", strconv.Itoa(i+1), "sku", l.SKU, "quantity", strconv.Itoa(l.Quantity), "lotNumber", l.Lot)...)
		}
	}
	return t
}
