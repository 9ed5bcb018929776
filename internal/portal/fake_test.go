package portal

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// fakePortal answers reference lookups from small tables and creates with
// an id; it is the test double of unit tests (the simulator serves the
// integration tests).
type fakePortal struct {
	partners map[string]int64 // code -> id
	skus     map[string]int64
	nextID   int64
	// ignoreCodes makes the variant list ignore code[] (old deployments).
	ignoreCodes bool
	// noIDs answers a create of a connection without id or @id (the
	// documents list none), the connection then listed by its code.
	noIDs bool
}

func (f *fakePortal) handle(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		reply(w, 401, `{"@type":"hydra:Error","hydra:description":"Invalid token"}`)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/api")
	if r.Method == http.MethodPost {
		f.nextID++
		if f.noIDs && path == "/connections" {
			var body struct{ Code string }
			_ = json.NewDecoder(r.Body).Decode(&body)
			f.partners[body.Code] = 1000 + f.nextID
			reply(w, 200, fmt.Sprintf(`{"code":%q,"name":"N","relationship":"Manufacturer"}`, body.Code))
			return
		}
		reply(w, 201, fmt.Sprintf(`{"@id":"/api%s/%d","id":%d}`, path, 1000+f.nextID, 1000+f.nextID))
		return
	}
	q := r.URL.Query()
	var members []string
	switch path {
	case "/connections":
		if id, ok := f.partners[q.Get("code")]; ok {
			members = append(members, fmt.Sprintf(`{"@id":"/api/connections/%d","id":%d,"code":%q,"name":"N"}`, id, id, q.Get("code")))
		}
	case "/variants":
		codes := q["code[]"]
		if f.ignoreCodes || (len(codes) == 0 && q.Get("sku") == "") {
			for code, id := range f.skus {
				members = append(members, fmt.Sprintf(`{"id":%d,"sku":%q}`, id, code))
			}
			members = append(members, `{"id":999,"sku":"UNRELATED"}`)
			break
		}
		if s := q.Get("sku"); s != "" {
			codes = []string{s}
		}
		for _, code := range codes {
			if id, ok := f.skus[code]; ok {
				members = append(members, fmt.Sprintf(`{"id":"%d","sku":%q}`, id, code))
			}
		}
	case "/warehouse_clients":
		members = []string{
			`{"id":1,"clientCode":"C1","warehouse":{"id":3,"code":"WH-LYON","name":"Lyon"}}`,
			`{"id":2,"clientCode":"C2","warehouse":{"id":4,"code":"WH-LILLE","name":"Lille"}}`,
		}
	case "/carriers":
		members = []string{`{"@id":"/api/carriers/7","code":"DHL","name":"DHL"}`, `{"id":8,"code":"UPS","name":"UPS"}`}
	case "/carrier_services":
		members = []string{
			`{"id":11,"code":"EXPRESS","carrier":{"@id":"/api/carriers/7","code":"DHL"}}`,
			`{"id":12,"code":"EXPRESS","carrier":{"id":8,"code":"UPS"}}`,
			`{"id":13,"code":"ECO","carrier":"/api/carriers/8"}`,
		}
	}
	b, _ := json.Marshal(map[string]any{"hydra:member": json.RawMessage("[" + strings.Join(members, ",") + "]"), "hydra:totalItems": len(members)})
	reply(w, 200, string(b))
}
