package httpapi

import "github.com/unical/unical"

// StatusOf is the HTTP status that /v1 answers err with, from the one
// table of codes, for the other front ends that show a unical error over
// HTTP (the dashboard's pages).
func StatusOf(err error) int { return statusCode(unical.ErrorCode(err)).Status }
