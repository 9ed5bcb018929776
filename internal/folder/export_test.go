package folder

// DisablePosixRename makes an SFTP folder's Replace use its fallback.
func DisablePosixRename(f Folder) { f.(*sftpFolder).noPosixRename = true }
