package portal

import "strconv"

// Identity names the portal account the client talks to: its base URL
// and company. Two clients with the same identity reach the same data
// (the journal finds duplicates per identity).
func (c *Client) Identity() string {
	return c.base.String() + " company " + strconv.FormatInt(c.cfg.Company, 10)
}
