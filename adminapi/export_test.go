package adminapi

// QueryParameters returns the query parameters the admin route of pattern
// takes.
func QueryParameters(pattern string) []string { return queryParams[pattern] }
