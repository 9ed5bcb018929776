package formats

// readAhead reads the rows of a CSV file on a goroutine of its own, a few
// batches ahead of the checks: on two cores reading (encoding/csv) and
// checking overlap, where they took turns (a third of the time of
// `filebridge validate` on a million SKUs was the reading).
type readAhead struct {
	full chan *aheadBatch // batches read, in file order; closed after the last
	free chan *aheadBatch // batches handed back, to be filled again
	stop chan struct{}    // closed when the rows are no longer wanted
	done chan struct{}    // closed when the reading goroutine has returned

	cur *aheadBatch // the batch being handed out
	at  int         // its next row
}

// aheadRows is the number of rows of a batch; aheadBatches is how many
// batches there are: one being read, one being checked, one waiting.
const (
	aheadRows    = 256
	aheadBatches = 3
)

// aheadBatch is a batch of rows with their cells end to end.
type aheadBatch struct {
	rows  []aheadRow
	cells []string
}

// aheadRow is what readRow returned for one row, its cells at
// cells[from:to] of its batch.
type aheadRow struct {
	row      int
	from, to int
	err      error
}

// startReadAhead starts reading the rows of src. The caller calls next
// until it returns an error that is not a *rowError, or close: src is not
// read from another goroutine after close returns.
func startReadAhead(src rowSource) *readAhead {
	a := &readAhead{
		full: make(chan *aheadBatch, aheadBatches),
		free: make(chan *aheadBatch, aheadBatches),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range aheadBatches {
		a.free <- new(aheadBatch) // grown by the rows of a file, not more
	}
	go a.read(src)
	return a
}

// read fills the free batches with rows up to the end of the rows.
func (a *readAhead) read(src rowSource) {
	defer close(a.done)
	defer close(a.full)
	for {
		var b *aheadBatch
		select {
		case b = <-a.free:
		case <-a.stop:
			return
		}
		b.rows, b.cells = b.rows[:0], b.cells[:0]
		end := false
		for len(b.rows) < aheadRows && !end {
			row, cells, err := readRow(src)
			from := len(b.cells)
			b.cells = append(b.cells, cells...)
			b.rows = append(b.rows, aheadRow{row: row, from: from, to: len(b.cells), err: err})
			_, rowOnly := err.(*rowError)
			end = err != nil && !rowOnly
		}
		select {
		case a.full <- b:
		case <-a.stop:
			return
		}
		if end {
			return
		}
	}
}

// next returns the next row as readRow does; its cells are valid until
// the next call.
func (a *readAhead) next() (int, []string, error) {
	if a.cur == nil || a.at == len(a.cur.rows) {
		if a.cur != nil {
			a.free <- a.cur
		}
		a.cur, a.at = <-a.full, 0
	}
	r := a.cur.rows[a.at]
	a.at++
	return r.row, a.cur.cells[r.from:r.to:r.to], r.err
}

// close stops the reading and waits for its goroutine to return.
func (a *readAhead) close() {
	close(a.stop)
	<-a.done
}
