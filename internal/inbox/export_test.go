package inbox

import "os"

// StartReading counts a start of reading a file of the inbox and never
// ends it: what a process that died while reading the file leaves.
func (in *Inbox) StartReading(name string, size int64) error {
	_, err := in.beginRead(name, size)
	return err
}

// ReadingsLeft counts the files of the inbox the reading ledger holds as
// being read (started and not ended).
func (in *Inbox) ReadingsLeft() int {
	b, _ := os.ReadFile(in.ledgerPath())
	return len(parseLedger(b))
}
