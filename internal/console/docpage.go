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
	Problems bool
	pager
	Flip string // the link to the other choice
}

func (dp docPage) view(fileID int64, shown, total int) docPageView {
	link := func(problems bool, page int) string {
		v := url.Values{"docs": {"all"}}
		if problems {
			v.Set("docs", "problems")
		}
		return pageURL(fmt.Sprintf("/files/%d", fileID), v, page) + "#documents"
	}
	return docPageView{Problems: dp.problems, Flip: link(!dp.problems, 1),
		pager: pageOf(dp.page, docsPerPage, shown, total, func(m int) string { return link(dp.problems, m) })}
}
