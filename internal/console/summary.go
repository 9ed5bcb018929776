package console

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
)

// dashPage is how many inboxes, and how many exports, a dashboard page
// lists. A process with more (an operator running one filebridge for its
// customers) gets totals first, then its rows with trouble first, paged;
// with fewer the dashboard lists them all in the config's order.
const dashPage = 50

// dashTotals sum up every inbox and export of a summarised dashboard.
type dashTotals struct {
	Inboxes, Troubled                                           int
	Waiting, Processing, Held, Retrying, DoneToday, FailedToday int
	Exports, ExportsFailing                                     int
}

// pager is the position of one page of a dashboard list: rows From to To
// of Total, with the links to the pages before and after ("" at an end).
type pager struct {
	From, To, Total int
	Prev, Next      string
}

// trouble ranks an inbox for the summarised dashboard: degraded (its
// folder or host key), then failed files today, then retrying, then held
// for master data; 0 when it is fine.
func (r inboxRow) trouble() int {
	switch {
	case r.Status != "":
		return 4
	case r.FailedToday > 0:
		return 3
	case r.Retrying > 0:
		return 2
	case r.HeldCount > 0:
		return 1
	}
	return 0
}

// summarise returns the totals of the inboxes and exports and the page of
// each that the query asks for (page, epage; 1 by default), the rows with
// trouble first (inboxes by trouble, exports whose last run failed), each
// group in the config's order. It returns nil totals, and the lists
// whole, when neither list is longer than a page.
func summarise(q url.Values, inboxes []inboxRow, exports []ExportStatus) (*dashTotals, []inboxRow, *pager, []ExportStatus, *pager) {
	if len(inboxes) <= dashPage && len(exports) <= dashPage {
		return nil, inboxes, nil, exports, nil
	}
	t := &dashTotals{Inboxes: len(inboxes), Exports: len(exports)}
	for _, r := range inboxes {
		if r.trouble() > 0 {
			t.Troubled++
		}
		t.Waiting += r.Waiting
		t.Processing += r.Processing
		t.Held += r.HeldCount
		t.Retrying += r.Retrying
		t.DoneToday += r.DoneToday
		t.FailedToday += r.FailedToday
	}
	for _, e := range exports {
		if e.LastError != "" {
			t.ExportsFailing++
		}
	}
	inboxes = slices.Clone(inboxes)
	slices.SortStableFunc(inboxes, func(a, b inboxRow) int { return cmp.Compare(b.trouble(), a.trouble()) })
	exports = slices.Clone(exports)
	slices.SortStableFunc(exports, func(a, b ExportStatus) int {
		failing := func(e ExportStatus) int { return len(e.LastError) }
		return cmp.Compare(min(failing(b), 1), min(failing(a), 1))
	})
	ip, ipg := page(q, "page", inboxes)
	ep, epg := page(q, "epage", exports)
	return t, ip, ipg, ep, epg
}

// pageNumber is the page the query's key asks for: 1 unless a number
// above 1.
func pageNumber(q url.Values, key string) int {
	if n, err := strconv.Atoi(q.Get(key)); err == nil && n > 1 {
		return n
	}
	return 1
}

// page cuts the page the query's key asks for out of rows.
func page[T any](q url.Values, key string, rows []T) ([]T, *pager) {
	pages := max((len(rows)+dashPage-1)/dashPage, 1)
	n := min(pageNumber(q, key), pages)
	from, to := (n-1)*dashPage, min(n*dashPage, len(rows))
	p := &pager{From: from + 1, To: to, Total: len(rows)}
	link := func(to int) string {
		v := url.Values{} // the pages of both lists, not a note shown once
		for _, k := range []string{"page", "epage"} {
			if q.Has(k) {
				v.Set(k, q.Get(k))
			}
		}
		v.Set(key, strconv.Itoa(to))
		return "/?" + v.Encode()
	}
	if n > 1 {
		p.Prev = link(n - 1)
	}
	if n < pages {
		p.Next = link(n + 1)
	}
	if len(rows) == 0 {
		p.From = 0
	}
	return rows[from:to], p
}
