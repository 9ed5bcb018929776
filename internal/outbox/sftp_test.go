package outbox

import (
	"bytes"
	"io"
	"log/slog"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
