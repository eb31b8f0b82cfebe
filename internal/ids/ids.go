// Package ids makes the random identifiers unical hands out: record ids
// that sort in creation order, and random strings for secrets. The root
// package and the operator side (package admin) both make ids, and they
// must look alike.
package ids

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"time"
)

var encoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// New returns prefix_ + 26 characters: 48 bits of milliseconds and 80
// random bits in a sortable base32, so ids list in creation order.
func New(prefix string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	return prefix + "_" + encoding.EncodeToString(b[:])
}

// Random returns n random bytes in URL-safe base32.
func Random(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("unical: no randomness: " + err.Error())
	}
	return encoding.EncodeToString(b)
}
