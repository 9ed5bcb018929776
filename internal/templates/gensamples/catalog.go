package main

import (
	"fmt"
)

// The sample retailer is Maison Nordique, a furniture and household goods
// retailer selling in France, Germany and Sweden from two warehouses of its
// logistics operator: id 3 "WH-LYON" and id 5 "WH-HAMBURG" (the simulator's
// seed), shipping with DHL, UPS and GLS.

const (
	whLyon       = "3"
	whLyonCode   = "WH-LYON"
	whHamburg    = "5"
	whHamburgCde = "WH-HAMBURG"
)

// supplier is a manufacturer delivering to the warehouses. prefix is its
// GS1 company prefix (7 digits), from which its EANs are built.
type supplier struct {
	Code, Name                    string
	Country, City, Zip, Street    string
	Email, Contact, Phone, prefix string
}

var suppliers = []supplier{
	{"SUP-NORDIC", "Nordic Furniture AB", "SE", "Malmö", "21120", "Industrigatan 4", "orders@nordicfurniture.se", "Eva Lind", "+46 40 123456", "7350123"},
	{"SUP-HOLZWERK", "Holzwerk Bayern GmbH", "DE", "Rosenheim", "83026", "Am Sägewerk 12", "vertrieb@holzwerk-bayern.de", "Markus Huber", "+49 8031 40720", "4061234"},
	{"SUP-LINVOSGES", "Linge des Vosges SARL", "FR", "Gérardmer", "88400", "15 rue du Lac", "commandes@lingedesvosges.fr", "Claire Didier", "+33 3 29 60 12 34", "3701234"},
	{"SUP-KERAMIK", "Keramikmanufaktur Lenz GmbH", "DE", "Selb", "95100", "Porzellanstraße 8", "info@keramik-lenz.de", "Sabine Lenz", "+49 9287 91810", "4260345"},
	{"SUP-BIOT", "Verrerie de Biot", "FR", "Biot", "06410", "5 chemin des Combes", "pro@verreriebiot.fr", "Julien Roux", "+33 4 93 65 03 00", "3760056"},
	{"SUP-SMALAND", "Småland Glasbruk AB", "SE", "Kosta", "36052", "Stora vägen 68", "export@smalandglas.se", "Anders Berg", "+46 478 34500", "7391234"},
	{"SUP-LUMIERE", "Atelier Lumière Lyon", "FR", "Villeurbanne", "69100", "42 cours Émile Zola", "ventes@atelier-lumiere.fr", "Nadia Benali", "+33 4 78 85 21 60", "3665432"},
}

// product is a SKU. Bulky furniture comes in several parcels, each its own
// SKU. Dimensions in centimetres, weights in kilograms, prices in euros.
type product struct {
	SKU, Name, Desc string
	Supplier        string
	Ref             int // item reference under the supplier's GS1 prefix
	PerBox          int // selling units per master carton
	L, W, H         string
	Weight, BoxW    string
	Price           string
}

var products = []product{
	{"CHR-OAK-DIN", "Dining chair oak", "Solid oak dining chair, oiled finish\nDelivered flat-packed, 2 per carton", "SUP-NORDIC", 10041, 2, "47", "53", "89", "6.8", "14.4", "79.00"},
	{"CHR-BIRCH-STK", "Stacking chair birch", "Stackable chair, birch plywood", "SUP-NORDIC", 10058, 4, "44", "50", "80", "4.2", "17.9", "39.50"},
	{"TBL-OAK180-TOP", "Table oak 180 - top", "Dining table oak 180x90, parcel 1/2: table top", "SUP-NORDIC", 10102, 1, "186", "96", "8", "31.5", "31.5", "245.00"},
	{"TBL-OAK180-LEG", "Table oak 180 - legs", "Dining table oak 180x90, parcel 2/2: legs and frame", "SUP-NORDIC", 10119, 1, "92", "30", "14", "12.8", "12.8", "95.00"},
	{"SOFA3-GRY-BASE", "Sofa 3 seats grey - base", "3-seat sofa, grey wool blend, parcel 1/2: frame", "SUP-NORDIC", 10201, 1, "215", "92", "70", "48", "48", "410.00"},
	{"SOFA3-GRY-CUSH", "Sofa 3 seats grey - cushions", "3-seat sofa, grey wool blend, parcel 2/2: cushions", "SUP-NORDIC", 10218, 1, "110", "80", "60", "11.5", "11.5", "120.00"},
	{"BED-PINE-160", "Bed frame pine 160x200", "Solid pine bed frame, slats included", "SUP-HOLZWERK", 20015, 1, "208", "38", "24", "42.5", "42.5", "189.00"},
	{"SHELF-BEECH-5", "Bookcase beech 5 shelves", "Bookcase, beech veneer, 80x35x200", "SUP-HOLZWERK", 20022, 1, "204", "84", "12", "38", "38", "139.00"},
	{"WARDR-2D-WHT", "Wardrobe 2 doors white", "Wardrobe, 2 hinged doors, white lacquer, 100x58x210", "SUP-HOLZWERK", 20039, 1, "215", "62", "18", "71.2", "71.2", "259.00"},
	{"DUVET-240-LIN", "Duvet cover linen 240x220", "Washed linen duvet cover, natural", "SUP-LINVOSGES", 30017, 10, "35", "28", "6", "1.35", "14.2", "42.00"},
	{"PILLOW-65-LIN", "Pillowcase linen 65x65", "Washed linen pillowcase, natural", "SUP-LINVOSGES", 30024, 20, "25", "20", "3", "0.32", "6.9", "9.80"},
	{"TOWEL-BATH-SAG", "Bath towel sage 70x140", "Cotton terry bath towel, sage green, 550 g/m2", "SUP-LINVOSGES", 30031, 12, "36", "30", "8", "0.62", "7.8", "11.40"},
	{"PLATE-STW-27", "Dinner plate stoneware 27 cm", "Stoneware dinner plate, reactive glaze, 27 cm", "SUP-KERAMIK", 40013, 6, "29", "29", "3", "0.85", "5.6", "7.90"},
	{"BOWL-STW-15", "Bowl stoneware 15 cm", "Stoneware bowl, reactive glaze, 15 cm", "SUP-KERAMIK", 40020, 6, "16", "16", "7", "0.42", "2.9", "4.60"},
	{"MUG-STW-35CL", "Mug stoneware 35 cl", "Stoneware mug, reactive glaze, 35 cl", "SUP-KERAMIK", 40037, 12, "12", "9", "10", "0.36", "4.8", "3.90"},
	{"CARAFE-1L", "Glass carafe 1 l", "Mouth-blown glass carafe, 1 litre", "SUP-BIOT", 50019, 6, "12", "12", "28", "0.75", "5.2", "18.50"},
	{"GLASS-WINE-6", "Wine glasses, set of 6", "Crystal wine glasses 35 cl, gift box of 6", "SUP-SMALAND", 60010, 4, "30", "20", "24", "2.1", "9.1", "34.00"},
	{"LAMP-FLOOR-BRS", "Floor lamp brass", "Floor lamp, brushed brass, linen shade, E27", "SUP-LUMIERE", 70018, 1, "48", "48", "162", "7.4", "7.4", "96.00"},
	{"LAMP-TABLE-LIN", "Table lamp linen shade", "Table lamp, ceramic base, linen shade, E14", "SUP-LUMIERE", 70025, 2, "32", "32", "48", "2.3", "5.1", "29.00"},
	{"RUG-WOOL-200", "Wool rug 200x300", "Hand-woven wool rug, off-white, 200x300", "SUP-LINVOSGES", 30048, 1, "205", "35", "35", "14.6", "14.6", "168.00"},
	{"MIRROR-RND-80", "Round mirror 80 cm", "Round wall mirror, oak frame, 80 cm", "SUP-HOLZWERK", 20046, 1, "88", "88", "8", "9.7", "9.7", "54.00"},
}

// productsXLSX are SKUs added by the XLSX sample of Edition A.
var productsXLSX = []product{
	{"THROW-WOOL-GRN", "Throw blanket wool green", "Merino wool throw 130x170, forest green", "SUP-LINVOSGES", 30055, 8, "40", "32", "12", "0.95", "8.1", "36.00"},
	{"CUSH-LIN-50", "Cushion cover linen 50x50", "Washed linen cushion cover, terracotta", "SUP-LINVOSGES", 30062, 24, "22", "18", "2", "0.18", "4.9", "8.20"},
	{"TBL-SIDE-WAL", "Side table walnut", "Round side table, walnut, 45 cm", "SUP-HOLZWERK", 20053, 1, "50", "50", "14", "6.3", "6.3", "74.00"},
	{"COATRACK-OAK", "Coat rack oak", "Standing coat rack, oak, 6 hooks", "SUP-NORDIC", 10225, 1, "178", "20", "12", "5.9", "5.9", "49.00"},
}

// productsB are variants that only Edition B carries: a 17-character SKU
// and a furniture care oil sold by lot with an expiry date.
var productsB = []product{
	{"SOFA-VELVET-GREEN", "Sofa 2 seats velvet green", "2-seat sofa, green cotton velvet, oak legs", "SUP-NORDIC", 10232, 1, "176", "90", "72", "39.5", "39.5", "380.00"},
	{"CARE-OIL-500", "Furniture care oil 500 ml", "Natural hardwax oil for oak and beech, 500 ml", "SUP-HOLZWERK", 20060, 12, "8", "8", "22", "0.56", "7.1", "12.90"},
}

func supplierByCode(code string) supplier {
	for _, s := range suppliers {
		if s.Code == code {
			return s
		}
	}
	panic("unknown supplier " + code)
}

func productBySKU(sku string) product {
	for _, list := range [][]product{products, productsXLSX, productsB} {
		for _, p := range list {
			if p.SKU == sku {
				return p
			}
		}
	}
	panic("unknown SKU " + sku)
}

// EAN returns the product's EAN-13: its supplier's prefix, the item
// reference and the check digit.
func (p product) EAN() string {
	return withCheckDigit(supplierByCode(p.Supplier).prefix + fmt.Sprintf("%05d", p.Ref))
}

// EANBox returns the GTIN-14 of the master carton (indicator digit 1), or
// "" for a product sold by the carton of one.
func (p product) EANBox() string {
	if p.PerBox <= 1 {
		return ""
	}
	return gtin14(1, p.EAN())
}

// gtin14 derives the GTIN-14 of a packaging level from an EAN-13.
func gtin14(indicator int, ean13 string) string {
	return withCheckDigit(fmt.Sprintf("%d%s", indicator, ean13[:12]))
}

// withCheckDigit appends the GS1 check digit to digits.
func withCheckDigit(digits string) string {
	sum := 0
	for i, w := len(digits)-1, 3; i >= 0; i, w = i-1, 4-w {
		sum += int(digits[i]-'0') * w
	}
	return digits + fmt.Sprint((10-sum%10)%10)
}

// consignee is an end customer's delivery address.
type consignee struct {
	Title, First, Last   string
	Street, Street2      string
	Zip, City, Country   string
	Email, Phone, Lang   string
	AccessCode, Floor    string
	Building, Company    string
	connectionCodeSuffix string
}

func (c consignee) Name() string { return c.First + " " + c.Last }

var consignees = []consignee{
	{"Mme", "Jeanne", "Martin", "12 rue des Lilas", "", "69003", "Lyon", "FR", "jeanne.martin@example.org", "+33 6 12 34 56 78", "fr", "4521", "3", "B", "", "0771203"},
	{"M.", "Thomas", "Lefèvre", "8 avenue Jean Jaurès", "Appartement 41, 4e étage", "75019", "Paris", "FR", "t.lefevre@example.fr", "+33 6 98 76 54 32", "fr", "A17B", "4", "", "", "0771215"},
	{"Herr", "Jonas", "Becker", "Eppendorfer Weg 211", "", "20253", "Hamburg", "DE", "jonas.becker@example.de", "+49 40 4711 0815", "de", "", "2", "", "", "0771228"},
	{"Frau", "Anna", "Schmidt", "Leopoldstraße 77", "Rückgebäude", "80802", "München", "DE", "anna.schmidt@example.de", "+49 89 1234 5678", "de", "", "", "", "Schmidt Architektur", "0771230"},
	{"", "Karin", "Johansson", "Davidshallsgatan 14", "", "21145", "Malmö", "SE", "karin.johansson@example.se", "+46 70 123 45 67", "sv", "1942", "1", "", "", "0771247"},
	{"Mme", "Camille", "Dubois", "3 chemin des Crêts", "", "74000", "Annecy", "FR", "camille.dubois@example.fr", "+33 7 81 22 33 44", "fr", "", "", "", "", "0771259"},
	{"", "Erik", "Nilsson", "Linnégatan 52", "lgh 1203", "41308", "Göteborg", "SE", "erik.nilsson@example.se", "+46 73 987 65 43", "sv", "", "3", "", "", "0771262"},
}
