package e2e

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"filebridge/internal/folder/sftptest"
)

// The floors: the file operations a file's lifecycle needs (DESIGN
// section 3: claim by rename into processing/, read and hash, a report
// written atomically next to the file's final path, the move into
// processed/YYYY/MM/DD/), done by a bare loop with the same durability
// and nothing else: no journal, no decoding, no portal. No inbox can take
// files faster than its floor on the same machine, so the floor tells how
// much of a gap is filebridge's and how much is the file system's.

// floorWorkers is how many files the bare loops handle at once, the
// inbox's best file_concurrency in BenchmarkLocalInboxFiles.
const floorWorkers = 16

// floorReport stands for a one-supplier file's report.
const floorReport = "\uFEFFrow,key,result,portal_id,message\n2,NT-00001,created,1234,\n"

// eachFile runs do for names, floorWorkers at a time, and returns how
// long they took; the first error fails the benchmark.
func eachFile(b *testing.B, names []string, do func(name string) error) time.Duration {
	b.Helper()
	work := make(chan string)
	errs := make(chan error, len(names))
	var wg sync.WaitGroup
	began := time.Now()
	for range floorWorkers {
		wg.Go(func() {
			for name := range work {
				if err := do(name); err != nil {
					errs <- fmt.Errorf("%s: %w", name, err)
				}
			}
		})
	}
	for _, n := range names {
		work <- n
	}
	close(work)
	wg.Wait()
	took := time.Since(began)
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return took
}

// syncedFile is a local or SFTP file being written.
type syncedFile interface {
	io.Writer
	Sync() error
	Close() error
}

// writeReport writes floorReport into the file just opened (or fails with
// the error of opening it), syncs and closes it.
func writeReport[F syncedFile](f F, err error) error {
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, floorReport); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// bareLocalLifecycle takes the files names out of the local folder inbox
// the way the lifecycle does, with every fsync the local folder makes.
func bareLocalLifecycle(b *testing.B, inbox string, names []string) time.Duration {
	b.Helper()
	processing := mkdir(b, inbox, "processing")
	done := mkdir(b, inbox, "processed", time.Now().Format("2006/01/02"))
	syncDir := func(dir string) error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	}
	return eachFile(b, names, func(name string) error {
		claimed := filepath.Join(processing, name)
		if err := os.Rename(filepath.Join(inbox, name), claimed); err != nil {
			return err
		}
		data, err := os.ReadFile(claimed)
		if err != nil {
			return err
		}
		_ = sha256.Sum256(data)
		tmp := filepath.Join(done, "."+name+".report.csv.part")
		if err := writeReport(os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)); err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(done, name+".report.csv")); err != nil {
			return err
		}
		if err := syncDir(done); err != nil {
			return err
		}
		if err := os.Rename(claimed, filepath.Join(done, name)); err != nil {
			return err
		}
		return syncDir(done)
	})
}

// bareSFTPLifecycle does the same over one SFTP connection to sshd, with
// the requests the SFTP folder makes: posix-rename to claim, open, read
// and close, the report created exclusively under a temporary name,
// written, fsynced (fsync@openssh.com), closed and renamed, and the file's
// posix-rename into processed/.
func bareSFTPLifecycle(b *testing.B, d *sftptest.SSHD, inbox string, names []string) time.Duration {
	b.Helper()
	signer, err := ssh.ParsePrivateKey(d.ClientKey)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := ssh.Dial("tcp", d.Addr, &ssh.ClientConfig{
		User:            d.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(d.HostKey),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		b.Fatalf("dialling sshd: %v", err)
	}
	defer conn.Close()
	c, err := sftp.NewClient(conn)
	if err != nil {
		b.Fatalf("starting SFTP: %v", err)
	}
	defer c.Close()
	processing := path.Join(inbox, "processing")
	done := path.Join(inbox, "processed", time.Now().Format("2006/01/02"))
	for _, dir := range []string{processing, done} {
		if err := c.MkdirAll(dir); err != nil {
			b.Fatal(err)
		}
	}
	return eachFile(b, names, func(name string) error {
		claimed := path.Join(processing, name)
		if err := c.PosixRename(path.Join(inbox, name), claimed); err != nil {
			return err
		}
		r, err := c.Open(claimed)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, r)
		if cerr := r.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		tmp := path.Join(done, "."+name+".report.csv.part")
		if err := writeReport(c.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)); err != nil {
			return err
		}
		if err := c.Rename(tmp, path.Join(done, name+".report.csv")); err != nil {
			return err
		}
		return c.PosixRename(claimed, path.Join(done, name))
	})
}
