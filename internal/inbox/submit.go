package inbox

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// batchSize is how many documents are recorded in the journal at once.
const batchSize = 256

// task is one document to submit.
type task struct {
	key string
	doc formats.Doc
	// resume: an earlier attempt (or run, for a replay) may have reached
	// the portal; the document is looked up by its key before anything
	// is sent.
	resume bool
}

// submit reads the file's open documents from the journal, in row order,
// and hands them to the workers, or settles them unsent: invalid for a
// reference not on the portal, skipped when the file may not be submitted
// (those results are journaled a batch at a time).
//
// It returns nil when every document is settled, or the first error that
// stops the file (transient, auth, journal): documents already sent keep
// their results, those in flight stay "sending". Once fr.stop ended no
// document is sent any more, but those already sent finish under ctx and
// their results are journaled; submit then returns fr.stop's error.
func (fr *fileRun) submit(ctx context.Context) error {
	in, row := fr.in, &fr.row
	submittable, skipMsg := fr.decision()
	sendCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var held atomic.Bool // a document was not sent because of fr.stop
	stopped := func() bool {
		if fr.stop.Err() != nil {
			held.Store(true)
			return true
		}
		return false
	}

	tasks := make(chan task)
	var wg sync.WaitGroup
	for range in.workers {
		wg.Go(func() {
			for t := range tasks {
				if sendCtx.Err() != nil || stopped() {
					continue
				}
				if err := fr.send(sendCtx, t); err != nil {
					cancel(err)
				}
			}
		})
	}

	var settled []journal.Document // decided unsent, growing to batchSize like decode's batches
	flush := func() error {
		if len(settled) == 0 {
			return nil
		}
		err := in.j.SetResults(sendCtx, row.ID, settled)
		settled = settled[:0]
		return err
	}
	derr := func() error {
		for jd, err := range in.j.FileDocuments(sendCtx, row.ID, true) {
			if err != nil {
				return err
			}
			d, err := docOf(jd)
			if err != nil {
				return err
			}
			t := task{key: jd.Key, doc: d, resume: jd.Result == journal.ResultSending || (fr.lookFirst && displayKey(d) != "")}
			switch msg := fr.missingOf(d); {
			case jd.Result == journal.ResultSending && displayKey(d) == "":
				// Without a key the portal cannot be asked whether the
				// earlier attempt created it: never send twice.
				jd.Result, jd.Message = journal.ResultFailed, unknownOutcome
			case jd.Result == journal.ResultSending:
			case msg != "":
				jd.Result, jd.Message = journal.ResultInvalid, msg
			case !submittable:
				jd.Result, jd.Message = journal.ResultSkipped, skipMsg
			}
			if jd.Result.Final() {
				if settled = append(settled, jd); len(settled) >= batchSize {
					if err := flush(); err != nil {
						return err
					}
				}
				continue
			}
			if stopped() {
				return context.Cause(fr.stop)
			}
			select {
			case tasks <- t:
			case <-sendCtx.Done():
				return context.Cause(sendCtx)
			case <-fr.stop.Done():
				held.Store(true)
				return context.Cause(fr.stop)
			}
		}
		return flush()
	}()
	close(tasks)
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if cause := context.Cause(sendCtx); cause != nil && sendCtx.Err() != nil {
		return cause
	}
	if held.Load() {
		return fmt.Errorf("submitting %s: stopped before every document was sent: %w", row.Name, context.Cause(fr.stop))
	}
	if derr != nil {
		return fmt.Errorf("submitting %s: %w", row.Name, derr)
	}
	return nil
}

// reconsider says whether a document settled by an earlier reading of a
// file that changed since is submitted again, looked up first: one not
// sent then (invalid or skipped, e.g. a row cut by its writer), or one in
// the portal whose rows changed (the portal compares it).
func (fr *fileRun) reconsider(old, now journal.Document, d formats.Doc) bool {
	if !fr.changed || !d.Valid() || displayKey(d) == "" {
		return false
	}
	switch old.Result {
	case journal.ResultInvalid, journal.ResultSkipped:
		return true
	case journal.ResultCreated, journal.ResultExists:
		return old.Rows != now.Rows
	}
	return false
}

// unknownOutcome is the message of a keyless document whose earlier
// attempt may or may not have created it.
const unknownOutcome = "sent earlier without an answer, and it has no code the portal could be searched by: check on the portal whether it exists, then drop a file with it again if not"

// decision says whether the file's valid documents may be submitted, and
// otherwise the message recorded on them.
func (fr *fileRun) decision() (bool, string) {
	if len(fr.problems) > 0 {
		return false, "not submitted: " + fr.problems[0]
	}
	if is, bad := firstError(fr.sum.FileIssues); bad {
		return false, "not submitted: the file has errors (" + issueText(is) + "); fix them and drop the whole file again"
	}
	policy := fr.policy()
	if n := fr.sum.InvalidDocs; n > 0 && policy != config.PolicyPartial {
		return false, fmt.Sprintf("not submitted: %d document(s) of the file are invalid and the route's policy is %q; fix them and drop the whole file again", n, policy)
	}
	if msg := fr.missingDecision(); msg != "" {
		return false, msg
	}
	return true, ""
}

// send submits one document: the journal marks it "sending" first, then
// records the outcome. On a shared journal it first checks that this
// instance still holds the file (errLostFile otherwise). A transient failure or a refused token stops the
// file (the document stays "sending": the next attempt looks it up by key
// before creating it).
func (fr *fileRun) send(ctx context.Context, t task) error {
	in, row := fr.in, &fr.row
	if err := fr.holds(ctx); err != nil {
		return err
	}
	prep, perr := fr.prepare(ctx, t.doc)
	if t.resume && perr == nil {
		out, found, err := prep.Settle(ctx)
		switch {
		case errors.Is(err, portal.ErrNoKey):
			fr.log.Warn("document sent before a restart without an answer cannot be looked up: not sent again", "doc", t.key)
			return in.j.SetResult(context.WithoutCancel(ctx), row.ID, t.key, journal.ResultFailed, "", unknownOutcome)
		case found:
			fr.log.Info("document an earlier attempt or run sent is on the portal: not sent again", "doc", t.key, "portal_id", out.ID)
			return fr.record(ctx, t, out, err)
		case err != nil && !portal.IsInvalid(err):
			return fr.record(ctx, t, out, err)
		}
		// Not on the portal: send it.
	}
	if err := in.j.StartAttempt(ctx, row.ID, t.key); err != nil {
		return err
	}
	if perr != nil { // the references did not resolve (or could not be read): nothing posted
		return fr.record(ctx, t, portal.Outcome{}, perr)
	}
	out, err := prep.Create(ctx)
	return fr.record(ctx, t, out, err)
}

// record journals the outcome of a create (or a look-up).
func (fr *fileRun) record(ctx context.Context, t task, out portal.Outcome, err error) error {
	in, row := fr.in, &fr.row
	// Record outcomes even when another worker stopped the file meanwhile.
	rctx := context.WithoutCancel(ctx)
	switch {
	case err == nil:
		fr.resumed()
		r := journal.ResultCreated
		if out.Existed {
			r = journal.ResultExists
		}
		fr.log.Debug("document submitted", "doc", t.key, "result", r, "portal_id", out.ID)
		var id string // empty when the portal shows no id (the documents list none on some documents)
		if out.ID != 0 {
			id = strconv.FormatInt(out.ID, 10)
		}
		return in.j.SetResult(rctx, row.ID, t.key, r, id, issuesText(t.doc.Issues, true))
	case portal.IsConflict(err), portal.IsInvalid(err):
		fr.resumed()
		r := journal.ResultInvalid
		if portal.IsConflict(err) {
			r = journal.ResultConflict
		}
		msg := fr.portalMessage(err)
		fr.log.Info("document refused by the portal", "doc", t.key, "result", r, "reason", msg)
		var id string
		if r == journal.ResultConflict && out.ID != 0 {
			id = strconv.FormatInt(out.ID, 10)
		}
		return in.j.SetResult(rctx, row.ID, t.key, r, id, msg)
	case portal.IsAuth(err):
		if in.health.Pause(in.cfg.Portal, hinted(err, in.cfg.Portal)) {
			in.log.Error("portal refused the token: submissions to it are paused and files stay in processing/ until a retry succeeds",
				"portal", in.cfg.Portal, "error", err, "hint", portal.Hint(err, in.cfg.Portal))
		}
		return &retryError{err: err}
	case ctx.Err() != nil:
		return context.Cause(ctx)
	default:
		if in.health.Unreachable(in.cfg.Portal, hinted(err, in.cfg.Portal)) {
			in.log.Warn("portal unreachable: files stay in processing/ and are retried", "portal", in.cfg.Portal, "error", err,
				"hint", portal.Hint(err, in.cfg.Portal))
		}
		return &retryError{err: fmt.Errorf("submitting %s of %s: %w", t.key, row.Name, err)}
	}
}

// hinted adds to a portal failure what to check in the configuration of
// the portal (portal.Hint), for the reason /healthz shows.
func hinted(err error, portalName string) error {
	if hint := portal.Hint(err, portalName); hint != "" {
		return fmt.Errorf("%w (%s)", err, hint)
	}
	return err
}

// resumed clears an auth pause or an outage of the portal after a call
// went through.
func (fr *fileRun) resumed() {
	if fr.in.health.Resume(fr.in.cfg.Portal) {
		fr.in.log.Info("portal accepts the token again: submissions resumed", "portal", fr.in.cfg.Portal)
	}
	if fr.in.health.Reachable(fr.in.cfg.Portal) {
		fr.in.log.Info("portal reachable again", "portal", fr.in.cfg.Portal)
	}
}

// prepare resolves a document's references with the prepare call of its
// kind: Create then posts it, Settle looks it up.
func (fr *fileRun) prepare(ctx context.Context, d formats.Doc) (portal.Prepared, error) {
	p := fr.in.p
	switch {
	case d.Partner != nil:
		return p.PreparePartner(*d.Partner), nil
	case d.Item != nil:
		return p.PrepareItem(ctx, *d.Item)
	case d.Packaging != nil:
		return p.PreparePackaging(ctx, *d.Packaging)
	case d.Inbound != nil:
		// Lines carrying item.* master data get their missing SKUs
		// created first by the client (supplier: the reception's).
		return p.PrepareInbound(ctx, *d.Inbound)
	case d.Outbound != nil:
		return p.PrepareOutbound(ctx, *d.Outbound)
	}
	return portal.Prepared{}, &portal.Error{Class: portal.Invalid, Message: fmt.Sprintf("document of kind %s has no content", d.Kind)}
}

// portalMessage renders the portal's refusal for the report, naming the
// file's columns where a violation's field maps to one.
func (fr *fileRun) portalMessage(err error) string {
	var pe *portal.Error
	if !errors.As(err, &pe) {
		return err.Error()
	}
	if len(pe.Violations) == 0 {
		if pe.Message != "" {
			return pe.Message
		}
		return err.Error()
	}
	parts := make([]string, 0, len(pe.Violations))
	for _, v := range pe.Violations {
		switch col := fr.column(v.Field); {
		case col != "":
			parts = append(parts, fmt.Sprintf("column %q: %s", col, v.Message))
		case v.Field != "":
			parts = append(parts, v.Field+": "+v.Message)
		default:
			parts = append(parts, v.Message)
		}
	}
	msg := strings.Join(parts, "; ")
	if pe.Class == portal.Conflict && pe.Message != "" {
		msg = pe.Message + ": " + msg
	}
	return msg
}

// wireAliases map API field names of violations to file columns.
var wireAliases = map[string]string{
	"variant": "sku", "supplier": "supplierCode", "warehouse": "warehouseCode",
	"carrier": "carrierCode", "carrierservice": "carrierServiceCode",
	"purchaseorderlineitems": "sku", "salesorderlineitems": "sku",
}

// column returns the file's header of a violation's field ("" when the
// file has no such column).
func (fr *fileRun) column(field string) string {
	if field == "" || len(fr.sum.Header) == 0 {
		return ""
	}
	ours := formats.OurNames(fr.sum.Header, fr.opts.Columns)
	find := func(name string) string {
		n := model.NormalizeHeader(name)
		for i, h := range ours {
			if model.NormalizeHeader(h) == n {
				return fr.sum.Header[i]
			}
		}
		return ""
	}
	// "purchaseOrderLineItems[2].variant" → "variant"; keep dotted
	// columns such as "shipTo.city" whole first.
	clean := field
	if i := strings.IndexByte(clean, '['); i >= 0 {
		if j := strings.IndexByte(clean[i:], ']'); j >= 0 {
			clean = clean[:i] + clean[i+j+1:]
		}
	}
	if c := find(clean); c != "" {
		return c
	}
	last := clean
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		last = last[i+1:]
	}
	if c := find(last); c != "" {
		return c
	}
	if alias, ok := wireAliases[model.NormalizeHeader(last)]; ok {
		return find(alias)
	}
	return ""
}

// journalKey is a document's key in the journal: its key (for a packaging
// "SKU/CODE"), or for an invalid document, which may lack a key or repeat
// another's, the key and its first row.
func journalKey(d formats.Doc) string {
	key := displayKey(d)
	if !d.Valid() || key == "" {
		first := 0
		if len(d.Rows) > 0 {
			first = d.Rows[0]
		}
		return fmt.Sprintf("%s (line %d)", key, first)
	}
	return key
}

// displayKey is the key shown in reports.
func displayKey(d formats.Doc) string {
	if d.Packaging != nil && d.Packaging.SKU != "" {
		return d.Packaging.SKU + "/" + d.Key
	}
	return d.Key
}

// rowsText renders row numbers compactly: "2", "2-5", "2-3,7".
func rowsText(rows []int) string {
	var b strings.Builder
	for i := 0; i < len(rows); {
		j := i
		for j+1 < len(rows) && rows[j+1] == rows[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(rows[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(rows[j]))
		}
		i = j + 1
	}
	return b.String()
}

// maxMessage bounds a document's message in the journal and the report.
const maxMessage = 2000

// issuesText joins a document's errors (or, with warnings, its warnings).
func issuesText(issues []formats.Issue, warnings bool) string {
	var parts []string
	for _, is := range issues {
		if is.Warning == warnings {
			t := issueText(is)
			if warnings {
				t = "warning: " + t
			}
			parts = append(parts, t)
		}
	}
	s := strings.Join(parts, "; ")
	if len(s) > maxMessage {
		s = s[:maxMessage] + "…"
	}
	return s
}

// issueText renders an issue without the file name: `line 12, column
// "quantity" (value "-3"): must be greater than 0`.
func issueText(is formats.Issue) string {
	is.File = ""
	is.Warning = false
	s := strings.TrimSpace(is.Error())
	s = strings.TrimPrefix(s, ", ")
	s = strings.TrimPrefix(s, ": ")
	return s
}
