package portal

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"filebridge/internal/model"
)

// TestConsigneeTakenMeanwhile: an embedded consignee whose code another
// order created between the lookup and the create is refused as already
// used; the order is sent again once, referring to that connection.
func TestConsigneeTakenMeanwhile(t *testing.T) {
	var mu sync.Mutex
	created := false // CONS-1 exists once the first POST was refused
	var posts []map[string]any
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost:
			var body map[string]any
			_ = json.NewDecoder(r.Body).Decode(&body)
			posts = append(posts, body)
			if _, embedded := body["shipTo"].(map[string]any); embedded {
				created = true
				reply(w, 422, `{"@type":"ConstraintViolationList","violations":[{"propertyPath":"shipTo.code","message":"This value is already used."}]}`)
				return
			}
			reply(w, 200, `{"@id":"/api/sales_orders/77","id":77}`)
		case r.URL.Path == "/api/connections" && created:
			reply(w, 200, `{"hydra:member":[{"id":9,"code":"CONS-1"}],"hydra:totalItems":1}`)
		case r.URL.Path == "/api/warehouse_clients":
			reply(w, 200, `{"hydra:member":[{"id":1,"warehouse":{"id":3,"code":"WH-LYON"}}],"hydra:totalItems":1}`)
		case r.URL.Path == "/api/variants":
			reply(w, 200, `{"hydra:member":[{"id":12,"sku":"SKU-1"}],"hydra:totalItems":1}`)
		default:
			reply(w, 200, `{"hydra:member":[],"hydra:totalItems":0}`)
		}
	})
	c := testClient(t, model.EditionB, srv.URL)
	o := model.Outbound{OrderNumber: "SO-1", WarehouseCode: "WH-LYON",
		ShipTo: &model.Address{Code: "CONS-1", Name: "Jeanne", StreetAddress: "1 rue", City: "Lyon", Zipcode: "69003", CountryCode: "FR"},
		Lines:  []model.OutboundLine{{Position: 1, SKU: "SKU-1", Quantity: 1}}}
	out, err := c.CreateOutbound(t.Context(), o)
	if err != nil || out.ID != 77 {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if len(posts) != 2 || posts[1]["shipTo"] != float64(9) {
		t.Fatalf("posts %v, want the second to refer to connection 9", posts)
	}
	// A refusal whose code the list does not hold is not sent again.
	var e *Error
	mu.Lock()
	created, posts = false, nil
	mu.Unlock()
	o.OrderNumber, o.ShipTo.Code = "SO-2", "CONS-2"
	if _, err := c.CreateOutbound(t.Context(), o); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("SO-2: %v", err)
	} else if ok := asErr(err, &e); !ok || e.Class != Invalid {
		t.Errorf("SO-2: class of %v", err)
	}
	if len(posts) != 1 {
		t.Errorf("SO-2 sent %d times, want once", len(posts))
	}
}

func asErr(err error, target **Error) bool {
	e, ok := asError(err)
	*target = e
	return ok
}
