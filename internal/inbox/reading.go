package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The reading ledger: before the inbox reads a file's content through the
// decoder (its header for the type, the whole file for its decoding), it counts
// one start of reading that file in a small local file, and removes the
// count when the reading ended, however it ended. A process that dies
// while reading (out of memory, a crash in a library, kill -9) leaves the
// count behind. A file whose reading was started twice without ending is
// not read a third time: it goes to error/ with a report saying it stopped
// filebridge. So one file can never crash-loop a daemon (it stops it twice
// at most), and a file whose reading was merely cut once by a kill is read
// again as before. Submitting is not reading: a kill while documents are
// sent is resumed as always.
//
// The ledger is local (the process that dies is local): beside a SQLite
// journal (JOURNAL.reading/), else in the user's cache folder per
// instance, one file per inbox holding the counts of the files being read.
// That file is rewritten in place, never created and removed per reading:
// on ext4 without a journal every new file skips the inodes removed in the
// last half minute, so a file per reading made each reading slower the more
// files went through. It is written without fsync: a process that dies
// leaves what it wrote to the kernel; a machine that loses power forgets,
// at worst, the counts of that moment.
//
// The ledger is read once, at its first use (before any reading by this
// process, so the counts a dead process left are honoured); then its
// counts live in memory and its file stays open, rewritten with one
// write (and a truncation when it shrank) at each change.

// crashLimit is how many starts of reading a file that never ended make
// it quarantined.
const crashLimit = 2

// errStoppedReading is why a file is quarantined.
var errStoppedReading = errors.New("this file stopped filebridge while it was being read: moved to error/ and not read again; look at it (a huge cell, a damaged workbook?) before dropping it again")

// readingDir is the folder of the inbox's reading ledger.
func (in *Inbox) readingDir() string {
	if in.j.Backend() == "sqlite" {
		return in.j.Path() + ".reading"
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	inst := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, in.j.Instance())
	return filepath.Join(base, "filebridge", "reading-"+inst)
}

// ledgerPath is the inbox's ledger file.
func (in *Inbox) ledgerPath() string {
	h := sha256.Sum256([]byte(in.cfg.Name))
	return filepath.Join(in.readingDir(), hex.EncodeToString(h[:12]))
}

// reading is one entry of the ledger: a file of the inbox, by the key of
// its name and size (which a claim keeps), and how many of its readings
// started and never ended.
type reading struct {
	key  string
	n    int
	name string // for people looking at the ledger
}

func readingKey(name string, size int64) string {
	h := sha256.Sum256([]byte(name + "\x00" + strconv.FormatInt(size, 10)))
	return hex.EncodeToString(h[:12])
}

// ledger is an inbox's reading ledger: its counts and its open file.
type ledger struct {
	mu     sync.Mutex // guards the fields below
	loaded bool
	path   string
	rs     []reading
	f      *os.File // nil until opened for writing, or when it cannot be
	size   int      // bytes the file holds (what follows the entries is ignored)
	buf    []byte   // the last rewrite, kept for the next
	warned bool     // a ledger that cannot be written was logged
}

// parseLedger reads a ledger: a line with the number of entries, then one
// line an entry ("N KEY NAME", the name quoted). What follows the entries
// (left by a rewrite cut before its truncation) is ignored; none is read
// from an unreadable ledger.
func parseLedger(b []byte) []reading {
	lines := strings.Split(string(b), "\n")
	k, err := strconv.Atoi(lines[0])
	if err != nil {
		return nil
	}
	var rs []reading
	for _, l := range lines[1:min(len(lines), k+1)] {
		var r reading
		if _, err := fmt.Sscanf(l, "%d %s %q", &r.n, &r.key, &r.name); err == nil {
			rs = append(rs, r)
		}
	}
	return rs
}

// load reads the ledger at its first use (l.mu held), through the file it
// opens for the rewrites when it can.
func (l *ledger) load(path func() string) {
	if l.loaded {
		return
	}
	l.loaded, l.path = true, path()
	var b []byte
	if err := l.open(); err == nil {
		b, _ = io.ReadAll(l.f)
		l.size = len(b)
	} else {
		b, _ = os.ReadFile(l.path)
	}
	l.rs = parseLedger(b)
}

// open opens the ledger's file for the rewrites, making its folder if
// needed (l.mu held).
func (l *ledger) open() error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(l.path), 0o700); err == nil {
			f, err = os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return err
	}
	l.f = f
	return nil
}

// save rewrites the ledger's file in place from its counts (l.mu held):
// one write, then the truncation of what is left of a longer one before.
func (l *ledger) save() error {
	b := fmt.Appendf(l.buf[:0], "%d\n", len(l.rs))
	for _, r := range l.rs {
		b = fmt.Appendf(b, "%d %s %q\n", r.n, r.key, r.name)
	}
	l.buf = b
	if l.f == nil {
		if err := l.open(); err != nil {
			return err
		}
	}
	if _, err := l.f.WriteAt(b, 0); err != nil {
		l.size = max(l.size, len(b))
		return err
	}
	if len(b) < l.size {
		if err := l.f.Truncate(int64(len(b))); err != nil {
			return err
		}
	}
	l.size = len(b)
	return nil
}

// close closes the ledger's file; the counts stay, and the next change
// opens it again.
func (l *ledger) close() (err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		err, l.f = l.f.Close(), nil
	}
	return err
}

// idleLedger closes the reading ledger's file at the end of a round: an
// idle inbox holds no descriptor for it (a thousand tenants would hold a
// thousand), and the next change opens it again.
func (in *Inbox) idleLedger() {
	if err := in.ledger.close(); err != nil {
		in.log.Warn("could not close the reading ledger", "error", err)
	}
}

// find returns the index of the entry of key, -1 when there is none
// (l.mu held).
func (l *ledger) find(path func() string, key string) int {
	l.load(path)
	return slices.IndexFunc(l.rs, func(r reading) bool { return r.key == key })
}

// stoppedReading reports whether the file stopped filebridge crashLimit
// times, counting nothing: for a claim that does not read the file.
func (in *Inbox) stoppedReading(name string, size int64) bool {
	l, key := &in.ledger, readingKey(name, size)
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.find(in.ledgerPath, key)
	return i >= 0 && l.rs[i].n >= crashLimit
}

// beginRead counts a start of reading the file and returns the func that
// ends it. It returns errStoppedReading, and counts nothing, when
// crashLimit earlier starts never ended. A ledger that cannot be written
// is logged and does not stop the reading.
func (in *Inbox) beginRead(name string, size int64) (end func(), err error) {
	l, key := &in.ledger, readingKey(name, size)
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.find(in.ledgerPath, key)
	if i >= 0 && l.rs[i].n >= crashLimit {
		return func() {}, fmt.Errorf("%s: %w", name, errStoppedReading)
	}
	if i < 0 {
		l.rs, i = append(l.rs, reading{key: key, name: name}), len(l.rs)
	}
	l.rs[i].n++
	if err := l.save(); err != nil {
		if l.rs[i].n--; l.rs[i].n == 0 {
			l.rs = slices.Delete(l.rs, i, i+1)
		}
		if !l.warned {
			l.warned = true
			in.log.Warn("could not record the start of reading a file (said once): a file that stops filebridge cannot be told apart", "file", name, "error", err)
		}
		return func() {}, nil
	}
	return func() { in.forgetRead(key, name) }, nil
}

// clearRead forgets the starts of reading a file: its reading ended, or
// it went to error/ for stopping filebridge.
func (in *Inbox) clearRead(name string, size int64) {
	in.forgetRead(readingKey(name, size), name)
}

func (in *Inbox) forgetRead(key, name string) {
	l := &in.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	l.load(in.ledgerPath)
	n := len(l.rs)
	if l.rs = slices.DeleteFunc(l.rs, func(r reading) bool { return r.key == key }); len(l.rs) == n {
		return
	}
	if err := l.save(); err != nil {
		in.log.Warn("could not clear the record of reading a file", "file", name, "error", err)
	}
}
