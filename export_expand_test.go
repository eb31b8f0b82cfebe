package unical

// ExpandedInstancesForTest returns how many instances expansion has built
// so far in this process, so tests can see how much a page expands.
func ExpandedInstancesForTest() int64 { return expandedInstances.Load() }
