package console

import (
	"fmt"
	"net/http"
	"net/url"

	"filebridge/internal/journal"
)

// docsPerPage is how many documents a file's page shows at once: a file of
// 200,000 documents is a page of a hundred, not a 29 MB page.
const docsPerPage = 100

// docPage is the documents a file's page shows: the problems (the default
// for a failed file) or all, and which page of them.
type docPage struct {
	problems bool
	page     int // from 1
}

// docPageOf reads ?docs=problems|all&page=N; a failed file shows its
// problems unless asked for all.
func docPageOf(r *http.Request, f journal.File) docPage {
	q := r.URL.Query()
	dp := docPage{problems: f.State == journal.FileFailed, page: pageNumber(q, "page")}
	switch q.Get("docs") {
	case "problems":
		dp.problems = true
	case "all":
		dp.problems = false
	}
	return dp
}

func (dp docPage) query() journal.DocPage {
	p := journal.DocPage{Limit: docsPerPage, Offset: (dp.page - 1) * docsPerPage}
	if dp.problems {
		p.Results = journal.Problems
	}
	return p
}

// docPageView is what the template shows of it.
type docPageView struct {
	Problems         bool
	From, To, Total  int
	Prev, Next, Flip string // links ("" none)
}

func (dp docPage) view(fileID int64, shown, total int) docPageView {
	link := func(problems bool, page int) string {
		v := url.Values{"docs": {"all"}}
		if problems {
			v.Set("docs", "problems")
		}
		return string(pageURL(fmt.Sprintf("/files/%d", fileID), v, page)) + "#documents"
	}
	from := (dp.page-1)*docsPerPage + 1
	v := docPageView{Problems: dp.problems, Total: total, From: from, To: from + shown - 1, Flip: link(!dp.problems, 1)}
	if shown == 0 {
		v.From, v.To = 0, 0
	}
	if dp.page > 1 {
		v.Prev = link(dp.problems, dp.page-1)
	}
	if dp.page*docsPerPage < total {
		v.Next = link(dp.problems, dp.page+1)
	}
	return v
}
