package formats

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"filebridge/internal/model"
)

// result is what a Decode call produced.
type result struct {
	sum  Summary
	docs []Doc
	err  error
}

// all returns every issue of the file, file issues first.
func (r result) all() []Issue {
	out := append([]Issue(nil), r.sum.FileIssues...)
	for _, d := range r.docs {
		out = append(out, d.Issues...)
	}
	return out
}

func (r result) errors() []Issue {
	var out []Issue
	for _, i := range r.all() {
		if !i.Warning {
			out = append(out, i)
		}
	}
	return out
}

func decodeBytes(t testing.TB, name string, data []byte, opts Options) result {
	t.Helper()
	var res result
	res.sum, res.err = Decode(context.Background(), bytes.NewReader(data), int64(len(data)), name, opts, func(d Doc) error {
		res.docs = append(res.docs, d)
		return nil
	})
	return res
}

// header returns every column of a spec.
func header(e model.Edition, k model.Kind) []string {
	s, _ := model.SpecFor(e, k)
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// exampleRow is a valid row made of the spec's example values, changed by
// the overrides.
func exampleRow(e model.Edition, k model.Kind, over map[string]string) map[string]string {
	s, _ := model.SpecFor(e, k)
	row := map[string]string{}
	for _, f := range s.Fields {
		row[f.Name] = f.Example
	}
	for c, v := range over {
		row[c] = v
	}
	return row
}

// csvFile writes rows under the header with the delimiter.
func csvFile(delim rune, head []string, rows ...map[string]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = delim
	_ = w.Write(head)
	for _, r := range rows {
		rec := make([]string, len(head))
		for i, h := range head {
			rec[i] = r[h]
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// findIssue returns the first error issue on column whose message contains sub.
func findIssue(is []Issue, column, sub string) (Issue, bool) {
	for _, i := range is {
		if (column == "" || i.Column == column) && strings.Contains(i.Message, sub) {
			return i, true
		}
	}
	return Issue{}, false
}

func dump(is []Issue) string {
	var b strings.Builder
	for _, i := range is {
		b.WriteString("\n  " + i.Error())
	}
	return b.String()
}
