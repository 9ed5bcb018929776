package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

// loadLedger reads the ledger at p: a line with the number of entries,
// then one line an entry ("N KEY NAME", the name quoted). What follows
// the entries (left by a rewrite cut before its truncation) is ignored;
// none is read from a missing or unreadable ledger.
func loadLedger(p string) []reading {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
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

// saveLedger rewrites the ledger at p in place (one write, then the
// truncation of what is left of the longer one before).
func saveLedger(p string, rs []reading) error {
	b := fmt.Appendf(nil, "%d\n", len(rs))
	for _, r := range rs {
		b = fmt.Appendf(b, "%d %s %q\n", r.n, r.key, r.name)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
			f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	return errors.Join(err, f.Close())
}

// beginRead counts a start of reading the file and returns the func that
// ends it. It returns errStoppedReading, and counts nothing, when
// crashLimit earlier starts never ended. A ledger that cannot be written
// is logged and does not stop the reading.
func (in *Inbox) beginRead(name string, size int64) (end func(), err error) {
	p, key := in.ledgerPath(), readingKey(name, size)
	in.readMu.Lock()
	defer in.readMu.Unlock()
	rs := loadLedger(p)
	i := slices.IndexFunc(rs, func(r reading) bool { return r.key == key })
	if i >= 0 && rs[i].n >= crashLimit {
		return func() {}, fmt.Errorf("%s: %w", name, errStoppedReading)
	}
	if i < 0 {
		rs, i = append(rs, reading{key: key, name: name}), len(rs)
	}
	rs[i].n++
	if err := saveLedger(p, rs); err != nil {
		if !in.readWarned {
			in.readWarned = true
			in.log.Warn("could not record the start of reading a file (said once): a file that stops filebridge cannot be told apart", "file", name, "error", err)
		}
		return func() {}, nil
	}
	return func() { in.clearRead(name, size) }, nil
}

// clearRead forgets the starts of reading a file: its reading ended, or
// it went to error/ for stopping filebridge.
func (in *Inbox) clearRead(name string, size int64) {
	p, key := in.ledgerPath(), readingKey(name, size)
	in.readMu.Lock()
	defer in.readMu.Unlock()
	rs := loadLedger(p)
	left := slices.DeleteFunc(slices.Clone(rs), func(r reading) bool { return r.key == key })
	if len(left) == len(rs) {
		return
	}
	if err := saveLedger(p, left); err != nil {
		in.log.Warn("could not clear the record of reading a file", "file", name, "error", err)
	}
}
