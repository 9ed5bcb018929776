package inbox

import (
	"fmt"
	"strings"
	"testing"

	"filebridge/internal/model"
)

func TestOrderBlocker(t *testing.T) {
	partner, item, outbound := model.KindPartner.Order(), model.KindItem.Order(), model.KindOutbound.Order()
	tests := []struct {
		name  string
		setup func(o *Order)
		order int
		want  string // substring of the blocker, "" for none
	}{
		{"an inbox not looked at yet", func(o *Order) { o.setRoot("erp", nil) }, outbound, `inbox "shop"`},
		{"nothing pending", func(o *Order) { o.setRoot("erp", nil); o.setRoot("shop", nil) }, outbound, ""},
		{"master data settling in another inbox", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
		}, outbound, "SKU.csv (item)"},
		{"the lowest kind is named", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item, "SUP.csv": partner})
			o.setRoot("shop", nil)
		}, outbound, "SUP.csv (partner)"},
		{"same kind does not block", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
		}, item, ""},
		{"unknown type does not block", func(o *Order) {
			o.setRoot("erp", map[string]int{"X.json": 0})
			o.setRoot("shop", nil)
		}, outbound, ""},
		{"claimed and unfinished blocks", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
			o.claimed("erp", "SKU.csv", 7, item)
		}, outbound, "SKU.csv (item)"},
		{"finished does not block", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
			o.claimed("erp", "SKU.csv", 7, item)
			o.finished("erp", 7, true)
		}, outbound, ""},
		{"claimed again at each round, then finished, does not block", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
			o.claimed("erp", "SKU.csv", 7, item)
			o.claimed("erp", "SKU.csv", 7, item)
			o.finished("erp", 7, true)
			o.finished("erp", 7, true)
		}, outbound, ""},
		{"a file gone from a later listing does not block", func(o *Order) {
			o.setRoot("erp", map[string]int{"SKU.csv": item})
			o.setRoot("shop", nil)
			o.setRoot("erp", map[string]int{"ORDERS.csv": outbound})
		}, outbound, ""},
		{"a file of a later listing blocks", func(o *Order) {
			o.setRoot("erp", nil)
			o.setRoot("shop", nil)
			o.setRoot("shop", map[string]int{"SUP.csv": partner})
		}, item, "SUP.csv (partner)"},
		{"an inbox looked at twice, another not yet", func(o *Order) {
			o.setRoot("erp", nil)
			o.looked("erp")
		}, partner, `inbox "shop"`},
		{"an unreadable inbox counts as looked at", func(o *Order) {
			o.setRoot("erp", nil)
			o.looked("shop")
		}, outbound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOrder()
			o.register("erp")
			o.register("shop")
			tt.setup(o)
			got := o.blocker(tt.order)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("blocker(%d) = %q, want %q", tt.order, got, tt.want)
			}
		})
	}
}

func TestOrderWakesOnFinish(t *testing.T) {
	o := NewOrder()
	wake := o.register("erp")
	o.wait(wake, true) // it deferred files
	o.setRoot("erp", map[string]int{"SKU.csv": model.KindItem.Order()})
	if woke(wake) {
		t.Fatal("a listing that removed nothing woke the inboxes")
	}
	o.claimed("erp", "SKU.csv", 1, model.KindItem.Order())
	o.finished("erp", 1, false)
	if woke(wake) {
		t.Fatal("a held file woke the inboxes")
	}
	o.claimed("erp", "SKU.csv", 1, model.KindItem.Order())
	o.finished("erp", 1, true)
	if !woke(wake) {
		t.Fatal("a finished file did not wake the inboxes")
	}
}

// TestOrderWakesOnlyWaitingInboxes: among 1,000 inboxes of one portal
// (one operator's tenants), a finished file wakes the inboxes that wait
// for files to finish (deferred or held files, or a round under way), not
// all of them: 2,000 files finishing cost 2,000 wake-ups, not 2,000,000.
func TestOrderWakesOnlyWaitingInboxes(t *testing.T) {
	const n = 1000
	tests := []struct {
		name    string
		waiting []int // the inboxes waiting, by index
		stopped []int // the inboxes that waited and stopped waiting
	}{
		{"nobody waits", nil, nil},
		{"one waits", []int{7}, nil},
		{"three wait, one stopped", []int{1, 500, 999}, []int{500}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOrder()
			wakes := make([]*wakeup, n)
			for i := range wakes {
				name := fmt.Sprintf("t%04d", i)
				wakes[i] = o.register(name)
				o.setRoot(name, nil)
			}
			for _, i := range tt.waiting {
				o.wait(wakes[i], true)
			}
			for _, i := range tt.stopped {
				o.wait(wakes[i], false)
			}
			o.claimed("t0003", "SUP.csv", 1, model.KindPartner.Order())
			o.finished("t0003", 1, true)
			want := map[int]bool{}
			for _, i := range tt.waiting {
				want[i] = true
			}
			for _, i := range tt.stopped {
				delete(want, i)
			}
			var got, missed []int
			for i, w := range wakes {
				if woke(w) {
					got = append(got, i)
				} else if want[i] {
					missed = append(missed, i)
				}
			}
			if len(got) != len(want) || len(missed) > 0 {
				t.Errorf("one finished file woke %d of %d inboxes (the first: %v), want %d; waiting and not woken: %v",
					len(got), n, got[:min(len(got), 5)], len(want), missed)
			}
		})
	}
}

// woke takes the wake-up waiting on w, if any, and reports whether there
// was one.
func woke(w *wakeup) bool {
	select {
	case <-w.c:
		return true
	default:
		return false
	}
}

// BenchmarkOrderBlocker: the blocker of a file whose kind nothing pending
// comes before, among 1,000 inboxes of one portal (one operator's tenants)
// holding files of later kinds.
func BenchmarkOrderBlocker(b *testing.B) {
	o := NewOrder()
	for i := range 1000 {
		name := fmt.Sprintf("t%04d", i)
		o.register(name)
		o.setRoot(name, map[string]int{"ORDERS.csv": model.KindOutbound.Order()})
	}
	for b.Loop() {
		if got := o.blocker(model.KindItem.Order()); got != "" {
			b.Fatalf("blocked by %s", got)
		}
	}
}
