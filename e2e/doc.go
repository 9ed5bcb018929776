// Package e2e holds filebridge's end-to-end tests and benchmarks: they
// build the binary once, start `filebridge sim` and `filebridge run` as
// processes on loopback, drop files into local and SFTP inboxes (an
// in-process SFTP server and a real OpenSSH sshd), and check where every
// file and every document ends up, also across kill -9 and injected
// faults. Run them with `go test ./e2e/` (-short skips the slowest).
package e2e
