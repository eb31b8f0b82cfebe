module github.com/unical/unical

go 1.26.8

require (
	github.com/emersion/go-ical v0.0.0-20250329121855-f41e73efc392
	github.com/google/go-cmp v0.7.0
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1
	github.com/teambition/rrule-go v1.8.2
	go.etcd.io/bbolt v1.5.0
	golang.org/x/oauth2 v0.37.0
)

require golang.org/x/sys v0.45.0 // indirect
