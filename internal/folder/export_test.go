package folder

import "time"

// DisablePosixRename makes an SFTP folder's Replace use its fallback.
func DisablePosixRename(f Folder) { f.(*sftpFolder).noPosixRename = true }

// SetClock makes an SFTP folder measure its redial backoff on now.
func SetClock(f Folder, now func() time.Time) {
	sf := f.(*sftpFolder)
	sf.mu.Lock()
	defer sf.mu.Unlock()
	sf.now = now
}
