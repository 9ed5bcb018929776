package journal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// claimFile claims f and returns its id.
func claimFile(t testing.TB, d *DB, f File) int64 {
	t.Helper()
	id, err := d.ClaimFile(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func claimTest(t testing.TB, d *DB, inbox, name, docType string) int64 {
	t.Helper()
	return claimFile(t, d, File{Inbox: inbox, Name: name, DocType: docType})
}

func TestAddDocumentsIdempotent(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		t0 := time.Date(2026, 5, 1, 12, 0, 0, 5, time.UTC)
		d, clock := openAt(t, t0)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "O.csv", "orders")

		first := []Document{
			{Key: "B-2", Rows: "2-3"},
			{Key: "A-1", Rows: "4"},
			{Key: "C-3", Rows: "5-9", Result: ResultInvalid, Message: "bad country"},
		}
		if err := d.AddDocuments(ctx, id, first); err != nil {
			t.Fatal(err)
		}
		clock.set(t0.Add(time.Minute))
		if err := d.StartAttempt(ctx, id, "B-2"); err != nil {
			t.Fatal(err)
		}
		if err := d.SetResult(ctx, id, "B-2", ResultCreated, "/api/sales_orders/7", ""); err != nil {
			t.Fatal(err)
		}
		// Adding again (a file read again) replaces rows, result and message,
		// keeps attempts and portal ids, and appends new documents.
		clock.set(t0.Add(2 * time.Minute))
		again := []Document{
			{Key: "A-1", Rows: "99", Result: ResultFailed},
			{Key: "B-2", Rows: "99"},
			{Key: "D-4", Rows: "10"},
		}
		if err := d.AddDocuments(ctx, id, again); err != nil {
			t.Fatal(err)
		}
		if err := d.AddDocuments(ctx, id, nil); err != nil {
			t.Fatalf("AddDocuments(nil): %v", err)
		}
		got, err := d.Documents(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := []Document{
			{FileID: id, Key: "B-2", Rows: "99", Result: ResultPending, PortalID: "/api/sales_orders/7", Attempts: 1, UpdatedAt: t0.Add(2 * time.Minute)},
			{FileID: id, Key: "A-1", Rows: "99", Result: ResultFailed, UpdatedAt: t0.Add(2 * time.Minute)},
			{FileID: id, Key: "C-3", Rows: "5-9", Result: ResultInvalid, Message: "bad country", UpdatedAt: t0},
			{FileID: id, Key: "D-4", Rows: "10", Result: ResultPending, UpdatedAt: t0.Add(2 * time.Minute)},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Documents\n got %+v\nwant %+v", got, want)
		}

		t.Run("errors", func(t *testing.T) {
			tests := []struct {
				name     string
				fileID   int64
				docs     []Document
				notFound bool
			}{
				{"unknown file", 777, []Document{{Key: "X"}}, true},
				{"empty key", id, []Document{{Key: "E-5"}, {Key: ""}}, false},
				{"bad result", id, []Document{{Key: "E-5", Result: "maybe"}}, false},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					err := d.AddDocuments(ctx, tt.fileID, tt.docs)
					if err == nil {
						t.Fatal("AddDocuments succeeded")
					}
					if errors.Is(err, ErrNotFound) != tt.notFound {
						t.Errorf("err = %v, ErrNotFound expected %v", err, tt.notFound)
					}
				})
			}
			// Nothing of a failed call is kept.
			if _, err := d.Document(ctx, id, "E-5"); !errors.Is(err, ErrNotFound) {
				t.Errorf("E-5 recorded by a failed call: %v", err)
			}
		})
	})
}

// TestFileDocuments: a file's documents come back with their bodies in
// row order, a batch at a time, and those pending or sending alone with
// open; a document added again keeps its attempts.
func TestFileDocuments(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "O.csv", "orders")
		// More than two batches, added out of row order (the orders of a
		// grouped file end in another order than they start).
		n := 2*docBatch + 7
		var docs []Document
		for i := range n {
			row := 2 + (i*7919)%n // a permutation of 2..n+1
			docs = append(docs, Document{Key: fmt.Sprintf("O-%d", row), Rows: fmt.Sprint(row), FirstRow: row, Body: fmt.Sprintf(`{"row":%d}`, row)})
		}
		docs[3].Result, docs[3].Message = ResultInvalid, "bad"
		if err := d.AddDocuments(ctx, id, docs); err != nil {
			t.Fatal(err)
		}
		if err := d.StartAttempt(ctx, id, docs[5].Key); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			name string
			open bool
			want int
		}{{"all", false, n}, {"open", true, n - 1}} {
			prev, count := 0, 0
			for doc, err := range d.FileDocuments(ctx, id, tt.open) {
				if err != nil {
					t.Fatal(err)
				}
				if doc.FirstRow <= prev || doc.Body != fmt.Sprintf(`{"row":%d}`, doc.FirstRow) {
					t.Fatalf("%s: document %s (first row %d, body %q) after row %d", tt.name, doc.Key, doc.FirstRow, doc.Body, prev)
				}
				if tt.open && doc.Result == ResultInvalid {
					t.Errorf("%s: invalid document %s listed", tt.name, doc.Key)
				}
				prev = doc.FirstRow
				count++
			}
			if count != tt.want {
				t.Errorf("%s: %d documents, want %d", tt.name, count, tt.want)
			}
		}

		again := docs[5]
		again.Rows, again.FirstRow, again.Body, again.Result = "9999", 9999, `{"row":9999}`, ResultPending
		if err := d.AddDocuments(ctx, id, []Document{again}); err != nil {
			t.Fatal(err)
		}
		got, err := d.Document(ctx, id, again.Key)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rows != "9999" || got.Result != ResultPending || got.Attempts != 1 {
			t.Errorf("document added again: %+v", got)
		}

	})
}

// TestEndDocuments: the file's row, its summary and its last documents
// are stored in one transaction; a failed document or an unknown file
// keeps none of them.
func TestEndDocuments(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "O.csv", "orders")
		f, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		f.State, f.Rows, f.DocsTotal = FileSubmitting, 3, 2
		bad := f
		bad.ID = 777
		for _, tt := range []struct {
			name string
			f    File
			docs []Document
		}{
			{"unknown file", bad, []Document{{Key: "A-1"}}},
			{"empty key", f, []Document{{Key: "A-1"}, {Key: ""}}},
			{"bad state", File{ID: id, State: "maybe"}, []Document{{Key: "A-1"}}},
		} {
			if err := d.EndDocuments(ctx, tt.f, `{"Rows":3}`, tt.docs); err == nil {
				t.Errorf("%s: EndDocuments succeeded", tt.name)
			}
		}
		if got, _ := d.File(ctx, id); got.State != FileClaimed {
			t.Errorf("after failed calls: state %q, want %q", got.State, FileClaimed)
		}
		if docs, _ := d.Documents(ctx, id); len(docs) != 0 {
			t.Errorf("after failed calls: %d documents", len(docs))
		}
		if s, err := d.Summary(ctx, id); err != nil || s != "" {
			t.Errorf("after failed calls: summary %q, %v", s, err)
		}
		if err := d.EndDocuments(ctx, f, `{"Rows":3}`, []Document{{Key: "A-1", Rows: "2"}, {Key: "B-2", Rows: "3"}}); err != nil {
			t.Fatal(err)
		}
		got, err := d.File(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != FileSubmitting || got.Rows != 3 || got.DocsTotal != 2 {
			t.Errorf("file after EndDocuments: state %q, rows %d, docs %d", got.State, got.Rows, got.DocsTotal)
		}
		if docs, _ := d.Documents(ctx, id); len(docs) != 2 || docs[0].Result != ResultPending {
			t.Errorf("documents after EndDocuments: %+v", docs)
		}
		if s, err := d.Summary(ctx, id); err != nil || s != `{"Rows":3}` {
			t.Errorf("summary after EndDocuments: %q, %v", s, err)
		}
		// An empty summary keeps the one recorded.
		if err := d.EndDocuments(ctx, f, "", nil); err != nil {
			t.Fatal(err)
		}
		if s, _ := d.Summary(ctx, id); s != `{"Rows":3}` {
			t.Errorf("summary after EndDocuments without one: %q", s)
		}
		// Bodies stay while the file is open, and go with the summary when
		// it ends.
		if err := d.AddDocuments(ctx, id, []Document{{Key: "A-1", Rows: "2", Body: `{"Key":"A-1"}`}}); err != nil {
			t.Fatal(err)
		}
		for _, state := range []FileState{FileSubmitting, FileDone} {
			f.State = state
			if err := d.UpdateFile(ctx, f); err != nil {
				t.Fatal(err)
			}
			bodies := 0
			for doc, err := range d.FileDocuments(ctx, id, false) {
				if err != nil {
					t.Fatal(err)
				}
				if doc.Body != "" {
					bodies++
				}
			}
			s, _ := d.Summary(ctx, id)
			if open := state.Open(); (bodies == 1) != open || (s != "") != open {
				t.Errorf("file %s: %d bodies, summary %q", state, bodies, s)
			}
		}
	})
}

func TestAttemptsAndResults(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "S.csv", "skus")
		if err := d.AddDocuments(ctx, id, []Document{{Key: "SKU1"}, {Key: "SKU2"}}); err != nil {
			t.Fatal(err)
		}

		type step struct {
			op       string // "start" or a Result to set
			key      string
			portalID string
			msg      string
			wantErr  error // nil, ErrNotFound, or errAny
		}
		errAny := errors.New("any error")
		tests := []struct {
			name  string
			steps []step
			key   string
			want  Document
		}{
			{
				name:  "one attempt then created",
				steps: []step{{op: "start", key: "SKU1"}, {op: "created", key: "SKU1", portalID: "/api/variants/1"}},
				key:   "SKU1",
				want:  Document{Key: "SKU1", Result: ResultCreated, PortalID: "/api/variants/1", Attempts: 1},
			},
			{
				name: "retries then failed",
				steps: []step{
					{op: "start", key: "SKU2"}, {op: "pending", key: "SKU2", msg: "503"},
					{op: "start", key: "SKU2"}, {op: "pending", key: "SKU2", msg: "timeout"},
					{op: "start", key: "SKU2"},
				},
				key:  "SKU2",
				want: Document{Key: "SKU2", Result: ResultSending, Message: "timeout", Attempts: 3},
			},
			{
				name:  "gave up",
				steps: []step{{op: "failed", key: "SKU2", msg: "gave up after 3 attempts"}},
				key:   "SKU2",
				want:  Document{Key: "SKU2", Result: ResultFailed, Message: "gave up after 3 attempts", Attempts: 3},
			},
			{
				name: "unknown key and result",
				steps: []step{
					{op: "start", key: "NOPE", wantErr: ErrNotFound},
					{op: "created", key: "NOPE", wantErr: ErrNotFound},
					{op: "sort-of", key: "SKU1", wantErr: errAny},
				},
				key:  "SKU1",
				want: Document{Key: "SKU1", Result: ResultCreated, PortalID: "/api/variants/1", Attempts: 1},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				for _, s := range tt.steps {
					var err error
					if s.op == "start" {
						err = d.StartAttempt(ctx, id, s.key)
					} else {
						err = d.SetResult(ctx, id, s.key, Result(s.op), s.portalID, s.msg)
					}
					switch {
					case s.wantErr == nil && err != nil:
						t.Fatalf("%s %s: %v", s.op, s.key, err)
					case s.wantErr == ErrNotFound && !errors.Is(err, ErrNotFound):
						t.Fatalf("%s %s: err = %v, want ErrNotFound", s.op, s.key, err)
					case s.wantErr == errAny && err == nil:
						t.Fatalf("%s %s succeeded", s.op, s.key)
					}
				}
				got, err := d.Document(ctx, id, tt.key)
				if err != nil {
					t.Fatal(err)
				}
				tt.want.FileID = id
				got.UpdatedAt = time.Time{}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("\n got %+v\nwant %+v", got, tt.want)
				}
			})
		}
	})
}

func TestSetResults(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d := openTest(t)
		ctx := t.Context()
		id := claimTest(t, d, "erp", "O.csv", "orders")
		if err := d.AddDocuments(ctx, id, []Document{{Key: "1"}, {Key: "2"}, {Key: "3"}}); err != nil {
			t.Fatal(err)
		}
		err := d.SetResults(ctx, id, []Document{
			{Key: "1", Result: ResultSkipped, Message: "file rejected"},
			{Key: "2", Result: ResultInvalid, Message: "bad"},
		})
		if err != nil {
			t.Fatal(err)
		}
		// An unknown key rolls back the whole batch.
		err = d.SetResults(ctx, id, []Document{{Key: "3", Result: ResultCreated}, {Key: "9", Result: ResultCreated}})
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if err := d.SetResults(ctx, id, []Document{{Key: "3", Result: "bogus"}}); err == nil {
			t.Fatal("unknown result accepted")
		}
		counts, err := d.DocumentCounts(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := map[Result]int{ResultSkipped: 1, ResultInvalid: 1, ResultPending: 1}
		if !reflect.DeepEqual(counts, want) {
			t.Errorf("DocumentCounts = %v, want %v", counts, want)
		}
	})
}

func TestCreatedKeys(t *testing.T) {
	forBackends(t, func(t *testing.T) {
		d, clock := openAt(t, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		ctx := t.Context()
		f1 := claimTest(t, d, "erp", "SKU_1.csv", "skus")
		f2 := claimTest(t, d, "erp", "SKU_2.csv", "skus")
		f3 := claimTest(t, d, "erp", "SUP.csv", "suppliers")
		f4 := claimTest(t, d, "shop", "SKU_3.csv", "skus")
		add := func(file int64, key string, r Result, portalID string) {
			t.Helper()
			clock.set(clock.now().Add(time.Second))
			if err := d.AddDocuments(ctx, file, []Document{{Key: key}}); err != nil {
				t.Fatal(err)
			}
			if err := d.SetResult(ctx, file, key, r, portalID, ""); err != nil {
				t.Fatal(err)
			}
		}
		add(f1, "A", ResultCreated, "/v/1")
		add(f1, "B", ResultInvalid, "")
		add(f1, "C", ResultSending, "")
		add(f2, "A", ResultExists, "/v/1b") // later than f1's A
		add(f2, "D", ResultExists, "/v/4")
		add(f3, "A", ResultCreated, "/c/1") // same key, other type
		add(f4, "E", ResultCreated, "/v/5") // other inbox

		tests := []struct {
			name           string
			inbox, docType string
			keys           []string
			want           map[string]string // key -> portal id
		}{
			{"skus of erp", "erp", "skus", []string{"A", "B", "C", "D", "E", "Z"}, map[string]string{"A": "/v/1b", "D": "/v/4"}},
			{"suppliers of erp", "erp", "suppliers", []string{"A", "D"}, map[string]string{"A": "/c/1"}},
			{"any inbox", "", "skus", []string{"E", "D"}, map[string]string{"E": "/v/5", "D": "/v/4"}},
			{"any type", "erp", "", []string{"A"}, map[string]string{"A": "/c/1"}},
			{"no keys", "erp", "skus", nil, map[string]string{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := d.CreatedKeys(ctx, tt.inbox, tt.docType, tt.keys)
				if err != nil {
					t.Fatal(err)
				}
				ids := map[string]string{}
				for k, doc := range got {
					if doc.Key != k {
						t.Errorf("map key %q holds document %q", k, doc.Key)
					}
					ids[k] = doc.PortalID
				}
				if !reflect.DeepEqual(ids, tt.want) {
					t.Errorf("got %v, want %v", ids, tt.want)
				}
			})
		}

		t.Run("FindCreated", func(t *testing.T) {
			doc, ok, err := d.FindCreated(ctx, "erp", "skus", "D")
			if err != nil || !ok || doc.PortalID != "/v/4" || doc.FileID != f2 {
				t.Errorf("FindCreated(D) = %+v, %v, %v", doc, ok, err)
			}
			if _, ok, err := d.FindCreated(ctx, "erp", "skus", "B"); err != nil || ok {
				t.Errorf("FindCreated(B) = %v, %v; want not found", ok, err)
			}
		})

		t.Run("more keys than one query takes", func(t *testing.T) {
			f := claimTest(t, d, "bulk", "BULK.csv", "skus")
			var docs []Document
			var keys []string
			for i := range 1203 {
				k := fmt.Sprintf("K%05d", i)
				keys = append(keys, k)
				docs = append(docs, Document{Key: k, Result: ResultCreated, PortalID: "/v/" + k})
			}
			if err := d.AddDocuments(ctx, f, docs); err != nil {
				t.Fatal(err)
			}
			got, err := d.CreatedKeys(ctx, "bulk", "skus", keys)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(keys) || got["K01202"].PortalID != "/v/K01202" {
				t.Errorf("got %d documents, want %d", len(got), len(keys))
			}
		})
	})
}

func TestResultPredicates(t *testing.T) {
	tests := []struct {
		r                 Result
		valid, ok, finalR bool
	}{
		{ResultPending, true, false, false},
		{ResultSending, true, false, false},
		{ResultCreated, true, true, true},
		{ResultExists, true, true, true},
		{ResultInvalid, true, false, true},
		{ResultConflict, true, false, true},
		{ResultFailed, true, false, true},
		{ResultSkipped, true, false, true},
		{"", false, false, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.r), func(t *testing.T) {
			if tt.r.Valid() != tt.valid || tt.r.OK() != tt.ok || tt.r.Final() != tt.finalR {
				t.Errorf("Valid/OK/Final = %v/%v/%v, want %v/%v/%v",
					tt.r.Valid(), tt.r.OK(), tt.r.Final(), tt.valid, tt.ok, tt.finalR)
			}
		})
	}
}

// CreatedKeys (only tests use it) finds, among the keys, those that a file of the inbox with
// the document type put in the portal (result created or exists). For each
// key found it returns the most recent such document, whose PortalID is the
// id to reference. An empty inbox or docType matches any.
//
// It lets a file reference a code created by another file, and a resumed
// file skip documents that another file already created.
func (d *DB) CreatedKeys(ctx context.Context, inbox, docType string, keys []string) (map[string]Document, error) {
	out := make(map[string]Document, len(keys))
	err := inChunks(keys, func(part []string) error {
		docs, err := d.queryDocuments(ctx, `SELECT `+prefixed("d.", documentColumns)+`
			FROM documents d JOIN files f ON f.id = d.file_id
			WHERE (? = '' OR f.inbox = ?) AND (? = '' OR f.doc_type = ?)
			AND d.result IN ('created', 'exists')
			AND d.key IN `+inList(len(part))+`
			ORDER BY d.updated_at, d.id`, append([]any{inbox, inbox, docType, docType}, anys(part)...)...)
		for _, doc := range docs {
			out[doc.Key] = doc // ordered oldest first: the most recent wins
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("looking up created %s documents of inbox %q: %w", docType, inbox, err)
	}
	return out, nil
}

// FindCreated is CreatedKeys for one key.
func (d *DB) FindCreated(ctx context.Context, inbox, docType, key string) (Document, bool, error) {
	m, err := d.CreatedKeys(ctx, inbox, docType, []string{key})
	if err != nil {
		return Document{}, false, err
	}
	doc, ok := m[key]
	return doc, ok, nil
}
