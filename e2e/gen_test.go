package e2e

import (
	"bytes"
	"fmt"
)

// ordersFile writes an Edition A or B orders file of n orders, numbered
// prefix + 5 digits, with linesPer lines each on the preloaded SKUs
// PRE-000001... (the simulator's --preload, which must be at least skus).
func ordersFile(edition, prefix string, n, linesPer, skus int) []byte {
	var b bytes.Buffer
	b.Grow(n * linesPer * 160)
	if edition == "A" {
		b.WriteString("orderNumber,externalOrderNumber,deliveryMode,warehouseLocation,shipTo.firstName,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,position,sku,quantity\n")
	} else {
		b.WriteString("orderNumber,externalOrderNumber,deliveryMode,warehouseCode,shipToCode,shipTo.name,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,position,sku,quantity\n")
	}
	line := 0
	for i := 1; i <= n; i++ {
		num := fmt.Sprintf("%s%05d", prefix, i)
		for p := 1; p <= linesPer; p++ {
			sku := fmt.Sprintf("PRE-%06d", line%skus+1)
			line++
			if edition == "A" {
				fmt.Fprintf(&b, "%s,EXT-%s,STANDARD,3,Jeanne,Martin,12 rue des Lilas,69003,Lyon,FR,jeanne.martin@example.org,%d,%s,%d\n",
					num, num, p, sku, 1+i%5)
			} else {
				fmt.Fprintf(&b, "%s,EXT-%s,B2C_HOME,WH-LYON,B2C-%s,Jeanne Martin,12 rue des Lilas,69003,Lyon,FR,jeanne.martin@example.org,%d,%s,%d\n",
					num, num, num, p, sku, 1+i%5)
			}
		}
	}
	return b.Bytes()
}
