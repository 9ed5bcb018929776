package inbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sync"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/formats"
	"filebridge/internal/journal"
	"filebridge/internal/model"
)

// round claims the settled files, adds the files already in processing/
// (open in the journal, or left there by a crash before their journal row
// was written) and processes them in dependency order: the files of one
// dependency level up to file_concurrency at a time.
//
// ctx ends the round early: no file is claimed or started after it ended.
// work carries what was started (the claim of a file, the requests of the
// file being submitted); RunOnce and ProcessFile pass the same context
// twice.
func (in *Inbox) round(ctx, work context.Context, f folder.Folder, settled []string, waiting int, detach bool) (res RoundResult, err error) {
	in.work.Lock()
	defer in.work.Unlock()
	in.order.wait(in.wake, true) // until setDeferred says whether files wait
	start := in.now()
	in.beginRound(start)
	defer func() { in.endRound(start, res, err) }()
	defer in.dropSpooled()
	defer in.idleLedger()
	res = RoundResult{Waiting: waiting}
	if err := in.checkJournal(ctx); err != nil {
		return res, in.retryLater(err)
	}
	in.requeueGrown(ctx, f)
	jobs, err := in.openJobs(ctx, f)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, in.retryLater(err)
	}
	jobs = slices.DeleteFunc(jobs, func(row journal.File) bool { return in.isRunning(row.ID) })
	claimed, left, err := in.claimSettled(ctx, work, f, settled)
	jobs = append(jobs, claimed...)
	res.Left = left
	if err != nil {
		in.setQueue(waiting + len(jobs) + len(settled))
		return res, in.retryLater(err)
	}
	in.sortJobs(jobs)
	for _, row := range jobs {
		in.order.claimed(in.cfg.Name, row.Name, row.ID, kindOrder(in.edition, row.DocType))
	}
	in.setQueue(waiting + len(jobs))
	defer func() { in.setDeferred(res.Deferred + res.Held) }()
	return in.runJobs(ctx, work, f, jobs, res, detach)
}

// claimSettled claims the settled files, as many at a time as the
// inbox's pace allows (file_concurrency, growing while round trips are
// the limit, on SFTP four times that of files the listing showed small;
// their journal rows share commits, see journal.DB.write). On
// a shared journal it claims one at a time, in claimOrder, and stops at
// its budget: left is how many it did not try. After an error no new
// claim starts; those under way finish (a file claimed then is found open
// in the journal at the next round).
func (in *Inbox) claimSettled(ctx, work context.Context, f folder.Folder, settled []string) (rows []journal.File, left int, err error) {
	settled, budget := in.claimOrder(settled)
	pc := in.pace
	if in.shared() {
		pc = newPace(1)
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for i, name := range settled {
		q := 4 // a whole place: a local claim is work on this machine
		if in.cfg.Folder.IsSFTP() {
			size := int64(-1)
			if e, ok := in.listedEntry(name); ok {
				size = e.Size
			}
			q = pc.claimQuarters(size)
		}
		acquired := pc.acquire(ctx, q)
		mu.Lock()
		stop := ctx.Err() != nil || err != nil || budget == 0
		if budget == 0 && err == nil && ctx.Err() == nil {
			left = len(settled) - i
		}
		mu.Unlock()
		if stop {
			if acquired {
				pc.release(q, 0)
			}
			break // what is left is found again at the next round
		}
		wg.Go(func() {
			began := in.now()
			row, cerr := in.claim(work, f, name)
			took := in.now().Sub(began)
			if cerr != nil {
				took = 0
			}
			pc.release(q, took)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(cerr, fs.ErrNotExist):
				in.log.Debug("file gone since the listing (another instance may have taken it)", "file", name, "error", cerr)
			case errors.Is(cerr, journal.ErrClaimed):
				in.log.Debug("file claimed by another instance", "file", name, "error", cerr)
			case cerr != nil:
				err = cmp.Or(err, cerr)
			default:
				rows = append(rows, row)
				budget--
			}
		})
	}
	wg.Wait()
	return rows, left, err
}

// setDeferred records how many claimed files wait for files they depend
// on.
func (in *Inbox) setDeferred(n int) {
	in.mu.Lock()
	in.deferred = n
	in.mu.Unlock()
	in.order.wait(in.wake, n > 0)
}

func (in *Inbox) hasDeferred() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.deferred > 0
}

// retryLater backs off and wraps err as a retry error (logging it).
func (in *Inbox) retryLater(err error) error {
	d := in.backOff()
	var re *retryError
	if !errors.As(err, &re) {
		re = &retryError{err: err}
	}
	in.log.Warn("files stay in processing/ and are retried later", "error", err, "retry_in", d)
	return re
}

// sortJobs orders files by kind (partners, items, packagings, inbound,
// outbound), then name, then claim order.
func (in *Inbox) sortJobs(jobs []journal.File) {
	slices.SortStableFunc(jobs, func(a, b journal.File) int {
		return cmp.Or(cmp.Compare(in.level(a), in.level(b)), cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID))
	})
}

// level is a file's dependency level: its kind's order, 99 for an unknown
// type (it fails on its own, after the others).
func (in *Inbox) level(f journal.File) int {
	if dt, err := model.LookupDocType(in.edition, f.DocType); err == nil {
		return dt.Kind.Order()
	}
	return 99
}

// openJobs returns the inbox's open journal files this instance works on
// (on a shared journal: those it holds or takes over, see lease.go), and
// claims the files of processing/ that have no open row (a crash between
// the rename and the journal insert).
func (in *Inbox) openJobs(ctx context.Context, f folder.Folder) ([]journal.File, error) {
	rows, err := in.j.OpenFiles(ctx, in.cfg.Name)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(rows))
	for _, r := range rows {
		known[r.Path] = true
	}
	if rows, err = in.mine(ctx, rows); err != nil {
		return nil, err
	}
	entries, err := f.List(ctx, in.cfg.ProcessingDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing %s of inbox %q: %w", in.cfg.ProcessingDir, in.cfg.Name, err)
	}
	strays := map[string]bool{}
	defer in.forgetStrays(strays)
	for _, e := range entries {
		p := path.Join(in.cfg.ProcessingDir, e.Name)
		if e.IsDir || isTemp(e.Name) || known[p] || !in.orphaned(p, e, strays) {
			continue
		}
		in.log.Info("claiming a file found in processing/ without a journal entry", "file", e.Name)
		row, err := in.record(ctx, f, e.Name, p, nil)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, journal.ErrClaimed) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// claim moves name from the inbox into processing/ (under a unique name
// when processing/ already has one), removes its done marker and records
// it in the journal.
func (in *Inbox) claim(ctx context.Context, f folder.Folder, name string) (journal.File, error) {
	listed, ok := in.listedEntry(name)
	to, err := folder.RenameUnique(ctx, f, name, in.cfg.ProcessingDir, name)
	if err != nil {
		return journal.File{}, fmt.Errorf("claiming %s: %w", name, err)
	}
	in.forget(name)
	if r := in.route(name); r != nil && r.DoneMarker {
		for _, m := range markerNames(name) {
			if err := f.Remove(ctx, m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				in.log.Warn("could not remove the done marker; remove it by hand", "file", name, "marker", m, "error", err)
			}
		}
	}
	if !ok {
		return in.record(ctx, f, name, to, nil)
	}
	return in.record(ctx, f, name, to, &listed)
}

// listedEntry is what the inbox's last listing showed of name (ok false
// when it showed nothing of that name).
func (in *Inbox) listedEntry(name string) (e folder.Entry, ok bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	e, ok = in.listed[name]
	return e, ok
}

// record reads a claimed file (size, SHA-256, document type for the
// dependency order) and inserts its journal row, unless the path already
// has an open one (journal.ErrClaimed: another instance holds the file).
// A file over the size limit is not read. listed, when not nil, is what
// the listing the claim came from showed of the file: its size and
// modification time are taken from there instead of asked for again (a
// file that changed since is found changed by processing, which reads it
// again whole).
func (in *Inbox) record(ctx context.Context, f folder.Folder, name, p string, listed *folder.Entry) (journal.File, error) {
	row := journal.File{Inbox: in.cfg.Name, Name: name, Path: p, State: journal.FileClaimed, Portal: in.p.Identity()}
	var src *source
	var err error
	if listed != nil {
		var rc io.ReadCloser
		if rc, err = folder.OpenListed(ctx, f, p, *listed); err == nil {
			src, err = readSource(rc, p, true, int64(in.cfg.MaxFileSize))
		}
	} else {
		src, err = in.openSource(ctx, f, p, true, int64(in.cfg.MaxFileSize))
	}
	var big *tooBigError
	switch {
	case errors.As(err, &big): // not read: processing reports it
		row.Size, src = big.size, &source{close: func() error { return nil }}
	case errors.Is(err, folder.ErrNotRegular): // a pipe, a socket: processing reports it
		src = &source{close: func() error { return nil }}
	case err != nil:
		return journal.File{}, fmt.Errorf("claiming %s: %w", name, err)
	default:
		row.SHA256, row.Size = src.sha, src.size
		row.DocType = in.detectType(ctx, src, name)
	}
	id, err := in.j.ClaimExclusive(ctx, row)
	if err != nil {
		_ = src.Close()
		return journal.File{}, err
	}
	row.ID = id
	if row.SHA256 != "" {
		in.keepClaimLook(id, look{size: src.size, mtime: src.mtime})
	}
	in.keepSpooled(id, src)
	in.log.Info("claimed file", "file", name, "path", p, "size", row.Size, "type", row.DocType)
	return row, nil
}

// detectType returns the canonical document type of a file: its route's,
// else the one its header row names ("" when it cannot tell; processing
// then reports why).
func (in *Inbox) detectType(ctx context.Context, src *source, name string) string {
	opts := FormatOptions(in.edition, in.route(name), int64(in.cfg.MaxFileSize))
	// A file that stopped filebridge gets no type: processing sends it to
	// error/ unread. A route's type is not a reading of the file.
	if opts.Type != "" {
		if in.stoppedReading(name, src.size) {
			return ""
		}
	} else {
		end, err := in.beginRead(name, src.size)
		if err != nil {
			return ""
		}
		defer end()
	}
	dt, err := formats.FileType(ctx, src, src.size, name, opts)
	if err != nil {
		return ""
	}
	return dt.Name
}

// tooBigError is a file over the limit of openSource, not read.
type tooBigError struct{ size int64 }

func (e *tooBigError) Error() string { return fmt.Sprintf("%d bytes: too big to read", e.size) }

// source is a claimed file opened for random access: the local file
// itself, or a copy of a remote one in memory or in a local spool file.
type source struct {
	io.ReaderAt
	size  int64
	mtime time.Time // the file's modification time when it was opened
	sha   string    // hex SHA-256, when asked for
	mem   bool      // a copy in memory: kept from the claim for processing
	// file is the local file itself (nil for a copy): kept open from the
	// claim for processing, it is asked for its size and modification
	// time instead of its folder.
	file   *os.File
	close  func() error
	closed bool
}

// look is what the source's file is now: a local file is asked (fstat),
// a copy is what was read.
func (s *source) look() (look, error) {
	if s.file == nil {
		return look{size: s.size, mtime: s.mtime}, nil
	}
	st, err := s.file.Stat()
	if err != nil {
		return look{}, err
	}
	return look{size: st.Size(), mtime: st.ModTime()}, nil
}

// Close releases the source; it may be called again.
func (s *source) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.close()
}

// spoolKept is how many bytes of remote files read into memory by their
// claims a round keeps for processing (a round of a thousand one-order
// files downloads each once instead of twice).
const spoolKept = 32 << 20

// The bounds of handleBudget: minKept where the descriptor limit is not
// known, maxKept whatever the limit.
const (
	minKept = 64
	maxKept = 4096
)

// keepSpooled keeps a claimed file's source for its processing in this
// round: a copy in memory while the round's copies stay within
// spoolKept, a local file open while the round keeps fewer than
// in.keptMax of them open (a round claims every settled file before it
// processes them: a thousand files must not take a thousand
// descriptors). Any other source is closed.
func (in *Inbox) keepSpooled(id int64, src *source) {
	in.mu.Lock()
	defer in.mu.Unlock()
	mem := src.mem && in.spooledBytes+src.size <= spoolKept
	open := src.file != nil && in.spooledFiles < in.keptMax
	if !mem && !open {
		_ = src.Close()
		return
	}
	if in.spooled == nil {
		in.spooled = map[int64]*source{}
	}
	in.spooled[id] = src
	if mem {
		in.spooledBytes += src.size
	} else {
		in.spooledFiles++
	}
}

// takeSpooled hands over the source its claim kept of a file (nil when
// none): the caller closes it.
func (in *Inbox) takeSpooled(id int64) *source {
	in.mu.Lock()
	defer in.mu.Unlock()
	src := in.spooled[id]
	if src != nil {
		delete(in.spooled, id)
		in.forgetSpooled(src)
	}
	return src
}

func (in *Inbox) forgetSpooled(src *source) {
	if src.mem {
		in.spooledBytes -= src.size
	} else {
		in.spooledFiles--
	}
}

// dropSpooled closes the sources a round kept and did not use (files it
// deferred): the next round reads them again.
func (in *Inbox) dropSpooled() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for id, src := range in.spooled {
		_ = src.Close()
		delete(in.spooled, id)
		in.forgetSpooled(src)
	}
}

// memSpool is the size up to which a remote file is spooled in memory
// rather than in a temporary local file: most files an ERP drops one
// order at a time are a few kilobytes, and creating and removing a file
// for each costs more than reading it.
const memSpool = 256 << 10

// openSource opens a file of the folder for decoding. A local file is
// read in place; anything else is copied into memory (up to memSpool) or
// to a temporary local file first, hashed on the way. A file of more than
// limit bytes (limit > 0) is not read: a *tooBigError gives its size.
func (in *Inbox) openSource(ctx context.Context, f folder.Folder, p string, wantHash bool, limit int64) (*source, error) {
	rc, err := f.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return readSource(rc, p, wantHash, limit)
}

// readSource reads the file rc opened as openSource does (it closes rc
// unless it is the local file itself, which the source keeps).
func readSource(rc io.ReadCloser, p string, wantHash bool, limit int64) (*source, error) {
	var (
		st  fs.FileInfo
		err error
	)
	if s, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok { // Folder.Open's readers have one
		st, err = s.Stat()
	} else {
		err = errors.New("the folder's reader gives no size")
	}
	if err != nil {
		_ = rc.Close()
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if limit > 0 && st.Size() > limit {
		_ = rc.Close()
		return nil, &tooBigError{size: st.Size()}
	}
	if file, ok := rc.(*os.File); ok {
		// Its first bytes are read once, for the hash and for formats to
		// tell the file's format by (a one-order file is read whole).
		head, err := formats.ReadHead(file, st.Size())
		if err != nil {
			_ = rc.Close()
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		src := &source{ReaderAt: head, size: st.Size(), mtime: st.ModTime(), file: file, close: file.Close}
		if wantHash {
			h := sha256.New()
			buf := make([]byte, min(max(src.size, 512), 32<<10)) // a small file's size, not io.Copy's 32 KiB
			if _, err := io.CopyBuffer(h, io.NewSectionReader(head, 0, src.size), buf); err != nil {
				_ = rc.Close()
				return nil, fmt.Errorf("reading %s: %w", p, err)
			}
			src.sha = hex.EncodeToString(h.Sum(nil))
		}
		return src, nil
	}
	defer rc.Close()
	h := sha256.New()
	if size := st.Size(); size <= memSpool {
		// The size Open found, read at once, as a local file is: one
		// request on SFTP, where reading on to the end of the file asks
		// once more, and a buffer growing from 512 bytes asks once per
		// step. The file settled before its claim; one that is shorter
		// now is read as it is.
		head := make([]byte, size)
		n, err := io.ReadFull(io.TeeReader(rc, h), head)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("downloading %s: %w", p, err)
		}
		return &source{ReaderAt: bytes.NewReader(head[:n]), size: int64(n), mtime: st.ModTime(), sha: hex.EncodeToString(h.Sum(nil)), mem: true, close: func() error { return nil }}, nil
	}
	head, err := io.ReadAll(io.LimitReader(io.TeeReader(rc, h), memSpool))
	if err != nil {
		return nil, fmt.Errorf("downloading %s: %w", p, err)
	}
	tmp, err := os.CreateTemp("", "filebridge-spool-*")
	if err != nil {
		return nil, fmt.Errorf("spooling %s: %w", p, err)
	}
	cleanup := func() error {
		err := tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	n, err := io.Copy(tmp, io.MultiReader(bytes.NewReader(head), io.TeeReader(rc, h)))
	if err != nil {
		_ = cleanup()
		return nil, fmt.Errorf("downloading %s: %w", p, err)
	}
	return &source{ReaderAt: tmp, size: n, mtime: st.ModTime(), sha: hex.EncodeToString(h.Sum(nil)), close: cleanup}, nil
}
