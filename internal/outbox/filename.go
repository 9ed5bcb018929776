package outbox

import (
	"fmt"
	"strings"
	"time"
)

// Layouts of the file name placeholders.
const (
	dateLayout     = "20060102"
	timeLayout     = "150405"
	datetimeLayout = "20060102_150405"
)

// expand fills a file name template: {date} 20261121, {time} 093000,
// {datetime} 20261121_093000 (all in the job's time zone), {seq} the run's
// sequence number on six digits or more (000042), {type} the export type
// (stock), {outbox} the outbox name.
func expand(tmpl string, job Job, now time.Time, seq int64) string {
	return strings.NewReplacer(
		"{date}", now.Format(dateLayout),
		"{time}", now.Format(timeLayout),
		"{datetime}", now.Format(datetimeLayout),
		"{seq}", fmt.Sprintf("%06d", seq),
		"{type}", string(job.Type),
		"{outbox}", job.Outbox,
	).Replace(tmpl)
}

func usesSeq(tmpl string) bool { return strings.Contains(tmpl, "{seq}") }
