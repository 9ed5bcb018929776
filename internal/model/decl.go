package model

// The declarations: one struct per edition and document kind, the create
// request of the API documents. A field's `col` tag is its file column
// (the API's field name, nested objects flattened with dots, codes instead
// of ids; "-" for none); `json` is its name in the request; `rule` gives
// what the API documents say of it (see schema.go); `doc` and `ex` are the
// line of the templates and the columns documentation. A field's Go name
// (or its `model` tag; "-" for an object whose fields the document keeps
// flat) names the field of the edition-neutral document (documents.go) it
// is bound to and sent from (see body.go for `fill` and `default`). Fields
// of a slice are line columns; a nested struct prefixes its columns with its
// own `col` (none when it has no tag).

type supplierA struct {
	Company      int64  `json:"company" fill:"company"`
	Code         string `col:"code" json:"code" rule:"key,required" doc:"unique supplier code" ex:"SUP-001"`
	Name         string `col:"name" json:"name" rule:"required" doc:"supplier name" ex:"Nordic Furniture AB"`
	Relationship string `col:"relationship" json:"relationship" default:"Manufacturer" rule:"enum=Manufacturer" doc:"always Manufacturer for a supplier (default)" ex:"Manufacturer"`
}

type connectionB struct {
	Company        int64  `json:"company" fill:"company"`
	Code           string `col:"code" json:"code,omitempty" rule:"key,max=14" doc:"unique connection code (empty: the portal numbers it)" ex:"SUP-001"`
	Name           string `col:"name" json:"name" rule:"required,max=30" doc:"connection name" ex:"Nordic Furniture AB"`
	Relationship   string `col:"relationship" json:"relationship" rule:"required,enum=RelationshipsCreate" doc:"Manufacturer (supplier), Customer (B2B), Marketplace (B2C), Entity (billing)" ex:"Manufacturer"`
	CountryCode    string `col:"countryCode" json:"countryCode,omitempty" rule:"type=country,max=2" doc:"ISO 3166 alpha-2 country" ex:"SE"`
	State          string `col:"state" json:"state,omitempty" doc:"state or province" ex:""`
	City           string `col:"city" json:"city,omitempty" doc:"city" ex:"Malmö"`
	Zipcode        string `col:"zipcode" json:"zipcode,omitempty" doc:"postal code" ex:"21120"`
	StreetAddress  string `col:"streetAddress" json:"streetAddress,omitempty" doc:"address line 1" ex:"Industrigatan 4"`
	StreetAddress2 string `col:"streetAddress2" json:"streetAddress2,omitempty" doc:"address line 2" ex:""`
	StreetAddress3 string `col:"streetAddress3" json:"streetAddress3,omitempty" doc:"address line 3" ex:""`
	Email          string `col:"email" json:"email,omitempty" rule:"type=email" doc:"contact e-mail" ex:"orders@nordic.example"`
	ContactName    string `col:"contactName" json:"contactName,omitempty" doc:"contact person" ex:"Eva Lind"`
	Phone          string `col:"phone" json:"phone,omitempty" doc:"contact phone" ex:"+46 40 123456"`
}

type skuA struct {
	Company        int64   `json:"company" fill:"company"`
	SKU            string  `col:"sku" json:"sku" rule:"key,required,max=14" doc:"unique SKU code" ex:"CHAIR-OAK-01"`
	Name           string  `col:"name" json:"name" rule:"required" doc:"SKU name" ex:"Oak chair"`
	Description1   string  `col:"description1" json:"description1,omitempty" doc:"long description" ex:"Solid oak dining chair"`
	EAN            string  `col:"ean" json:"ean" rule:"type=ean,required" doc:"EAN of the selling unit" ex:"4006381333931"`
	EANBox         string  `col:"eanBox" json:"eanBox,omitempty" rule:"type=ean" doc:"EAN of the master carton; required when quantityPerBox > 1" ex:"14006381333938"`
	QuantityPerBox Decimal `col:"quantityPerBox" json:"quantityPerBox,omitempty" rule:"required,positive" doc:"selling units per master carton" ex:"1"`
	Length         Decimal `col:"length" json:"length,omitempty" rule:"required,positive" doc:"centimetres" ex:"45"`
	Width          Decimal `col:"width" json:"width,omitempty" rule:"required,positive" doc:"centimetres" ex:"50"`
	Height         Decimal `col:"height" json:"height,omitempty" rule:"required,positive" doc:"centimetres" ex:"90"`
	GrossWeight    Decimal `col:"grossWeight" json:"grossWeight,omitempty" rule:"required,positive" doc:"kilograms, selling unit" ex:"6.5"`
	GrossWeightBox Decimal `col:"grossWeightBox" json:"grossWeightBox,omitempty" rule:"required,positive" doc:"kilograms, master carton" ex:"7.2"`
	BuyPrice       Decimal `col:"buyPrice" json:"buyPrice,omitempty" rule:"required,positive" doc:"product value, for transport claims" ex:"89.90"`
	SupplierCode   string  `col:"supplierCode" json:"-" rule:"required,ref=SupplierID" doc:"code of an existing supplier" ex:"SUP-001"`
	SupplierID     int64   `json:"supplier,omitempty"`
}

type variantB struct {
	Company      int64   `json:"company" fill:"company"`
	SKU          string  `col:"sku" json:"sku" rule:"key,required,max=17" doc:"unique SKU code" ex:"CHAIR-OAK-01"`
	Name         string  `col:"name" json:"name" rule:"required" doc:"variant name" ex:"Oak chair"`
	Description1 string  `col:"description1" json:"description1,omitempty" doc:"long description" ex:"Solid oak dining chair"`
	EAN          string  `col:"ean" json:"ean" rule:"type=ean,required" doc:"EAN of the selling unit" ex:"4006381333931"`
	Length       Decimal `col:"length" json:"length,omitempty" rule:"positive" doc:"centimetres" ex:"45"`
	Width        Decimal `col:"width" json:"width,omitempty" rule:"positive" doc:"centimetres" ex:"50"`
	Height       Decimal `col:"height" json:"height,omitempty" rule:"positive" doc:"centimetres" ex:"90"`
	GrossWeight  Decimal `col:"grossWeight" json:"grossWeight,omitempty" rule:"positive" doc:"kilograms, selling unit" ex:"6.5"`
}

type packagingB struct {
	SKU          string  `col:"sku" json:"-" rule:"required,max=17,nodiff" doc:"SKU of the variant this packaging belongs to" ex:"CHAIR-OAK-01"`
	Variant      string  `json:"variant" fill:"variant"` // the variant's IRI
	Code         string  `col:"code" json:"code" rule:"key,required" doc:"packaging code, unique per variant" ex:"OUTER_CARTON"`
	EAN          string  `col:"ean" json:"ean,omitempty" rule:"type=ean" doc:"EAN of this packaging level" ex:"14006381333938"`
	Quantity     int64   `col:"quantity" json:"quantity,omitempty" rule:"positive" doc:"base units contained" ex:"4"`
	Length       Decimal `col:"length" json:"length,omitempty" rule:"positive" doc:"centimetres" ex:"60"`
	Width        Decimal `col:"width" json:"width,omitempty" rule:"positive" doc:"centimetres" ex:"55"`
	Height       Decimal `col:"height" json:"height,omitempty" rule:"positive" doc:"centimetres" ex:"95"`
	GrossWeight  Decimal `col:"grossWeight" json:"grossWeight,omitempty" rule:"positive" doc:"kilograms including contents" ex:"28"`
	NetWeight    Decimal `col:"netWeight" json:"netWeight,omitempty" rule:"positive" doc:"kilograms, contents only" ex:"26"`
	Level        string  `col:"level" json:"level,omitempty" rule:"enum=PCB|SPCB|UVC" doc:"packaging level of the warehouse system" ex:"PCB"`
	Type         string  `col:"type" json:"type,omitempty" doc:"BOX, PALLET, BAG..." ex:"BOX"`
	SupplierCode string  `col:"supplierCode" json:"-" doc:"code of a supplier connection" ex:"SUP-001"`
	Supplier     string  `json:"supplier,omitempty" fill:"supplier"` // the connection's id, as a string
}

type receptionA struct {
	Company           int64  `json:"company" fill:"company"`
	OrderNumber       string `col:"orderNumber" json:"orderNumber" rule:"key,required,max=13" doc:"unique delivery number (container number for containers)" ex:"REC-2026-0042"`
	ReferenceNumber   string `col:"referenceNumber" json:"referenceNumber,omitempty" doc:"purchase order number on the bill of lading" ex:"PO-88123"`
	WarehouseLocation int64  `col:"warehouseLocation" json:"warehouseLocation" rule:"required,positive" doc:"id of the destination warehouse" ex:"3"`
	SupplierCode      string `col:"supplierCode" json:"-" rule:"required,ref=SupplierID" doc:"code of the supplier" ex:"SUP-001"`
	SupplierID        int64  `json:"supplier"`
	OrderType         string `col:"orderType" json:"orderType,omitempty" rule:"enum=ReceptionOrderTypesA,undocumented=STANDARD" doc:"delivery type" ex:"CONT40"`
	Attributes        *struct {
		DeliveryType string `col:"deliveryType" json:"deliveryType,omitempty" doc:"delivery type attribute" ex:"pallet"`
	} `col:"attributes" json:"attributes,omitempty"`
	DueAt Timestamp        `col:"dueAt" json:"dueAt,omitzero" rule:"required" doc:"expected arrival at the warehouse" ex:"2026-12-01T08:00:00Z"`
	Lines []receptionLineA `json:"purchaseOrderLineItems"`
}

type purchaseOrderB struct {
	Company           int64                `json:"company" fill:"company"`
	OrderNumber       string               `col:"orderNumber" json:"orderNumber" rule:"key,required,max=27" doc:"unique purchase order number" ex:"PO-2026-000042"`
	ReferenceNumber   string               `col:"referenceNumber" json:"referenceNumber,omitempty" doc:"additional reference" ex:"ERP-88123"`
	WarehouseLocation int64                `col:"warehouseLocation" json:"warehouseLocation" rule:"positive" doc:"id of the destination warehouse (or warehouseCode)" ex:"3"`
	WarehouseCode     string               `col:"warehouseCode" json:"-" rule:"nodiff" doc:"code of the destination warehouse (or warehouseLocation)" ex:"WH-LYON"`
	SupplierCode      string               `col:"supplierCode" json:"-" rule:"required,ref=SupplierID" doc:"code of the supplier connection" ex:"SUP-001"`
	SupplierID        int64                `json:"supplier"`
	OrderType         string               `col:"orderType" json:"orderType,omitempty" doc:"purchase order type" ex:""`
	DueAt             Timestamp            `col:"dueAt" json:"dueAt,omitzero" doc:"planned receiving date" ex:"2026-12-01T08:00:00Z"`
	Lines             []purchaseOrderLineB `json:"purchaseOrderLineItems"`
}

// inboundLine are the line columns of receptions and purchase orders.
type inboundLine struct {
	Position  int    `col:"position" json:"position" rule:"positive,nodiff" doc:"line number, unique in the order (default 1..n)" ex:"1"`
	SKU       string `col:"sku" json:"-" rule:"required,ref=VariantID" doc:"SKU code of the line" ex:"CHAIR-OAK-01"`
	VariantID int64  `json:"variant"`
	Quantity  int64  `col:"quantity" json:"quantity" rule:"required,positive" doc:"expected quantity" ex:"40"`
}

// The SKU master columns of an inbound line ("lineitem"): when a row
// carries them, the SKU is created before the inbound document if it does
// not exist yet (the documents' nested-SKU rule).

type receptionLineA struct {
	inboundLine
	Item skuA `col:"item" json:"-" rule:"lineitem"`
}

type purchaseOrderLineB struct {
	inboundLine
	LotNumber  string    `col:"lotNumber" json:"lotNumber,omitempty" doc:"lot number" ex:"LOT-7781"`
	ExpiryDate Timestamp `col:"expiryDate" json:"expiryDate,omitzero" rule:"nodiff" doc:"expiry date" ex:"2027-06-30"`
	OwnerCode  string    `col:"ownerCode" json:"ownerCode,omitempty" doc:"stock owner" ex:""`
	Item       variantB  `col:"item" json:"-" rule:"lineitem"`
}

type orderA struct {
	Company             int64  `json:"company" fill:"company"`
	OrderNumber         string `col:"orderNumber" json:"orderNumber" rule:"key,required,max=17" doc:"unique order number" ex:"SO-2026-10001"`
	ExternalOrderNumber string `col:"externalOrderNumber" json:"externalOrderNumber" rule:"required" doc:"the customer's own order number" ex:"WEB-558812"`
	DeliveryMode        string `col:"deliveryMode" json:"deliveryMode,omitempty" rule:"enum=ECO|STANDARD|UNPACKING|MOUNTING" doc:"delivery mode" ex:"STANDARD"`
	WarehouseLocation   int64  `col:"warehouseLocation" json:"warehouseLocation" rule:"required,positive" doc:"id of the warehouse the goods ship from" ex:"3"`
	ShipTo              *struct {
		Name           string `col:"name" json:"name,omitempty" doc:"receiver name (or lastName)" ex:"Jeanne Martin"`
		Title          string `col:"title" json:"title,omitempty" rule:"nodiff" doc:"title" ex:"Mme"`
		FirstName      string `col:"firstName" json:"firstName,omitempty" rule:"nodiff" doc:"first name" ex:"Jeanne"`
		LastName       string `col:"lastName" json:"lastName,omitempty" doc:"last name" ex:"Martin"`
		StreetAddress  string `col:"streetAddress" json:"streetAddress,omitempty" doc:"street, required" ex:"12 rue des Lilas"`
		StreetAddress2 string `col:"streetAddress2" json:"streetAddress2,omitempty" rule:"nodiff" doc:"address line 2" ex:""`
		City           string `col:"city" json:"city,omitempty" doc:"city, required" ex:"Lyon"`
		CountryCode    string `col:"countryCode" json:"countryCode,omitempty" rule:"type=country,max=2" doc:"ISO 3166 alpha-2, required" ex:"FR"`
		Zipcode        string `col:"zipcode" json:"zipcode,omitempty" doc:"postal code, required" ex:"69003"`
		Email          string `col:"email" json:"email,omitempty" rule:"type=email,nodiff" doc:"e-mail" ex:"jeanne.martin@example.org"`
		Phone          string `col:"phone" json:"phone,omitempty" rule:"nodiff" doc:"phone" ex:"+33 6 12 34 56 78"`
		LanguageCode   string `col:"languageCode" json:"languageCode,omitempty" rule:"nodiff" doc:"language" ex:"fr"`
		Attributes     *struct {
			AccessCode string `col:"accessCode" json:"accessCode,omitempty" rule:"nodiff" doc:"door code" ex:"4521"`
			Company    string `col:"company" json:"company,omitempty" rule:"nodiff" doc:"company" ex:""`
			Floor      string `col:"floor" json:"floor,omitempty" rule:"nodiff" doc:"floor" ex:"3"`
			Building   string `col:"building" json:"building,omitempty" rule:"nodiff" doc:"building" ex:"B"`
		} `col:"attributes" json:"attributes,omitempty" model:"-"`
	} `col:"shipTo" json:"shipTo,omitempty"`
	Lines []struct {
		outboundLine
		// A service line is a row with serviceType and no sku.
		ServiceType           string `col:"serviceType" json:"-" rule:"service,nodiff" doc:"service line type (row without sku), e.g. take-back" ex:""`
		PurchaseOrderLineItem *struct {
			OrderNumber string `col:"orderNumber" json:"orderNumber" model:"ReceptionOrderNumber" rule:"max=13,nodiff" doc:"reception the line's goods come from" ex:""`
			Position    int    `col:"position" json:"position" model:"ReceptionPosition" rule:"positive,nodiff" doc:"position of that reception line" ex:""`
		} `col:"purchaseOrderLineItem" json:"purchaseOrderLineItem,omitempty" model:"-"`
	} `json:"salesOrderLineItems"`
	ServiceLines []struct {
		Position    int    `json:"position"`
		ServiceType string `json:"serviceType"`
		Quantity    int64  `json:"quantity"`
	} `col:"-" json:"serviceLineItems,omitempty"`
}

type salesOrderB struct {
	Company                int64           `json:"company" fill:"company"`
	OrderNumber            string          `col:"orderNumber" json:"orderNumber" rule:"key,required,max=17" doc:"unique order number" ex:"SO-2026-10001"`
	ExternalOrderNumber    string          `col:"externalOrderNumber" json:"externalOrderNumber,omitempty" doc:"the customer's own order number" ex:"WEB-558812"`
	DeliveryMode           string          `col:"deliveryMode" json:"deliveryMode,omitempty" doc:"used in carrier selection" ex:""`
	WarehouseLocation      int64           `col:"warehouseLocation" json:"warehouseLocation" rule:"positive" doc:"id of the origin warehouse (or warehouseCode)" ex:"3"`
	WarehouseCode          string          `col:"warehouseCode" json:"-" rule:"nodiff" doc:"code of the origin warehouse (or warehouseLocation)" ex:"WH-LYON"`
	ShipToCode             string          `col:"shipToCode" json:"-" rule:"ref=ShipToID,unless=ShipTo" doc:"consignee connection code: alone, an existing connection; with shipTo.* columns, the code of the embedded consignee" ex:""`
	BillingToCode          string          `col:"billingToCode" json:"-" rule:"ref=BillingToID,unless=BillingTo" doc:"code of the billing connection" ex:""`
	BillingTo              Ref[consigneeB] `col:"-" json:"billingTo,omitzero"`
	CarrierCode            string          `col:"carrierCode" json:"-" rule:"ref=CarrierID" doc:"carrier code (empty: automatic selection)" ex:"DHL"`
	CarrierID              int64           `json:"carrier,omitempty"`
	CarrierServiceCode     string          `col:"carrierServiceCode" json:"-" rule:"ref=CarrierServiceID" doc:"carrier service code (empty: automatic selection)" ex:""`
	CarrierServiceID       int64           `json:"carrierService,omitempty"`
	PlannedDeliveryDate    Date            `col:"plannedDeliveryDate" json:"plannedDeliveryDate,omitzero" doc:"wished delivery date" ex:"2026-12-03"`
	DeliveryTimeSlotBefore string          `col:"deliveryTimeSlotBefore" json:"deliveryTimeSlotBefore,omitempty" rule:"type=time,nodiff" doc:"latest wished delivery time" ex:"17:00"`
	ShipTo                 Ref[consigneeB] `col:"shipTo" json:"shipTo,omitzero"`
	Lines                  []struct {
		outboundLine
		LotNumber  string    `col:"lotNumber" json:"lotNumber,omitempty" doc:"requested lot" ex:""`
		ExpiryDate Timestamp `col:"expiryDate" json:"expiryDate,omitzero" rule:"nodiff" doc:"requested expiry date" ex:""`
		OwnerCode  string    `col:"ownerCode" json:"ownerCode,omitempty" doc:"requested stock owner" ex:""`
	} `json:"salesOrderLineItems"`
}

// consigneeB is a connection embedded in a sales order, a consignee or a
// billing party: its code is the order's shipToCode (billingToCode).
type consigneeB struct {
	Company        int64  `json:"company" fill:"company"`
	Code           string `json:"code,omitempty"`
	Relationship   string `col:"relationship" json:"relationship" default:"Marketplace" rule:"enum=RelationshipsCreate,nodiff" doc:"Customer (B2B) or Marketplace (B2C, default)" ex:"Marketplace"`
	Name           string `col:"name" json:"name" rule:"max=30" doc:"consignee name, required" ex:"Jeanne Martin"`
	ContactName    string `col:"contactName" json:"contactName,omitempty" rule:"nodiff" doc:"contact person" ex:""`
	StreetAddress  string `col:"streetAddress" json:"streetAddress,omitempty" doc:"street, required" ex:"12 rue des Lilas"`
	StreetAddress2 string `col:"streetAddress2" json:"streetAddress2,omitempty" rule:"nodiff" doc:"address line 2" ex:""`
	StreetAddress3 string `col:"streetAddress3" json:"streetAddress3,omitempty" rule:"nodiff" doc:"address line 3" ex:""`
	City           string `col:"city" json:"city,omitempty" doc:"city, required" ex:"Lyon"`
	State          string `col:"state" json:"state,omitempty" rule:"nodiff" doc:"state or province" ex:""`
	Zipcode        string `col:"zipcode" json:"zipcode,omitempty" doc:"postal code, required" ex:"69003"`
	CountryCode    string `col:"countryCode" json:"countryCode,omitempty" rule:"type=country,max=2" doc:"ISO 3166 alpha-2, required" ex:"FR"`
	Email          string `col:"email" json:"email,omitempty" rule:"type=email,nodiff" doc:"e-mail" ex:"jeanne.martin@example.org"`
	Phone          string `col:"phone" json:"phone,omitempty" rule:"nodiff" doc:"phone" ex:"+33 6 12 34 56 78"`
}

// outboundLine are the line columns of orders and sales orders.
type outboundLine struct {
	Position  int    `col:"position" json:"position" rule:"positive,nodiff" doc:"line number, unique in the order (default 1..n)" ex:"1"`
	SKU       string `col:"sku" json:"-" rule:"ref=VariantID" doc:"SKU code of the line (empty on a service line)" ex:"CHAIR-OAK-01"`
	VariantID int64  `json:"variant"`
	Quantity  int64  `col:"quantity" json:"quantity" rule:"required,positive" doc:"ordered quantity" ex:"2"`
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
