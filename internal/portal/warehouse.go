package portal

import (
	"context"
	"fmt"
	"slices"
)

// How a portal reads the warehouseLocation of an Edition B purchase or
// sales order: the documents do not show how it relates to the warehouse
// id. It is the warehouse's id (warehouse.id of a warehouse client), or
// the id of the warehouse client itself.
const (
	readsUnknown int32 = iota
	readsWarehouse
	readsClient
)

// warehouseIDs returns the warehouseLocation to send for the warehouse
// with this code and id, and the one to send instead when the portal
// refuses it (0: none). Once a create has shown the portal's reading, that
// reading alone is used. Before, the id only one reading accepts is sent
// first, so that a portal reading it the other way refuses it instead of
// taking another warehouse: the warehouse id when no warehouse client has
// that id, else the client's id when no warehouse has that id. When the two
// ids are equal there is nothing to choose; when each is also valid the
// other way, the warehouse id is sent (the reading DESIGN.md assumes).
func (c *Client) warehouseIDs(code string, warehouseID int64) (first, instead int64) {
	c.refs.listMu.Lock()
	clients := c.refs.clients
	c.refs.listMu.Unlock()
	i := slices.IndexFunc(clients, func(w WarehouseClient) bool { return w.WarehouseCode == code && w.WarehouseID == warehouseID })
	if i < 0 || clients[i].ID == 0 || clients[i].ID == warehouseID {
		return warehouseID, 0
	}
	clientID := clients[i].ID
	switch c.whReading.Load() {
	case readsWarehouse:
		return warehouseID, 0
	case readsClient:
		return clientID, 0
	}
	isClient := slices.ContainsFunc(clients, func(w WarehouseClient) bool { return w.ID == warehouseID })
	isWarehouse := slices.ContainsFunc(clients, func(w WarehouseClient) bool { return w.WarehouseID == clientID })
	switch {
	case !isClient:
		return warehouseID, clientID
	case !isWarehouse:
		return clientID, warehouseID
	}
	return warehouseID, 0
}

// withWarehouse runs a create of an Edition B order whose warehouse was
// resolved from its code (code "" : given as an id, sent as it is):
// create posts the document with warehouseLocation id. A refusal on
// warehouseLocation of an id only one reading accepts tells the portal
// reads the other: the create is sent again with the other id, and the
// reading is kept for the client's life; an acceptance keeps the reading
// too.
func (c *Client) withWarehouse(ctx context.Context, code string, warehouseID int64, create func(id int64) (Outcome, error)) (Outcome, error) {
	if code == "" || warehouseID == 0 {
		return create(warehouseID)
	}
	first, instead := c.warehouseIDs(code, warehouseID)
	out, err := create(first)
	if instead == 0 {
		return out, err
	}
	reading := map[bool]int32{true: readsWarehouse, false: readsClient}
	switch {
	case err == nil && !out.Existed:
		c.whReading.CompareAndSwap(readsUnknown, reading[first == warehouseID])
	case refusedOn(err, "warehouseLocation"):
		c.whReading.CompareAndSwap(readsUnknown, reading[instead == warehouseID])
		c.log.Info("portal reads warehouseLocation the other way: sending it again", "warehouse", code,
			"refused", first, "sent", instead, "as", map[bool]string{true: "the warehouse id", false: "the warehouse client id"}[instead == warehouseID])
		return create(instead)
	}
	return out, err
}

// warehouseOf returns the code of the account's warehouse with this id
// ("" when no warehouse client names it), reading the warehouse clients
// once: an Edition B file may give warehouseLocation as the warehouse's id
// itself, which the portal may read as a warehouse client's.
func (c *Client) warehouseOf(ctx context.Context, id int64) (string, error) {
	if err := c.load(ctx, RefWarehouse, anyAge); err != nil {
		return "", fmt.Errorf("reading the warehouse clients: %w", err)
	}
	c.refs.listMu.Lock()
	defer c.refs.listMu.Unlock()
	for _, w := range c.refs.clients {
		if w.WarehouseID == id {
			return w.WarehouseCode, nil
		}
	}
	return "", nil
}
