package folder

import "time"

// DisablePosixRename makes an SFTP folder's Replace use its fallback.
func DisablePosixRename(f Folder) { f.(*sftpFolder).noPosixRename = true }

// SetClock makes an SFTP folder's connection measure its redial backoff
// on now.
func SetClock(f Folder, now func() time.Time) {
	l := f.(*sftpFolder).link
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = now
}
