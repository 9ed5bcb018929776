package model

import "time"

// The declarations: one struct per edition and document kind. A field's
// `col` tag is its file column (the API's field name, nested objects
// flattened with dots, codes instead of ids); `rule` gives what the API
// documents say of it (see schema.go); `doc` and `ex` are the line of the
// templates and the columns documentation. A field's Go name is the name of
// the field of the edition-neutral document (documents.go) it is bound to.
// Fields of a slice are line columns; a nested struct prefixes its columns
// with its own `col` (none when it has no tag).

type supplierA struct {
	Code         string `col:"code" rule:"key,required" doc:"unique supplier code" ex:"SUP-001"`
	Name         string `col:"name" rule:"required" doc:"supplier name" ex:"Nordic Furniture AB"`
	Relationship string `col:"relationship" rule:"enum=Manufacturer" doc:"always Manufacturer for a supplier (default)" ex:"Manufacturer"`
}

type connectionB struct {
	Code           string `col:"code" rule:"key,max=14" doc:"unique connection code (empty: the portal numbers it)" ex:"SUP-001"`
	Name           string `col:"name" rule:"required,max=30" doc:"connection name" ex:"Nordic Furniture AB"`
	Relationship   string `col:"relationship" rule:"required,enum=RelationshipsCreate" doc:"Manufacturer (supplier), Customer (B2B), Marketplace (B2C), Entity (billing)" ex:"Manufacturer"`
	CountryCode    string `col:"countryCode" rule:"type=country,max=2" doc:"ISO 3166 alpha-2 country" ex:"SE"`
	State          string `col:"state" doc:"state or province" ex:""`
	City           string `col:"city" doc:"city" ex:"Malmö"`
	Zipcode        string `col:"zipcode" doc:"postal code" ex:"21120"`
	StreetAddress  string `col:"streetAddress" doc:"address line 1" ex:"Industrigatan 4"`
	StreetAddress2 string `col:"streetAddress2" doc:"address line 2" ex:""`
	StreetAddress3 string `col:"streetAddress3" doc:"address line 3" ex:""`
	Email          string `col:"email" rule:"type=email" doc:"contact e-mail" ex:"orders@nordic.example"`
	ContactName    string `col:"contactName" doc:"contact person" ex:"Eva Lind"`
	Phone          string `col:"phone" doc:"contact phone" ex:"+46 40 123456"`
}

type skuA struct {
	SKU            string  `col:"sku" rule:"key,required,max=14" doc:"unique SKU code" ex:"CHAIR-OAK-01"`
	Name           string  `col:"name" rule:"required" doc:"SKU name" ex:"Oak chair"`
	Description1   string  `col:"description1" doc:"long description" ex:"Solid oak dining chair"`
	EAN            string  `col:"ean" rule:"type=ean,required" doc:"EAN of the selling unit" ex:"4006381333931"`
	EANBox         string  `col:"eanBox" rule:"type=ean" doc:"EAN of the master carton; required when quantityPerBox > 1" ex:"14006381333938"`
	QuantityPerBox Decimal `col:"quantityPerBox" rule:"required,positive" doc:"selling units per master carton" ex:"1"`
	Length         Decimal `col:"length" rule:"required,positive" doc:"centimetres" ex:"45"`
	Width          Decimal `col:"width" rule:"required,positive" doc:"centimetres" ex:"50"`
	Height         Decimal `col:"height" rule:"required,positive" doc:"centimetres" ex:"90"`
	GrossWeight    Decimal `col:"grossWeight" rule:"required,positive" doc:"kilograms, selling unit" ex:"6.5"`
	GrossWeightBox Decimal `col:"grossWeightBox" rule:"required,positive" doc:"kilograms, master carton" ex:"7.2"`
	BuyPrice       Decimal `col:"buyPrice" rule:"required,positive" doc:"product value, for transport claims" ex:"89.90"`
	SupplierCode   string  `col:"supplierCode" rule:"required,ref=SupplierID" doc:"code of an existing supplier" ex:"SUP-001"`
}

type variantB struct {
	SKU          string  `col:"sku" rule:"key,required,max=17" doc:"unique SKU code" ex:"CHAIR-OAK-01"`
	Name         string  `col:"name" rule:"required" doc:"variant name" ex:"Oak chair"`
	Description1 string  `col:"description1" doc:"long description" ex:"Solid oak dining chair"`
	EAN          string  `col:"ean" rule:"type=ean,required" doc:"EAN of the selling unit" ex:"4006381333931"`
	Length       Decimal `col:"length" rule:"positive" doc:"centimetres" ex:"45"`
	Width        Decimal `col:"width" rule:"positive" doc:"centimetres" ex:"50"`
	Height       Decimal `col:"height" rule:"positive" doc:"centimetres" ex:"90"`
	GrossWeight  Decimal `col:"grossWeight" rule:"positive" doc:"kilograms, selling unit" ex:"6.5"`
}

type packagingB struct {
	SKU          string  `col:"sku" rule:"required,max=17,nodiff" doc:"SKU of the variant this packaging belongs to" ex:"CHAIR-OAK-01"`
	Code         string  `col:"code" rule:"key,required" doc:"packaging code, unique per variant" ex:"OUTER_CARTON"`
	EAN          string  `col:"ean" rule:"type=ean" doc:"EAN of this packaging level" ex:"14006381333938"`
	Quantity     int64   `col:"quantity" rule:"positive" doc:"base units contained" ex:"4"`
	Length       Decimal `col:"length" rule:"positive" doc:"centimetres" ex:"60"`
	Width        Decimal `col:"width" rule:"positive" doc:"centimetres" ex:"55"`
	Height       Decimal `col:"height" rule:"positive" doc:"centimetres" ex:"95"`
	GrossWeight  Decimal `col:"grossWeight" rule:"positive" doc:"kilograms including contents" ex:"28"`
	NetWeight    Decimal `col:"netWeight" rule:"positive" doc:"kilograms, contents only" ex:"26"`
	Level        string  `col:"level" rule:"enum=PCB|SPCB|UVC" doc:"packaging level of the warehouse system" ex:"PCB"`
	Type         string  `col:"type" doc:"BOX, PALLET, BAG..." ex:"BOX"`
	SupplierCode string  `col:"supplierCode" doc:"code of a supplier connection" ex:"SUP-001"`
}

type receptionA struct {
	OrderNumber       string `col:"orderNumber" rule:"key,required,max=13" doc:"unique delivery number (container number for containers)" ex:"REC-2026-0042"`
	ReferenceNumber   string `col:"referenceNumber" doc:"purchase order number on the bill of lading" ex:"PO-88123"`
	WarehouseLocation int64  `col:"warehouseLocation" rule:"required,positive" doc:"id of the destination warehouse" ex:"3"`
	SupplierCode      string `col:"supplierCode" rule:"required,ref=SupplierID" doc:"code of the supplier" ex:"SUP-001"`
	OrderType         string `col:"orderType" rule:"enum=ReceptionOrderTypesA,undocumented=STANDARD" doc:"delivery type" ex:"CONT40"`
	Attributes        struct {
		DeliveryType string `col:"deliveryType" doc:"delivery type attribute" ex:"pallet"`
	} `col:"attributes"`
	DueAt time.Time `col:"dueAt" rule:"required" doc:"expected arrival at the warehouse" ex:"2026-12-01T08:00:00Z"`
	Lines []receptionLineA
}

type purchaseOrderB struct {
	OrderNumber       string    `col:"orderNumber" rule:"key,required,max=27" doc:"unique purchase order number" ex:"PO-2026-000042"`
	ReferenceNumber   string    `col:"referenceNumber" doc:"additional reference" ex:"ERP-88123"`
	WarehouseLocation int64     `col:"warehouseLocation" rule:"positive" doc:"id of the destination warehouse (or warehouseCode)" ex:"3"`
	WarehouseCode     string    `col:"warehouseCode" rule:"nodiff" doc:"code of the destination warehouse (or warehouseLocation)" ex:"WH-LYON"`
	SupplierCode      string    `col:"supplierCode" rule:"required,ref=SupplierID" doc:"code of the supplier connection" ex:"SUP-001"`
	OrderType         string    `col:"orderType" doc:"purchase order type" ex:""`
	DueAt             time.Time `col:"dueAt" doc:"planned receiving date" ex:"2026-12-01T08:00:00Z"`
	Lines             []purchaseOrderLineB
}

// inboundLine are the line columns of receptions and purchase orders.
type inboundLine struct {
	Position int    `col:"position" rule:"positive,nodiff" doc:"line number, unique in the order (default 1..n)" ex:"1"`
	SKU      string `col:"sku" rule:"required,ref=VariantID" doc:"SKU code of the line" ex:"CHAIR-OAK-01"`
	Quantity int64  `col:"quantity" rule:"required,positive" doc:"expected quantity" ex:"40"`
}

// The SKU master columns of an inbound line ("lineitem"): when a row
// carries them, the SKU is created before the inbound document if it does
// not exist yet (the documents' nested-SKU rule).

type receptionLineA struct {
	inboundLine
	Item skuA `col:"item" rule:"lineitem"`
}

type purchaseOrderLineB struct {
	inboundLine
	LotNumber  string    `col:"lotNumber" doc:"lot number" ex:"LOT-7781"`
	ExpiryDate time.Time `col:"expiryDate" rule:"nodiff" doc:"expiry date" ex:"2027-06-30"`
	OwnerCode  string    `col:"ownerCode" doc:"stock owner" ex:""`
	Item       variantB  `col:"item" rule:"lineitem"`
}

type orderA struct {
	OrderNumber         string `col:"orderNumber" rule:"key,required,max=17" doc:"unique order number" ex:"SO-2026-10001"`
	ExternalOrderNumber string `col:"externalOrderNumber" rule:"required" doc:"the customer's own order number" ex:"WEB-558812"`
	DeliveryMode        string `col:"deliveryMode" rule:"enum=ECO|STANDARD|UNPACKING|MOUNTING" doc:"delivery mode" ex:"STANDARD"`
	WarehouseLocation   int64  `col:"warehouseLocation" rule:"required,positive" doc:"id of the warehouse the goods ship from" ex:"3"`
	ShipTo              struct {
		Name           string `col:"name" doc:"receiver name (or lastName)" ex:"Jeanne Martin"`
		Title          string `col:"title" rule:"nodiff" doc:"title" ex:"Mme"`
		FirstName      string `col:"firstName" rule:"nodiff" doc:"first name" ex:"Jeanne"`
		LastName       string `col:"lastName" doc:"last name" ex:"Martin"`
		StreetAddress  string `col:"streetAddress" doc:"street, required" ex:"12 rue des Lilas"`
		StreetAddress2 string `col:"streetAddress2" rule:"nodiff" doc:"address line 2" ex:""`
		City           string `col:"city" doc:"city, required" ex:"Lyon"`
		CountryCode    string `col:"countryCode" rule:"type=country,max=2" doc:"ISO 3166 alpha-2, required" ex:"FR"`
		Zipcode        string `col:"zipcode" doc:"postal code, required" ex:"69003"`
		Email          string `col:"email" rule:"type=email,nodiff" doc:"e-mail" ex:"jeanne.martin@example.org"`
		Phone          string `col:"phone" rule:"nodiff" doc:"phone" ex:"+33 6 12 34 56 78"`
		LanguageCode   string `col:"languageCode" rule:"nodiff" doc:"language" ex:"fr"`
		AccessCode     string `col:"attributes.accessCode" rule:"nodiff" doc:"door code" ex:"4521"`
		Company        string `col:"attributes.company" rule:"nodiff" doc:"company" ex:""`
		Floor          string `col:"attributes.floor" rule:"nodiff" doc:"floor" ex:"3"`
		Building       string `col:"attributes.building" rule:"nodiff" doc:"building" ex:"B"`
	} `col:"shipTo"`
	Lines []struct {
		outboundLine
		// A service line is a row with serviceType and no sku.
		ServiceType          string `col:"serviceType" rule:"service,nodiff" doc:"service line type (row without sku), e.g. take-back" ex:""`
		ReceptionOrderNumber string `col:"purchaseOrderLineItem.orderNumber" rule:"max=13,nodiff" doc:"reception the line's goods come from" ex:""`
		ReceptionPosition    int    `col:"purchaseOrderLineItem.position" rule:"positive,nodiff" doc:"position of that reception line" ex:""`
	}
}

type salesOrderB struct {
	OrderNumber            string    `col:"orderNumber" rule:"key,required,max=17" doc:"unique order number" ex:"SO-2026-10001"`
	ExternalOrderNumber    string    `col:"externalOrderNumber" doc:"the customer's own order number" ex:"WEB-558812"`
	DeliveryMode           string    `col:"deliveryMode" doc:"used in carrier selection" ex:""`
	WarehouseLocation      int64     `col:"warehouseLocation" rule:"positive" doc:"id of the origin warehouse (or warehouseCode)" ex:"3"`
	WarehouseCode          string    `col:"warehouseCode" rule:"nodiff" doc:"code of the origin warehouse (or warehouseLocation)" ex:"WH-LYON"`
	ShipToCode             string    `col:"shipToCode" rule:"ref=ShipToID,unless=ShipTo" doc:"consignee connection code: alone, an existing connection; with shipTo.* columns, the code of the embedded consignee" ex:""`
	BillingToCode          string    `col:"billingToCode" rule:"ref=BillingToID,unless=BillingTo" doc:"code of the billing connection" ex:""`
	CarrierCode            string    `col:"carrierCode" rule:"ref=CarrierID" doc:"carrier code (empty: automatic selection)" ex:"DHL"`
	CarrierServiceCode     string    `col:"carrierServiceCode" rule:"ref=CarrierServiceID" doc:"carrier service code (empty: automatic selection)" ex:""`
	PlannedDeliveryDate    time.Time `col:"plannedDeliveryDate" rule:"type=date" doc:"wished delivery date" ex:"2026-12-03"`
	DeliveryTimeSlotBefore string    `col:"deliveryTimeSlotBefore" rule:"type=time,nodiff" doc:"latest wished delivery time" ex:"17:00"`
	ShipTo                 struct {
		Relationship   string `col:"relationship" rule:"enum=RelationshipsCreate,nodiff" doc:"Customer (B2B) or Marketplace (B2C, default)" ex:"Marketplace"`
		Name           string `col:"name" rule:"max=30" doc:"consignee name, required" ex:"Jeanne Martin"`
		ContactName    string `col:"contactName" rule:"nodiff" doc:"contact person" ex:""`
		StreetAddress  string `col:"streetAddress" doc:"street, required" ex:"12 rue des Lilas"`
		StreetAddress2 string `col:"streetAddress2" rule:"nodiff" doc:"address line 2" ex:""`
		StreetAddress3 string `col:"streetAddress3" rule:"nodiff" doc:"address line 3" ex:""`
		City           string `col:"city" doc:"city, required" ex:"Lyon"`
		State          string `col:"state" rule:"nodiff" doc:"state or province" ex:""`
		Zipcode        string `col:"zipcode" doc:"postal code, required" ex:"69003"`
		CountryCode    string `col:"countryCode" rule:"type=country,max=2" doc:"ISO 3166 alpha-2, required" ex:"FR"`
		Email          string `col:"email" rule:"type=email,nodiff" doc:"e-mail" ex:"jeanne.martin@example.org"`
		Phone          string `col:"phone" rule:"nodiff" doc:"phone" ex:"+33 6 12 34 56 78"`
	} `col:"shipTo"`
	Lines []struct {
		outboundLine
		LotNumber  string    `col:"lotNumber" doc:"requested lot" ex:""`
		ExpiryDate time.Time `col:"expiryDate" rule:"nodiff" doc:"requested expiry date" ex:""`
		OwnerCode  string    `col:"ownerCode" doc:"requested stock owner" ex:""`
	}
}

// outboundLine are the line columns of orders and sales orders.
type outboundLine struct {
	Position int    `col:"position" rule:"positive,nodiff" doc:"line number, unique in the order (default 1..n)" ex:"1"`
	SKU      string `col:"sku" rule:"ref=VariantID" doc:"SKU code of the line (empty on a service line)" ex:"CHAIR-OAK-01"`
	Quantity int64  `col:"quantity" rule:"required,positive" doc:"ordered quantity" ex:"2"`
}

// declarations are the declared documents by edition and kind.
var declarations = map[Edition]map[Kind]any{
	EditionA: {
		KindPartner:  supplierA{},
		KindItem:     skuA{},
		KindInbound:  receptionA{},
		KindOutbound: orderA{},
	},
	EditionB: {
		KindPartner:   connectionB{},
		KindItem:      variantB{},
		KindPackaging: packagingB{},
		KindInbound:   purchaseOrderB{},
		KindOutbound:  salesOrderB{},
	},
}
