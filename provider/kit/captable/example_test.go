package captable_test

import (
	"fmt"

	"github.com/unical/unical"
	"github.com/unical/unical/provider/kit/captable"
)

// ExampleReadOnly declares the capabilities of a provider whose calendars
// cannot be written: every field is refused with the provider's note, so
// the Client refuses a write before calling the provider, naming the
// field, and GET /v1/capabilities shows the same table.
func ExampleReadOnly() {
	caps := captable.ReadOnly("HOLIDAYS", "Holiday calendars are read-only.")
	title := caps.Event["title"]
	fmt.Println(caps.ProviderType, title.Support == unical.Refused, title.Note)
	// Output:
	// HOLIDAYS true Holiday calendars are read-only.
}
