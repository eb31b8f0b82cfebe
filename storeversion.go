package unical

// VersionedStore is a Store that can tell whether its data has changed:
// Version returns a number that differs from every earlier one once any
// write has been committed, by this process or any other. A Store that
// cannot see the writes of other processes (a database shared by
// replicas, without change notifications) must not implement it.
//
// Callers read the version before they read data, and may reuse what they
// derived from that data for as long as the version stays the same.
type VersionedStore interface {
	Store
	Version() uint64
}

// StoreVersion returns the Store's version and true when the Store is a
// [VersionedStore]; false means every read must go to the Store.
func (c *Client) StoreVersion() (uint64, bool) {
	if vs, ok := c.store.(VersionedStore); ok {
		return vs.Version(), true
	}
	return 0, false
}
