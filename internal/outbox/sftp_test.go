package outbox

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"filebridge/internal/folder"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/model"
)

// TestSFTPOutboxNeverShowsPartialFiles writes stock exports into a folder
// on OpenSSH's sshd while another SFTP client lists the folder in a loop and
// reads every file under a final name: it must always find the whole file.
func TestSFTPOutboxNeverShowsPartialFiles(t *testing.T) {
	const variants = 3000
	root := t.TempDir()
	sshd := sftptest.StartSSHD(t, root)
	e := newSimEnv(t, model.EditionA, variants, 1000, nil)
	e.t = t
	f, err := folder.Open(t.Context(), sshd.Options(root+"/out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e.runner.Folder = f
	e.runner.Logger = slog.New(slog.DiscardHandler)

	watcher := sshd.Client(t)
	defer watcher.Close()
	var (
		stop    atomic.Bool
		wg      sync.WaitGroup
		checked atomic.Int32
		lists   atomic.Int32
		bad     []string
		mu      sync.Mutex
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		done := map[string]bool{}
		for !stop.Load() {
			entries, err := watcher.ReadDir(root + "/out")
			if err != nil {
				continue // not created yet
			}
			lists.Add(1)
			for _, fi := range entries {
				name := fi.Name()
				if strings.HasPrefix(name, ".") || done[name] {
					continue // a temporary name, or already read
				}
				fh, err := watcher.Open(path.Join(root, "out", name))
				if err != nil {
					mu.Lock()
					bad = append(bad, name+": "+err.Error())
					mu.Unlock()
					continue
				}
				data, err := io.ReadAll(fh)
				fh.Close()
				lines := bytes.Count(data, []byte("\n"))
				if err != nil || lines != variants+1 || !bytes.HasSuffix(data, []byte("\n")) {
					mu.Lock()
					bad = append(bad, name+": partial file seen")
					mu.Unlock()
				}
				done[name] = true
				checked.Add(1)
			}
		}
	}()
	job := e.job(model.ExportStock)
	const runs = 4
	for range runs {
		res, err := e.runner.Run(t.Context(), job)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rows != variants {
			t.Fatalf("%d rows, want %d", res.Rows, variants)
		}
	}
	// Let the watcher read the last file.
	for deadline := time.Now().Add(10 * time.Second); checked.Load() < runs && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("the watcher saw: %v", bad)
	}
	if checked.Load() != runs {
		t.Errorf("the watcher read %d files, want %d", checked.Load(), runs)
	}
	entries, err := watcher.ReadDir(root + "/out")
	if err != nil || len(entries) != runs {
		t.Errorf("outbox holds %d entries (%v), want %d files and no temporary one", len(entries), err, runs)
	}
	t.Logf("the watcher listed the folder %d times", lists.Load())
}

// otherParty writes, while an export's temporary file is being written,
// a file of the export's final name with content: another party that
// writes the same name into the folder meanwhile.
type otherParty struct {
	sftp.FileWriter
	content []byte
	wrote   atomic.Int32
}

func (o *otherParty) Filewrite(r *sftp.Request) (io.WriterAt, error) {
	dir, base := path.Split(r.Filepath)
	if folder.IsTemp(base) && !strings.HasPrefix(base, ".rename-probe.") && o.wrote.Add(1) == 1 {
		final := strings.TrimPrefix(base[:len(base)-len(".123456789abc.part")], ".")
		req := sftp.NewRequest("Put", path.Join(dir, final))
		req.Flags = 0x02 | 0x08 | 0x20 // write, create, exclusive
		w, err := o.FileWriter.Filewrite(req)
		if err != nil {
			return nil, err
		}
		if _, err := w.WriteAt(o.content, 0); err != nil {
			return nil, err
		}
	}
	return o.FileWriter.Filewrite(r)
}

// TestSFTPOutboxNeverOverwrites: on servers whose plain rename overwrites
// (MySecureShell: without posix-rename and hardlink; or with hardlink), an
// export whose name another party took while it was written fails and
// says so; the other party's file is left as it was.
func TestSFTPOutboxNeverOverwrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		hide []string
	}{
		{"no extensions", []string{sftptest.ExtHardlink, sftptest.ExtPosixRename}},
		{"hardlink", []string{sftptest.ExtPosixRename}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := &otherParty{content: []byte("the other party's file\n")}
			srv := sftptest.NewServerConfig(t, sftptest.Config{OverwritingRename: true, HideExtensions: tc.hide,
				Handlers: func(h sftp.Handlers) sftp.Handlers {
					other.FileWriter, h.FilePut = h.FilePut, other
					return h
				}})
			e := newSimEnv(t, model.EditionA, 20, 100, nil)
			opts := srv.Options("/out")
			opts.Logger = slog.New(slog.DiscardHandler)
			f, err := folder.Open(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = f.Close() })
			e.runner.Folder = f
			_, err = e.runner.Run(t.Context(), e.job(model.ExportStock))
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "nothing was overwritten") {
				t.Fatalf("export onto a name taken meanwhile: got %v, want an error saying nothing was overwritten", err)
			}
			c := srv.Client(t)
			entries, err := c.ReadDir("/out")
			if err != nil || len(entries) != 1 {
				t.Fatalf("outbox holds %d entries (%v), want the other party's file alone", len(entries), err)
			}
			if got := sftptest.ReadFile(t, c, "/out/"+entries[0].Name()); !bytes.Equal(got, other.content) {
				t.Errorf("the other party's %s holds %q, want it unchanged", entries[0].Name(), got)
			}
		})
	}
}
