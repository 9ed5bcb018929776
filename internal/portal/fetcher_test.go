package portal

import (
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"filebridge/internal/model"
)

// fetchersRunning counts the goroutines of pages being read ahead.
func fetchersRunning() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "portal.(*fetcher).start.func")
}

// waitFor waits (at most a few seconds, never as a performance check)
// for something the test server signals.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s", what)
	}
}

// TestListReadsAhead: the next page is requested while the current one is
// being consumed.
func TestListReadsAhead(t *testing.T) {
	asked := map[int]chan struct{}{2: make(chan struct{}), 3: make(chan struct{})}
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if ch, ok := asked[page]; ok {
			close(ch)
		}
		pager(30, "hydra")(w, r)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 10 })
	n := 0
	for _, err := range c.Partners(t.Context(), PartnerFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		switch n++; n {
		case 1:
			waitFor(t, asked[2], "request for page 2 while page 1 is consumed")
		case 11:
			waitFor(t, asked[3], "request for page 3 while page 2 is consumed")
		}
	}
	if n != 30 {
		t.Fatalf("got %d partners", n)
	}
}

// TestListReadAheadCanceled: a consumer that stops early cancels the page
// read ahead, and no goroutine is left behind.
func TestListReadAheadCanceled(t *testing.T) {
	arrived, canceled := make(chan struct{}), make(chan struct{})
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "3" {
			close(arrived)
			<-r.Context().Done() // never answers: only a cancel ends it
			close(canceled)
			return
		}
		pager(100, "hydra")(w, r)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 10 })
	n := 0
	for _, err := range c.Partners(t.Context(), PartnerFilter{}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 15 {
			waitFor(t, arrived, "request for page 3 while page 2 is consumed")
			break
		}
	}
	// The fetch has signalled its end when the loop returns; give its
	// goroutine a moment to exit.
	for deadline := time.Now().Add(5 * time.Second); fetchersRunning() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d page fetches still running after the loop", fetchersRunning())
		}
	}
	waitFor(t, canceled, "cancel of the page read ahead")
}

// TestListErrorsInOrder: a page read ahead that fails is reported after
// every document of the pages before it.
func TestListErrorsInOrder(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "2" {
			reply(w, 400, `{"@type":"hydra:Error","hydra:description":"bad page"}`)
			return
		}
		pager(30, "hydra")(w, r)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 10 })
	got, last := partnerCodes(t, c, 0)
	if len(got) != 10 || last == nil || !strings.Contains(last.Error(), "page 2") {
		t.Fatalf("got %d partners, then %v", len(got), last)
	}
}

// TestListMemberErrorInOrder: a member that cannot be read ends the list
// after the members before it.
func TestListMemberErrorInOrder(t *testing.T) {
	srv, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"hydra:member":[{"code":"A"},{"code":{"x":1}},{"code":"C"}],"hydra:totalItems":3}`)
	})
	c := testClient(t, model.EditionA, srv.URL)
	got, last := partnerCodes(t, c, 0)
	if strings.Join(got, ",") != "A" || last == nil || !strings.Contains(last.Error(), `reading {"code":{"x":1}}`) {
		t.Fatalf("got %v, then %v", got, last)
	}
}

// TestPerCallPageSize: a filter's ItemsPerPage overrides the client's,
// capped at the API's largest.
func TestPerCallPageSize(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"hydra:member":[],"hydra:totalItems":0}`)
	})
	c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 50 })
	ctx := t.Context()
	for range c.Stocks(ctx, StockFilter{ItemsPerPage: 7}) {
	}
	for range c.Stocks(ctx, StockFilter{ItemsPerPage: 20000}) {
	}
	for range c.Items(ctx, ItemFilter{ItemsPerPage: 9}) {
	}
	for range c.Partners(ctx, PartnerFilter{ItemsPerPage: 11}) {
	}
	for range c.Movements(ctx, MovementFilter{ItemsPerPage: 13}) {
	}
	for range c.Stocks(ctx, StockFilter{}) {
	}
	var sizes []string
	for _, r := range rec.all() {
		q, _ := url.ParseQuery(r.RawQuery)
		sizes = append(sizes, q.Get("itemsPerPage"))
	}
	if got := strings.Join(sizes, ","); got != "7,10000,9,11,13,50" {
		t.Errorf("page sizes %s", got)
	}
}

// TestCodesFromLists reads SKUs and connection codes of ids from the
// documented lists only, whatever the portal would answer to an item read
// the documents do not list (served, 404, or a 403 that must not pass for
// a refused token): each list is read once, whole, by page number, in
// pages of the API's largest size.
func TestCodesFromLists(t *testing.T) {
	for _, itemRead := range []int{200, 404, 403} {
		t.Run(strconv.Itoa(itemRead), func(t *testing.T) {
			srv, rec := serve(t, func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				page, per := q.Get("page"), q.Get("itemsPerPage")
				view := `"hydra:view":{"@id":"x?page=` + page + `","@type":"hydra:PartialCollectionView"}`
				switch {
				case per != "10000" && (r.URL.Path == "/api/variants" || r.URL.Path == "/api/connections"):
					reply(w, 400, `{"hydra:description":"want pages of 10000"}`)
				case r.URL.Path == "/api/variants" && page == "1":
					reply(w, 200, `{"hydra:member":[{"id":1,"sku":"A"},{"id":2,"sku":"B"},{"id":3,"sku":"C"}],"hydra:totalItems":3,`+view+`}`)
				case r.URL.Path == "/api/connections" && page == "1":
					reply(w, 200, `{"hydra:member":[{"id":7,"code":"SUP"}],"hydra:totalItems":1,`+view+`}`)
				case itemRead == 200 && r.URL.Path == "/api/variants/3":
					reply(w, 200, `{"id":3,"sku":"C"}`)
				case itemRead == 200 && r.URL.Path == "/api/connections/7":
					reply(w, 200, `{"id":7,"code":"SUP"}`)
				default:
					reply(w, itemRead, `{"@type":"hydra:Error","hydra:description":"No route found for \"GET `+r.URL.Path+`\""}`)
				}
			})
			c := testClient(t, model.EditionA, srv.URL, func(c *Config) { c.ItemsPerPage = 2 })
			ctx := t.Context()
			for _, tt := range []struct {
				id   int64
				want string
			}{{3, "C"}, {1, "A"}, {2, "B"}} {
				if sku, err := c.SKUOf(ctx, tt.id); err != nil || sku != tt.want {
					t.Fatalf("SKUOf(%d) = %q, %v; want %q", tt.id, sku, err, tt.want)
				}
			}
			if p, err := c.Partner(ctx, 7); err != nil || p.Code != "SUP" {
				t.Fatalf("Partner(7) = %+v, %v", p, err)
			}
			if _, err := c.SKUOf(ctx, 9); !IsNotFound(err) {
				t.Fatalf("SKUOf(9): %v, want not found", err)
			}
			if _, err := c.Partner(ctx, 0); !IsInvalid(err) {
				t.Fatalf("Partner(0): %v, want invalid", err)
			}
			var paths []string
			for _, r := range rec.all() {
				paths = append(paths, r.Path)
			}
			want := "/api/variants,/api/connections"
			if got := strings.Join(paths, ","); got != want {
				t.Errorf("requests %s\nwant     %s", got, want)
			}
		})
	}
}
