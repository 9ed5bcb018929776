package outbox

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"filebridge/internal/config"
	"filebridge/internal/edi"
	"filebridge/internal/edi/edifact"
	"filebridge/internal/edi/x12"
	"filebridge/internal/formats/export"
	"filebridge/internal/model"
)

// JobOf turns a validated export of an outbox into a Job.
func JobOf(out *config.Outbox, edition model.Edition, e config.Export) (Job, error) {
	delim, size := utf8.DecodeRuneInString(e.Delimiter)
	if e.Delimiter == "" {
		delim = ','
	} else if size != len(e.Delimiter) {
		return Job{}, fmt.Errorf("outbox %s, export %s: delimiter %q must be one character", out.Name, e.Type, e.Delimiter)
	}
	var env *x12.Envelope
	if strings.EqualFold(e.Format, config.FormatX12) {
		env = &x12.Envelope{Sender: party(e.X12.Sender), Receiver: party(e.X12.Receiver), Version: e.X12.Version, Test: e.X12.Test}
	}
	var unb *edifact.Envelope
	if strings.EqualFold(e.Format, config.FormatEDIFACT) {
		unb = &edifact.Envelope{Release: e.EDIFACT.Release, Header: edifact.Header{Syntax: e.EDIFACT.Syntax,
			Sender: edifactParty(e.EDIFACT.Sender), Recipient: edifactParty(e.EDIFACT.Receiver), Test: e.EDIFACT.Test}}
	}
	return Job{
		Outbox:     out.Name,
		Edition:    edition,
		Type:       e.Type,
		Schedule:   e.Schedule,
		Location:   e.Location,
		Filename:   e.Filename,
		Dir:        e.Dir,
		WriteEmpty: e.WriteEmpty,
		File: export.Options{
			Format:     export.Format(strings.ToLower(e.Format)),
			Delimiter:  delim,
			Charset:    e.Charset,
			BOM:        e.BOM,
			CRLF:       e.CRLF,
			Decimal:    e.Decimal,
			DateLayout: e.DateLayout,
			Layout:     e.Layout,
			X12:        env,
			EDIFACT:    unb,
		},
	}, nil
}

// party reads a validated "qualifier:id".
func party(s string) edi.Party {
	q, id, _ := strings.Cut(s, ":")
	return edi.Party{Qualifier: q, ID: id}
}

// edifactParty reads a validated "id:qualifier".
func edifactParty(s string) edifact.Party {
	id, q, _ := strings.Cut(s, ":")
	return edifact.Party{ID: id, Qual: q}
}

// Jobs returns the jobs of an outbox of a loaded config.
func Jobs(cfg *config.Config, out *config.Outbox) ([]Job, error) {
	p := cfg.Portal(out.Portal)
	if p == nil {
		return nil, fmt.Errorf("outbox %s: portal %q is not configured", out.Name, out.Portal)
	}
	jobs := make([]Job, 0, len(out.Exports))
	for _, e := range out.Exports {
		j, err := JobOf(out, p.Edition, e)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}
