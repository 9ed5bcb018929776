//go:build !unix

package inbox

// handleBudget is how many claimed local files a round keeps open for
// their processing.
func handleBudget() int { return minKept }
