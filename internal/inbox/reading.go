package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// instance. It is written without fsync: a process that dies leaves what
// it wrote to the kernel; a machine that loses power forgets, at worst,
// one count.

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

// readingPath is the ledger file of one file of the inbox: by name and
// size, which a claim keeps.
func (in *Inbox) readingPath(name string, size int64) string {
	h := sha256.Sum256([]byte(in.cfg.Name + "\x00" + name + "\x00" + strconv.FormatInt(size, 10)))
	return filepath.Join(in.readingDir(), hex.EncodeToString(h[:12]))
}

// beginRead counts a start of reading the file and returns the func that
// ends it. It returns errStoppedReading, and counts nothing, when
// crashLimit earlier starts never ended. A ledger that cannot be written
// is logged and does not stop the reading.
func (in *Inbox) beginRead(name string, size int64) (end func(), err error) {
	p := in.readingPath(name, size)
	in.readMu.Lock()
	defer in.readMu.Unlock()
	n := 0
	if b, err := os.ReadFile(p); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	}
	if n >= crashLimit {
		return func() {}, fmt.Errorf("%s: %w", name, errStoppedReading)
	}
	err = os.MkdirAll(filepath.Dir(p), 0o700)
	if err == nil {
		err = os.WriteFile(p, fmt.Appendf(nil, "%d\n%s/%s\n", n+1, in.cfg.Name, name), 0o600)
	}
	if err != nil {
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
	in.readMu.Lock()
	defer in.readMu.Unlock()
	if err := os.Remove(in.readingPath(name, size)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.log.Warn("could not clear the record of reading a file", "file", name, "error", err)
	}
}
