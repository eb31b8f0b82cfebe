// Package httpwire is what every HTTP front end of unicald answers and
// reads alike: the /v1 API, the admin API and the dashboard. One JSON
// error body with the status of the one table of codes
// (internal/adapter/wirecode), JSON answers written in one piece, strict JSON
// request bodies whose errors name the field, query strings checked
// against the parameters a route takes, and the readiness /readyz
// reports. It keeps the transports from importing each other: httpapi,
// adminapi and dashboard each import this package instead.
package httpwire
