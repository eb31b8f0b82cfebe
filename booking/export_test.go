package booking

// SetAfterEvents sets the hook a test stops a booking's writer with,
// between its events and its record; nil removes it.
func SetAfterEvents(f func()) { afterEvents = f }
