package admin

import "github.com/unical/unical/internal/seal"

// NewMasterKey returns a random master key for unical.Config.MasterKey.
func NewMasterKey() [32]byte { return seal.NewKey() }

// ParseMasterKey reads a master key written as 64 hex digits or as
// standard or URL-safe base64 of 32 bytes, as unicald's UNICAL_MASTER_KEY
// is.
func ParseMasterKey(s string) ([32]byte, error) {
	return seal.ParseKey(s)
}

// LoadOrCreateMasterKeyFile reads the master key in the file at path, or
// creates the file (mode 0600) with a new random key when it does not
// exist; created says which. It is how unicald keeps its key in its data
// folder. A key file readable by group or others is refused, as ssh does
// with private keys. A new file is synced to disk, with its folder entry,
// before the key is returned: data sealed with a key that a crash then
// loses could never be opened again.
func LoadOrCreateMasterKeyFile(path string) (key [32]byte, created bool, err error) {
	return seal.LoadOrCreateKeyFile(path)
}
