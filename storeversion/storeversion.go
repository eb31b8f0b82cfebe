// Package storeversion is the optional part of a Store that tells whether
// its data has changed, so that what was derived from it can be reused:
// the Client's caches of applications and API keys, httpapi's answer
// cache and package scopedtoken's grants follow it. A Store outside the
// module implements [Store]; it imports nothing of the module, so the
// root package can use it.
package storeversion

// Store is a Store that can tell whether its data has changed:
// Version returns a number that differs from every earlier one once a
// write to an application, an API key or an account has been committed
// by this process, and, for a Store shared by processes, as soon as it
// learns of such a write committed by another (the PostgreSQL store: by
// a notification from the database, within a moment). A Store may move
// it more often (bbolt moves it with every write). A Store that cannot
// learn of the writes of other processes must not implement it.
//
// Callers read the version before they read data, and may reuse what they
// derived from applications, API keys and accounts for as long as the
// version stays the same.
type Store interface {
	Version() uint64
}

// Of returns store's version and true when it is a [Store]; false means
// every read must go to the Store.
func Of(store any) (uint64, bool) {
	if vs, ok := store.(Store); ok {
		return vs.Version(), true
	}
	return 0, false
}
