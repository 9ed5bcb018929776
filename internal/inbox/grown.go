package inbox

import (
	"context"
	"path"
	"time"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// A file's writer may pause longer than settle and then go on writing into
// the file it holds open, after the inbox read it and moved it on. The
// inbox looks at the files it finished in the last grownWindow, at most
// once every grownEvery, with one listing of each folder they went to.
const (
	grownWindow = 2 * time.Minute
	grownEvery  = 5 * time.Second
)

// requeueGrown puts back into the inbox every file finished in the last
// grownWindow whose final copy grew beyond what its last reading read:
// the rows written after that reading would be lost otherwise. The new
// run is a forced replay of the whole file, so documents already on the
// portal are looked up, not created again; a file that grows again is put
// back again once that replay is finished.
func (in *Inbox) requeueGrown(ctx context.Context, f folder.Folder) {
	now := in.now()
	if now.Sub(in.grownLook) < grownEvery {
		return
	}
	in.grownLook = now
	files, err := in.j.Files(ctx, journal.FileFilter{Inbox: in.cfg.Name,
		States: []journal.FileState{journal.FileDone, journal.FileFailed}, Since: now.Add(-grownWindow)})
	if err != nil {
		in.log.Warn("looking for files that grew after they were read", "error", err)
		return
	}
	sizes := map[string]map[string]int64{} // folder → name → size
	for _, file := range files {
		if file.FinalPath == "" {
			continue
		}
		dir := path.Dir(file.FinalPath)
		if sizes[dir] == nil {
			sizes[dir] = map[string]int64{}
			entries, err := f.List(ctx, dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				sizes[dir][e.Name] = e.Size
			}
		}
		size, ok := sizes[dir][path.Base(file.FinalPath)]
		if !ok || size <= file.Size {
			continue
		}
		read, pending, err := in.lastRead(ctx, file)
		if err != nil || pending || size <= read {
			continue
		}
		name, err := Requeue(ctx, in.j, f, &in.cfg, file, true, "inbox: it grew after it was read")
		if err != nil {
			in.log.Warn("a file grew after it was read, and could not be put back to be read again", "file", file.Name, "file_id", file.ID, "error", err)
			continue
		}
		in.log.Warn("a file grew after it was read (its writer paused longer than settle): it is read again whole; documents already on the portal are looked up, not created again",
			"file", file.Name, "file_id", file.ID, "read_bytes", read, "size", size, "as", name)
	}
}

// lastRead is how many bytes of file its newest reading read: its own, or
// that of its newest finished replay; pending says a replay waits.
func (in *Inbox) lastRead(ctx context.Context, file journal.File) (read int64, pending bool, err error) {
	replays, err := in.j.ReplaysOf(ctx, file.ID)
	if err != nil {
		return 0, false, err
	}
	read = file.Size
	for _, r := range replays {
		if r.ReplayID == 0 {
			return 0, true, nil
		}
		run, err := in.j.File(ctx, r.ReplayID)
		if err != nil {
			return 0, false, err
		}
		if run.State.Open() {
			return 0, true, nil
		}
		read = max(read, run.Size)
	}
	return read, false, nil
}
