package portal

// ForgetMisses drops the codes the client believes missing from the
// portal (kept for missTTL after a lookup found nothing) and the loaded
// reference lists, so that the next resolution asks the portal again. A
// replay calls it: an operator replays a file because a clerk has just
// created the missing SKU or supplier.
func (c *Client) ForgetMisses() {
	r := c.refs
	r.mu.Lock()
	clear(r.misses)
	r.mu.Unlock()
	r.listMu.Lock()
	clear(r.loaded)
	r.listMu.Unlock()
}
